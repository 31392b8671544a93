package spec

import (
	"slices"
	"strings"
	"testing"
)

// Every wrong type is reported, not only the first the decoder meets: two
// in one table, an element of an array and one in each of two tables of an
// array.
func TestParseReportsEveryTypeError(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	src := strings.NewReplacer(
		`context = "kind-hello"`, `context = 3`,
		`namespace = "hello"`, `namespace = true`+"\nnamespaces = [\"a\", 7]",
		`name = "home page"`, `name = 1.5`,
		`port = 80 }`, `port = "80" }`,
	).Replace(good)
	_, err := Parse("release.toml", []byte(src))
	want := []string{
		`release.toml:3: target.context: wrong type: want string, have integer`,
		`release.toml:4: target.namespace: wrong type: want string, have boolean`,
		`release.toml:5: target.namespaces[1]: wrong type: want string, have integer`,
		`release.toml:18: checks[0].name: wrong type: want string, have float`,
		`release.toml:23: checks[1].tcp.port: wrong type: want integer, have string`,
	}
	if err == nil {
		t.Fatalf("Parse() = nil error, want %d type errors", len(want))
	}
	if got := strings.Split(err.Error(), "\n"); !slices.Equal(got, want) {
		t.Errorf("Parse() error =\n%v\nwant\n%s", err, strings.Join(want, "\n"))
	}
}

func TestParseNamespacesAndPinning(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	src := strings.Replace(good, `namespace = "hello"`, `namespace = "hello"`+"\nnamespaces = [\"jobs\", \"hello\", \"batch\"]", 1)
	src = strings.Replace(src, `name = "hello"`, `name = "hello"`+"\nrequire_pinned_images = true", 1)
	s, err := Parse("release.toml", []byte(src))
	if err != nil {
		t.Fatalf("Parse() error: %v", err)
	}
	if want := []string{"batch", "jobs"}; !slices.Equal(s.Target.Namespaces, want) {
		t.Errorf("Target.Namespaces = %q, want %q (sorted, the target namespace left out)", s.Target.Namespaces, want)
	}
	if !s.Release.RequirePinnedImages {
		t.Errorf("Release.RequirePinnedImages = false, want true")
	}
}
