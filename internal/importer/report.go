package importer

import (
	"slices"

	"github.com/pynenc/piceli/internal/importgen"
	"github.com/pynenc/piceli/internal/object"
)

// ReportSchema ("piceli.import-report/v1") is the version of the document
// an import's report is printed as (piceli import ... -o json).
const ReportSchema = "piceli.import-report/v1"

// Report is an import's result as a versioned document: Schema, then the
// fields of Result.
type Report struct {
	Schema string `json:"schema"`
	Result
}

// Report returns the result as its versioned document.
func (r *Result) Report() Report { return Report{Schema: ReportSchema, Result: *r} }

// KindCount is how the objects of one kind were written.
type KindCount struct {
	Kind      string `json:"kind"`
	Builders  int    `json:"builders"`
	Literals  int    `json:"literals"`
	YAMLFiles int    `json:"yamlFiles"`
}

// Fallback is an object not written as a builder call, and why.
type Fallback struct {
	Object string `json:"object"` // Kind/namespace/name
	Origin string `json:"origin"` // the file and document, or the live object
	Form   string `json:"form"`   // "literal" or "file"
	Reason string `json:"reason"`
}

// tally fills the counts by form and kind and the fallbacks of res.
func tally(res *Result, objs []importgen.Object, refs []object.Ref, forms []importgen.Form, reasons []string) {
	byKind := map[string]*KindCount{}
	var kinds []string
	for i, f := range forms {
		kind := objs[i].Manifest.GetKind()
		kc := byKind[kind]
		if kc == nil {
			kc, kinds = &KindCount{Kind: kind}, append(kinds, kind)
			byKind[kind] = kc
		}
		switch f {
		case importgen.Builder:
			res.Builders, kc.Builders = res.Builders+1, kc.Builders+1
			continue
		case importgen.Literal:
			res.Literals, kc.Literals = res.Literals+1, kc.Literals+1
		case importgen.File:
			res.YAMLFiles, kc.YAMLFiles = res.YAMLFiles+1, kc.YAMLFiles+1
		}
		res.Fallbacks = append(res.Fallbacks, Fallback{Object: refs[i].String(), Origin: objs[i].Origin, Form: string(f), Reason: reasons[i]})
	}
	slices.Sort(kinds)
	for _, k := range kinds {
		res.Kinds = append(res.Kinds, *byKind[k])
	}
}
