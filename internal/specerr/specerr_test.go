package specerr

import (
	"errors"
	"testing"
)

type lines map[string]int

func (l lines) Line(key string) int { return l[key] }

func TestListPlacesEachProblemOnItsKeysLine(t *testing.T) {
	l := &List{File: "release.toml", Lines: lines{"release.name": 4}}
	if l.Err() != nil {
		t.Fatalf("Err() of an empty list = %v, want nil", l.Err())
	}
	l.Add("release.name", "%q is not a name", "Shop")
	l.Add("images", "no images")
	empty := ""
	if got := l.Optional("release.state_dir", &empty, ".piceli-release"); got != ".piceli-release" {
		t.Errorf("Optional(empty) = %q, want the default", got)
	}
	want := "release.toml:4: release.name: \"Shop\" is not a name\n" +
		"release.toml: images: no images\n" +
		"release.toml: release.state_dir: must not be empty; omit it for the default \".piceli-release\""
	if err := l.Err(); err == nil || err.Error() != want {
		t.Errorf("Err() =\n%v\nwant\n%s", err, want)
	}
	var e *Error
	if !errors.As(l.Err(), &e) || e.Line != 4 || e.Key != "release.name" {
		t.Errorf("errors.As(*Error) = %+v, want the first problem", e)
	}
	whole := &Error{File: "build.lock", Msg: "not a lock file"}
	if got := whole.Error(); got != "build.lock: not a lock file" {
		t.Errorf("a whole-file problem reads %q", got)
	}
}
