package app

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestContext(t *testing.T) {
	tests := []struct {
		name      string
		lookup    func(c *Context) string
		want      string
		wantError bool
	}{
		{name: "a declared image returns its pinned reference", lookup: func(c *Context) string { return c.Image("web") }, want: testContext().Images["web"]},
		{name: "an undeclared image returns empty and records an error", lookup: func(c *Context) string { return c.Image("nope") }, wantError: true},
		{name: "a declared value is returned", lookup: func(c *Context) string { return c.Value("level") }, want: "debug"},
		{name: "an undeclared value records an error", lookup: func(c *Context) string { return c.Value("nope") }, wantError: true},
		{name: "an optional value lookup records nothing", lookup: func(c *Context) string { v, _ := c.LookupValue("nope"); return v }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := testContext()
			if diff := cmp.Diff(tt.want, tt.lookup(c)); diff != "" {
				t.Errorf("lookup (-want +got):\n%s", diff)
			}
			if got := len(c.errs) > 0; got != tt.wantError {
				t.Errorf("recorded errors = %v, want an error: %v", c.errs, tt.wantError)
			}
		})
	}
}

func TestNewContextCopiesMaps(t *testing.T) {
	doc := ContextDocument{Release: "r", Namespace: "n", Images: map[string]string{"a": "1"}}
	c := NewContext(doc)
	doc.Images["a"] = "2"
	if got := c.Image("a"); got != "1" {
		t.Errorf("Image(a) = %q after the document changed, want %q", got, "1")
	}
	if c.Release != "r" || c.Namespace != "n" {
		t.Errorf("NewContext() = %+v, want release r and namespace n", c)
	}
}

func TestCompositionAccessors(t *testing.T) {
	a := New("demo")
	ctx := testContext()
	deploymentWithEverything(a, ctx)
	c, err := a.Composition(ctx)
	if err != nil {
		t.Fatal(err)
	}
	doc := c.Document()
	if diff := cmp.Diff(doc.Objects, c.Objects()); diff != "" {
		t.Errorf("Objects() (-Document +got):\n%s", diff)
	}
	if diff := cmp.Diff(doc.Components, c.Components()); diff != "" {
		t.Errorf("Components() (-Document +got):\n%s", diff)
	}
	if diff := cmp.Diff(doc.Secrets, c.Secrets()); diff != "" {
		t.Errorf("Secrets() (-Document +got):\n%s", diff)
	}
	data, err := c.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeDocument(data); err != nil {
		t.Errorf("DecodeDocument(MarshalJSON()) error = %v", err)
	}
	if a.Name() != "demo" {
		t.Errorf("Name() = %q, want demo", a.Name())
	}
}

// A composition reads the environment it renders from its context.
func TestNewContextCarriesTheEnvironment(t *testing.T) {
	ctx := NewContext(ContextDocument{Release: "shop", Namespace: "shop-prod", Environment: "prod"})
	if ctx.Environment != "prod" {
		t.Errorf("NewContext(environment prod).Environment = %q, want prod", ctx.Environment)
	}
}
