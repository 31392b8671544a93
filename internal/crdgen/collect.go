package crdgen

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// crdAPIVersion is the only CustomResourceDefinition API the generator
// reads; v1beta1 was removed from Kubernetes in 1.22.
const crdAPIVersion = "apiextensions.k8s.io/v1"

// kindSource is one kind at one served version, on its way to code.
type kindSource struct {
	origin     string
	crd        string
	kind       string
	namespaced bool
	schema     *Schema
	digest     string
	key        string // where its schema is, for errors
	statusSub  bool   // the version has the status subresource
}

// gv is an API group and version.
type gv struct{ group, version string }

// collect reads every document and groups its served versions into
// packages, keyed by directory.
func collect(in Input) (map[string]*pkgGen, error) {
	byGV := map[gv][]kindSource{}
	defined := map[string]string{} // group/kind -> origin of its CRD
	var errs []error
	for _, d := range in.Documents {
		kinds, err := readCRD(d)
		if err == nil {
			err = defineOnce(defined, d, kinds)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for v, k := range kinds {
			byGV[v] = append(byGV[v], k)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return packages(byGV, in.Package), nil
}

// defineOnce refuses a kind a previous document already defined.
func defineOnce(defined map[string]string, d Document, kinds map[gv]kindSource) error {
	for v, k := range kinds {
		id := v.group + "/" + k.kind
		if prev, ok := defined[id]; ok && prev != d.Origin {
			return &Error{Origin: d.Origin, Err: fmt.Errorf("kind %q of group %q is already defined by %s", k.kind, v.group, prev)}
		}
		defined[id] = d.Origin
	}
	return nil
}

// readCRD decodes one CRD and returns its served versions.
func readCRD(d Document) (map[gv]kindSource, error) {
	data, err := json.Marshal(d.Object)
	if err != nil {
		return nil, &Error{Origin: d.Origin, Err: fmt.Errorf("encode as JSON: %w", err)}
	}
	var c crdDoc
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, &Error{Origin: d.Origin, Err: fmt.Errorf("not a CustomResourceDefinition: %w", err)}
	}
	if err := checkCRD(&c); err != nil {
		return nil, &Error{Origin: d.Origin, Key: err.key, Err: err.err}
	}
	out := map[gv]kindSource{}
	for i, v := range c.Spec.Versions {
		if !v.Served {
			continue
		}
		k, err := versionKind(d.Origin, &c, i)
		if err != nil {
			return nil, err
		}
		out[gv{c.Spec.Group, v.Name}] = k
	}
	if len(out) == 0 {
		return nil, &Error{Origin: d.Origin, Key: "spec.versions", Err: errors.New("no version is served")}
	}
	return out, nil
}

// keyError is an error at a key of a CRD.
type keyError struct {
	key string
	err error
}

// checkCRD checks what every CRD must say.
func checkCRD(c *crdDoc) *keyError {
	switch {
	case c.APIVersion != crdAPIVersion:
		return &keyError{"apiVersion", fmt.Errorf("is %q; the generator reads %s CustomResourceDefinitions", c.APIVersion, crdAPIVersion)}
	case c.Kind != "CustomResourceDefinition":
		return &keyError{"kind", fmt.Errorf("is %q, not CustomResourceDefinition", c.Kind)}
	case c.Spec.Group == "":
		return &keyError{"spec.group", errors.New("is empty")}
	case c.Spec.Names.Kind == "":
		return &keyError{"spec.names.kind", errors.New("is empty")}
	case c.Spec.Scope != "Namespaced" && c.Spec.Scope != "Cluster":
		return &keyError{"spec.scope", fmt.Errorf("is %q, not Namespaced or Cluster", c.Spec.Scope)}
	}
	seen := map[string]bool{}
	for i, v := range c.Spec.Versions {
		if v.Name == "" || seen[v.Name] {
			return &keyError{fmt.Sprintf("spec.versions[%d].name", i), fmt.Errorf("%q is empty or named twice", v.Name)}
		}
		seen[v.Name] = true
	}
	return nil
}

// versionKind reads the schema of version i.
func versionKind(origin string, c *crdDoc, i int) (kindSource, error) {
	v := c.Spec.Versions[i]
	key := "spec.versions" + versionKey(v.Name) + ".schema.openAPIV3Schema"
	if v.Schema == nil || len(v.Schema.OpenAPIV3Schema) == 0 || string(v.Schema.OpenAPIV3Schema) == "null" {
		return kindSource{}, &Error{Origin: origin, Key: key, Err: errors.New("is missing: a served version needs a schema")}
	}
	var s Schema
	if err := json.Unmarshal(v.Schema.OpenAPIV3Schema, &s); err != nil {
		return kindSource{}, &Error{Origin: origin, Key: key, Err: fmt.Errorf("not an OpenAPI v3 schema: %w", err)}
	}
	sum := sha256.Sum256(v.Schema.OpenAPIV3Schema)
	return kindSource{
		origin:     origin,
		crd:        c.Metadata.Name,
		kind:       c.Spec.Names.Kind,
		namespaced: c.Spec.Scope == "Namespaced",
		schema:     &s,
		digest:     "sha256:" + hex.EncodeToString(sum[:]),
		key:        key,
		statusSub:  v.Subresources != nil && len(v.Subresources.Status) > 0 && string(v.Subresources.Status) != "null",
	}, nil
}

// packages makes one package per group and version, in directories named
// after them, numbered when two groups sanitise to the same name.
func packages(byGV map[gv][]kindSource, name string) map[string]*pkgGen {
	out := map[string]*pkgGen{}
	order := slices.SortedFunc(maps.Keys(byGV), func(a, b gv) int {
		return strings.Compare(a.group+"\x00"+a.version, b.group+"\x00"+b.version)
	})
	for _, v := range order {
		base := dirName(v.group, "group") + "/" + dirName(v.version, "version")
		dir := base
		for i := 2; out[dir] != nil; i++ {
			dir = fmt.Sprintf("%s-%d", base, i)
		}
		kinds := byGV[v]
		slices.SortFunc(kinds, func(a, b kindSource) int { return strings.Compare(a.kind, b.kind) })
		pkg := name
		if pkg == "" {
			pkg = packageName(v.version)
		}
		out[dir] = &pkgGen{dir: dir, name: pkg, group: v.group, version: v.version, kinds: kinds}
	}
	return out
}

// versionKey writes a version in an error's key: "[v1]", or quoted when
// it is not plain.
func versionKey(name string) string {
	if k := keyPart(name); strings.HasPrefix(k, ".") {
		return "[" + k[1:] + "]"
	}
	return "[" + strconv.Quote(name) + "]"
}
