package spec

import (
	"slices"
	"strings"
	"testing"
)

// Every wrong type is reported, not only the first the decoder meets: two
// in one table and one in each of two tables of an array.
func TestParseReportsEveryTypeError(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	src := strings.NewReplacer(
		`context = "kind-hello"`, `context = 3`,
		`namespace = "hello"`, `namespace = true`,
		`name = "home page"`, `name = 1.5`,
		`port = 80 }`, `port = "80" }`,
	).Replace(good)
	_, err := Parse("release.toml", []byte(src))
	want := []string{
		`release.toml:3: target.context: wrong type: want string, have integer`,
		`release.toml:4: target.namespace: wrong type: want string, have boolean`,
		`release.toml:17: checks[0].name: wrong type: want string, have float`,
		`release.toml:22: checks[1].tcp.port: wrong type: want integer, have string`,
	}
	if err == nil {
		t.Fatalf("Parse() = nil error, want %d type errors", len(want))
	}
	if got := strings.Split(err.Error(), "\n"); !slices.Equal(got, want) {
		t.Errorf("Parse() error =\n%v\nwant\n%s", err, strings.Join(want, "\n"))
	}
}
