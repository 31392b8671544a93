package plan

import (
	"fmt"

	"github.com/pynenc/piceli/object"
)

// NoWaitReason says why apply does not wait for a step's object to be
// ready. Its values are persisted in plan documents and hashed, so the
// approved hash covers which objects are waited for.
type NoWaitReason string

// The reasons not to wait for an object.
const (
	// NoWaitAnnotated: the object is annotated piceli.dev/wait: "false".
	NoWaitAnnotated NoWaitReason = "annotation"
	// NoWaitRelease: release.toml sets [release] wait = "none" and the
	// object has no piceli.dev/wait annotation.
	NoWaitRelease NoWaitReason = "release-default"
)

// Explain says what a reason means, for people.
func (r NoWaitReason) Explain() string {
	switch r {
	case NoWaitAnnotated:
		return fmt.Sprintf("annotated %s: \"false\"", object.WaitAnnotation)
	case NoWaitRelease:
		return `release.toml [release] wait = "none"`
	}
	return string(r)
}

// NotWaited returns, in step order, the objects apply writes without
// waiting for them to be ready, each with why: "Service/shop/web:
// annotated piceli.dev/wait: "false"".
func (p *Plan) NotWaited() []string {
	var out []string
	for _, s := range p.Steps {
		if s.NoWait != "" {
			out = append(out, s.Ref.String()+": "+s.NoWait.Explain())
		}
	}
	return out
}
