package app

import (
	"fmt"
	"maps"
	"slices"
)

// Context is what Piceli passes to a composition: the release name, the
// target namespace, the pinned images and the values of release.toml.
// Looking up an image or value that release.toml does not declare records an
// error that App.Composition returns.
type Context struct {
	// Release is the release name ([release] name).
	Release string
	// Namespace is the target namespace ([target] namespace).
	Namespace string
	// Images maps image names to pinned references ([images]).
	Images map[string]string
	// Values holds the string values of [values].
	Values map[string]string
	// Environment is the environment of [environments] being rendered
	// (release.toml's values, images and target are already that
	// environment's); empty when the spec declares none.
	Environment string
	// Environments are the names [environments] of release.toml declares,
	// sorted; nil when it declares none. App.Environment names must be
	// among them.
	Environments []string

	errs []error
}

// NewContext returns the Context described by doc. It does not check
// doc.Schema; Main does. Tests use it to call a Build function directly.
func NewContext(doc ContextDocument) *Context {
	return &Context{
		Release:   doc.Release,
		Namespace: doc.Namespace,
		Images:    maps.Clone(doc.Images),
		Values:    maps.Clone(doc.Values),

		Environment:  doc.Environment,
		Environments: slices.Clone(doc.Environments),
	}
}

// Image returns the pinned reference of the named image. An image missing
// from [images] returns "" and records an error.
func (c *Context) Image(name string) string {
	ref, ok := c.Images[name]
	if !ok {
		c.errs = append(c.errs, fmt.Errorf("image %q is not declared in [images] of release.toml", name))
	}
	return ref
}

// Value returns the named value of [values]. A value missing from [values]
// returns "" and records an error; use LookupValue for optional values.
func (c *Context) Value(name string) string {
	v, ok := c.LookupValue(name)
	if !ok {
		c.errs = append(c.errs, fmt.Errorf("value %q is not declared in [values] of release.toml", name))
	}
	return v
}

// LookupValue returns the named value of [values] and whether it is
// declared. It records no error.
func (c *Context) LookupValue(name string) (string, bool) {
	v, ok := c.Values[name]
	return v, ok
}
