package history

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/pynenc/piceli/internal/objjson"
)

// objectsNull is how a revision without objects encodes its objects. It
// can only appear in a revision's JSON where the field is: inside a JSON
// string every quote is escaped, and every field before objects is a
// string, a number, a time or a bool.
const objectsNull = `"objects":null`

// encode returns json.Marshal(r), its objects encoded without reflection:
// a revision holds every manifest of the release, and encoding/json's
// reflection over them was most of recording one. The rest of r is
// encoded by encoding/json, the objects spliced in where they belong
// (TestEncodeIsJSONMarshal holds the two equal).
func encode(r Revision) ([]byte, error) {
	objs := r.Objects
	r.Objects = nil
	rest, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	at := bytes.Index(rest, []byte(objectsNull))
	if at < 0 {
		return nil, fmt.Errorf("encode revision %d: no objects field", r.Number)
	}
	out := make([]byte, 0, len(rest)+len(objs)*512)
	out = append(out, rest[:at+len(objectsNull)-len("null")]...)
	if out, err = appendObjects(out, objs); err != nil {
		return nil, err
	}
	return append(out, rest[at+len(objectsNull):]...), nil
}

// appendObjects writes objs as encoding/json writes a []Object.
func appendObjects(out []byte, objs []Object) ([]byte, error) {
	if objs == nil {
		return append(out, "null"...), nil
	}
	out = append(out, '[')
	for i, o := range objs {
		if i > 0 {
			out = append(out, ',')
		}
		var err error
		if out, err = appendObject(out, o); err != nil {
			return nil, err
		}
	}
	return append(out, ']'), nil
}

// appendObject writes o's fields in Object's order, under its JSON names.
func appendObject(out []byte, o Object) ([]byte, error) {
	ref, err := json.Marshal(o.Ref)
	if err != nil {
		return nil, err
	}
	out = append(append(append(out, `{"ref":`...), ref...), `,"apiVersion":`...)
	out, _ = objjson.Append(out, o.APIVersion)
	out = append(out, `,"resource":`...)
	out, _ = objjson.Append(out, o.Resource)
	out = append(out, `,"manifest":`...)
	if done, ok := objjson.Append(out, o.Manifest); ok {
		return append(done, '}'), nil
	}
	m, err := json.Marshal(o.Manifest)
	if err != nil {
		return nil, err
	}
	return append(append(out, m...), '}'), nil
}
