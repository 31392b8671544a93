package plan

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/digest"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/object"
)

// Settled is a state the release's records say an object was left in: a
// write of the manifest whose digest is Desired returned this UID and
// resourceVersion, or a plan found that applying it to that version would
// change nothing. Server-side apply is idempotent, so applying that
// manifest again to that very version, with the same field manager,
// changes nothing either.
//
// Fields, when recorded, is the Digester.Fields of the object as that
// write or plan saw it: the values at every path the manifest sets. An
// object written since only where the manifest sets nothing (a controller
// writing its status, another manager's own annotation) still holds them,
// so applying the manifest again changes nothing either: the object is
// settled at any resourceVersion while those values digest the same.
type Settled struct {
	UID, ResourceVersion, Desired string
	Fields                        string
}

// SettledBy returns what the run that applied plan p left each object as:
// for a step it wrote (an applied outcome, or a step settled as applied),
// the UID, resourceVersion and Fields digest the write returned or the
// cluster showed;
// for a step p found a no-op, what p observed. Deletes and steps without a
// record are left out. run is that run's journal, every session of it.
func SettledBy(p *Plan, run []journal.Record) map[object.Ref]Settled {
	out := map[object.Ref]Settled{}
	if p == nil {
		return out
	}
	for _, s := range p.Steps {
		if s.Action == NoOp && s.Observed.UID != "" {
			out[s.Ref] = Settled{UID: s.Observed.UID, ResourceVersion: s.Observed.ResourceVersion, Desired: s.Desired, Fields: s.Observed.Fields}
		}
	}
	for _, r := range run {
		written := (r.Type == journal.Outcome || r.Type == journal.Settled) && r.Result == journal.ResultApplied
		if !written || r.Step < 0 || r.Step >= len(p.Steps) || r.UID == "" || r.ResourceVersion == "" {
			continue
		}
		if s := p.Steps[r.Step]; s.Action != Delete {
			out[s.Ref] = Settled{UID: r.UID, ResourceVersion: r.ResourceVersion, Desired: s.Desired, Fields: r.Fields}
		}
	}
	return out
}

// unchangedSince reports whether live is still the object the release's
// records say it left (Options.Settled) with the desired manifest s now
// has: nobody has written it since, or nobody has written what the
// manifest sets (Settled.Fields), so applying s again is a no-op and needs
// no dry-run to say so.
func (m *maker) unchangedSince(i int, s Step, live *unstructured.Unstructured) bool {
	k, ok := m.settled(s.Ref)
	if !ok || k.Desired != s.Desired || k.UID != string(live.GetUID()) || live.GetLabels()[object.ReleaseLabel] != m.in.Release.Name {
		return false
	}
	if k.ResourceVersion == live.GetResourceVersion() {
		return true
	}
	return k.Fields != "" && digest.Equal(k.Fields, m.dig.Fields(m.dig.sealedView(m.in.Objects[i].Object), live))
}

// unchanged plans an object the release left as it is: a no-op, as every
// dry-run of it would say (see Settled).
func (m *maker) unchanged(i int, s Step, live *unstructured.Unstructured) Step {
	s.Action, s.Observed = NoOp, m.observe(m.in.Objects[i].Object, live)
	return s
}
