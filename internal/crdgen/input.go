package crdgen

import (
	"errors"
	"fmt"
	"maps"
	"slices"
)

// Document is one CustomResourceDefinition to generate from.
type Document struct {
	// Origin says where it came from ("crds.yaml:12", "cluster
	// CustomResourceDefinition/x"), for errors.
	Origin string
	// Object is the CRD as decoded YAML or JSON.
	Object map[string]any
}

// Input is what Generate turns into packages.
type Input struct {
	// Documents are the CRDs, in any order: the output does not depend on
	// it. A kind defined twice is an error.
	Documents []Document
	// Package is the Go package name of every generated package; empty
	// names each after its version ("v1"), as k8s.io/api does.
	Package string
}

// Output is the generated packages.
type Output struct {
	// Files maps slash-separated paths, GROUP/VERSION/FILE.go, to their
	// gofmt-clean content.
	Files map[string][]byte
	// Packages are the packages written, sorted by directory.
	Packages []Package
}

// Package is one generated Go package: one API group and version.
type Package struct {
	Dir     string `json:"dir"`     // slash-separated, relative to the output directory
	Name    string `json:"name"`    // the Go package name
	Group   string `json:"group"`   // the API group
	Version string `json:"version"` // the API version
	Kinds   []Kind `json:"kinds"`   // sorted by kind
}

// Kind is one kind of a generated package.
type Kind struct {
	Kind        string `json:"kind"`        // the kind, as the CRD names it
	Type        string `json:"type"`        // the Go type
	Constructor string `json:"constructor"` // the function that sets apiVersion and kind
	Namespaced  bool   `json:"namespaced"`  // whether objects of the kind live in a namespace
	CRD         string `json:"crd"`         // the CustomResourceDefinition's name
	Digest      string `json:"digest"`      // sha256:HEX of the version's schema, canonical JSON
}

// Error is a CRD the generator cannot turn into Go: Origin names the
// document, Key the place in it ("spec.versions[v1].schema.openAPIV3Schema.properties.spec").
type Error struct {
	Origin string
	Key    string
	Err    error
}

// Error says "ORIGIN: KEY: what is wrong".
func (e *Error) Error() string {
	if e.Key == "" {
		return fmt.Sprintf("%s: %v", e.Origin, e.Err)
	}
	return fmt.Sprintf("%s: %s: %v", e.Origin, e.Key, e.Err)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Generate writes one Go package per API group and served version of the
// CRDs: a struct per kind embedding metav1.TypeMeta and ObjectMeta, its
// nested types, typed string enums with constants, a constructor setting
// apiVersion and kind, and the DeepCopy methods that make the kind a
// runtime.Object (so app.Objects takes it). Schema defaults are never
// written into values; they appear in doc comments only. Versions that are
// not served are skipped. Every error is an *Error naming the document and
// key; all of them are joined.
func Generate(in Input) (*Output, error) {
	if len(in.Documents) == 0 {
		return nil, errors.New("no CustomResourceDefinition to generate from")
	}
	if in.Package != "" && !validPackage(in.Package) {
		return nil, fmt.Errorf("package name %q: want a lower-case Go identifier (letters and digits, starting with a letter) that is no keyword", in.Package)
	}
	pkgs, err := collect(in)
	if err != nil {
		return nil, err
	}
	out := &Output{Files: map[string][]byte{}}
	var errs []error
	for _, dir := range slices.Sorted(maps.Keys(pkgs)) {
		p, err := pkgs[dir].generate(out.Files)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out.Packages = append(out.Packages, p)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}
