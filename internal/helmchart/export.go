package helmchart

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/render"
)

// Options name the chart. Name is required; an empty Version means 0.1.0.
type Options struct {
	Name    string
	Version string
	// Images are the release's images by key: a container image equal to
	// one of them becomes the value images.KEY.
	Images map[string]string
}

// Export returns the files of a chart (path → content) whose `helm
// template` renders objs: Chart.yaml, values.yaml, values.schema.json and
// one template per object, in apply order. Each template is the object's
// JSON with its values replaced by template actions and every "{{" of the
// object escaped, so no content of an object runs as a template. It is
// pure and deterministic.
func Export(objs []*unstructured.Unstructured, opts Options) (map[string][]byte, error) {
	nonce, err := nonceOf(objs)
	if err != nil {
		return nil, err
	}
	v := newValues(opts.Images, nonce)
	files := map[string][]byte{}
	for i, u := range objs {
		name := "templates/" + render.FileName(i, u, render.YAML)
		tmpl, err := v.template(render.Redacted(u))
		if err != nil {
			return nil, fmt.Errorf("export %s: %w", object.RefOf(u), err)
		}
		files[name] = tmpl
	}
	return addChartFiles(files, v.tree, opts)
}

// nonceOf is a marker no object contains: derived from every object, so
// content cannot be written in advance to collide with it.
func nonceOf(objs []*unstructured.Unstructured) (string, error) {
	h := sha256.New()
	for _, u := range objs {
		b, err := json.Marshal(u.Object)
		if err != nil {
			return "", err
		}
		h.Write(b)
	}
	return "piceli-value-" + hex.EncodeToString(h.Sum(nil))[:24], nil
}

func addChartFiles(files map[string][]byte, tree map[string]any, opts Options) (map[string][]byte, error) {
	version := opts.Version
	if version == "" {
		version = "0.1.0"
	}
	chart := map[string]any{"apiVersion": "v2", "name": opts.Name, "version": version, "type": "application",
		"description": "Release " + opts.Name + ", exported by piceli chart export"}
	var err error
	if files["Chart.yaml"], err = yaml.Marshal(chart); err != nil {
		return nil, err
	}
	if files["values.yaml"], err = yaml.Marshal(tree); err != nil {
		return nil, err
	}
	schema := schemaOf(tree)
	openResources(schema)
	schema["$schema"] = "https://json-schema.org/draft-07/schema#"
	if files["values.schema.json"], err = json.MarshalIndent(schema, "", "  "); err != nil {
		return nil, err
	}
	return files, nil
}

// schemaOf is a JSON schema that v satisfies and that refuses every key
// v does not have.
func schemaOf(v any) map[string]any {
	switch x := v.(type) {
	case map[string]any:
		props := map[string]any{}
		keys := make([]string, 0, len(x))
		for k, e := range x {
			props[k] = schemaOf(e)
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return map[string]any{"type": "object", "additionalProperties": false, "properties": props, "required": keys}
	case []any:
		s := map[string]any{"type": "array"}
		if len(x) > 0 {
			s["items"] = schemaOf(x[0])
		}
		return s
	case string:
		return map[string]any{"type": "string"}
	case bool:
		return map[string]any{"type": "boolean"}
	case int64, int, int32:
		return map[string]any{"type": "integer"}
	case float64:
		return map[string]any{"type": "number"}
	}
	return map[string]any{}
}

// openResources lets each container's resources take any quantity of
// requests and limits (a string or a number, any resource name) rather
// than only the ones exported; other keys stay refused.
func openResources(schema map[string]any) {
	props, _ := schema["properties"].(map[string]any)
	res, _ := props["resources"].(map[string]any)
	workloads, _ := res["properties"].(map[string]any)
	quantities := map[string]any{"type": "object", "additionalProperties": map[string]any{"type": []any{"string", "number"}}}
	container := map[string]any{"type": "object", "additionalProperties": false,
		"properties": map[string]any{"limits": quantities, "requests": quantities, "claims": map[string]any{"type": "array"}}}
	for _, w := range workloads {
		containers, _ := w.(map[string]any)["properties"].(map[string]any)
		for name := range containers {
			containers[name] = container
		}
	}
}

// values collects the chart's values while templates are made.
type values struct {
	tree    map[string]any
	images  map[string]string // reference → key
	nonce   string
	actions []string // marker i → its template action
}

func newValues(images map[string]string, nonce string) *values {
	v := &values{tree: map[string]any{}, images: map[string]string{}, nonce: nonce}
	keys := make([]string, 0, len(images))
	for k := range images {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, dup := v.images[images[k]]; !dup {
			v.images[images[k]] = k
		}
	}
	return v
}

// put records value at path in the tree.
func (v *values) put(value any, path ...string) {
	m := v.tree
	for _, p := range path[:len(path)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[path[len(path)-1]] = value
}

// set records value at path and returns the marker that stands for it in
// the object until the marker becomes the action reading it.
func (v *values) set(value any, path ...string) string {
	v.put(value, path...)
	return v.mark("{{ toJson " + indexExpr(path) + " }}")
}

// mark returns a new marker for action.
func (v *values) mark(action string) string {
	marker := markerOf(v.nonce, len(v.actions))
	v.actions = append(v.actions, action)
	return marker
}

// indexExpr reads path from .Values with index and quoted keys, so no key
// is parsed as template syntax.
func indexExpr(path []string) string {
	q := make([]string, len(path))
	for i, p := range path {
		b, _ := json.Marshal(p)
		q[i] = string(b)
	}
	return "(index .Values " + strings.Join(q, " ") + ")"
}

// template returns u's template: its JSON, with "{{" escaped and each
// value marker replaced by its action.
func (v *values) template(u *unstructured.Unstructured) ([]byte, error) {
	c := u.DeepCopy()
	first := len(v.actions)
	v.extract(c)
	b, err := json.Marshal(c.Object)
	if err != nil {
		return nil, err
	}
	text := strings.ReplaceAll(string(b), "{{", `{{"{{"}}`)
	for i := len(v.actions) - 1; i >= first; i-- {
		text = strings.Replace(text, `"`+markerOf(v.nonce, i)+`"`, v.actions[i], 1)
	}
	return []byte(text + "\n"), nil
}
