package release

import (
	"context"
	"fmt"
	"strings"

	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/object"
	appstatus "github.com/pynenc/piceli/internal/status"
	"github.com/pynenc/piceli/status"
)

// StatusSchema versions the document Status returns.
const StatusSchema = "piceli.status/v1"

// Status says whether the release's app is up and how to reach it.
type Status struct {
	Schema    string `json:"schema"` // StatusSchema
	Release   string `json:"release"`
	Namespace string `json:"namespace"`
	Server    string `json:"server"`
	Context   string `json:"context"`
	// Source says which objects were looked at: those of the latest
	// revision ("revision 3"), or, before the first, the composition's
	// ("composition, not applied yet").
	Source    string           `json:"source"`
	Ready     bool             `json:"ready"` // every object current
	Summary   string           `json:"summary"`
	Objects   []status.Object  `json:"objects"`
	Services  []status.Service `json:"services"`
	Ingresses []status.Ingress `json:"ingresses"`
	// Revision is the latest revision, its checks included; nil before
	// the first.
	Revision *Revision `json:"revision,omitempty"`
	// Run is the latest run as its journal says, with the checks of a run
	// that failed on them; nil before the first.
	Run *Run `json:"run,omitempty"`
	// Access is the command that forwards the release's Services to
	// 127.0.0.1.
	Access string `json:"access"`
	// Drift is what differs between the cluster and the latest revision,
	// when StatusOptions.Drift asked; nil otherwise.
	Drift *DriftReport `json:"drift,omitempty"`
}

// StatusOptions tune Status. The zero value is valid.
type StatusOptions struct {
	// Drift also compares the latest revision's objects with the cluster
	// (Drift): server-side dry-runs, which need the rights a plan needs;
	// nothing is written.
	Drift bool
}

// Status reads the release's objects from the cluster and says whether
// each is ready, why not, and how to reach the app. The objects are those
// of the latest revision (no composition is loaded); before the first,
// the composition's. It reads one LIST per kind and namespace (labelled
// with the release; Secrets as metadata only, so no value is read), plus
// one of pods, and of claims where there are StatefulSets, per namespace
// with workloads, never a GET per object. Nothing is written.
func (r *Release) Status(ctx context.Context, opts StatusOptions) (*Status, error) {
	if err := r.checkOwner(); err != nil {
		return nil, err
	}
	st, err := r.Run(ctx, "")
	if err != nil {
		return nil, err
	}
	s, declared, source, err := r.statusObjects(ctx)
	if err != nil {
		return nil, err
	}
	defer s.client.CloseIdle()
	live, err := readLive(ctx, s.client, r.spec.Release.Name, declared)
	if err != nil {
		return nil, err
	}
	rep := appstatus.Compute(declared, live)
	out := &Status{
		Schema: StatusSchema, Release: r.Name(), Namespace: r.spec.Target.Namespace,
		Server: s.client.Server, Context: s.client.ContextName, Source: source,
		Ready: rep.Ready, Summary: rep.Summary, Objects: rep.Objects, Services: rep.Services, Ingresses: rep.Ingresses,
		Revision: st.Latest, Run: st.Run, Access: r.AccessCommand(),
	}
	if opts.Drift {
		if out.Drift, err = r.Drift(ctx, PlanOptions{}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// statusObjects connects and returns the objects status looks at, and
// where they come from.
func (r *Release) statusObjects(ctx context.Context) (*session, []appstatus.Declared, string, error) {
	rev, err := history.Latest(r.StateDir())
	if err != nil {
		return nil, nil, "", err
	}
	if rev == nil {
		return r.compositionObjects(ctx)
	}
	s := &session{r: r}
	if err := s.connect(ctx); err != nil {
		return nil, nil, "", err
	}
	var out []appstatus.Declared
	for _, o := range rev.Objects {
		out = append(out, appstatus.Declared{Ref: o.Ref, GVR: gvr(o.APIVersion, o.Resource)})
	}
	return s, out, fmt.Sprintf("revision %d", rev.Number), nil
}

// compositionObjects renders the composition and resolves each object's
// resource through discovery.
func (r *Release) compositionObjects(ctx context.Context) (*session, []appstatus.Declared, string, error) {
	s, err := r.open(ctx)
	if err != nil {
		return nil, nil, "", err
	}
	var out []appstatus.Declared
	for _, o := range s.objects {
		gvk := o.Object.GroupVersionKind()
		m, err := s.client.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			return nil, nil, "", refuse(fmt.Errorf("%s: %w", object.RefOf(o.Object), err))
		}
		out = append(out, appstatus.Declared{Ref: object.RefOf(o.Object), GVR: m.Resource})
	}
	return s, out, "composition, not applied yet", nil
}

// AccessCommand is the command that forwards the release's Services to
// 127.0.0.1: piceli access with the spec as it was given to Open, and
// its environment when it has one.
func (r *Release) AccessCommand() string {
	cmd := "piceli access --spec " + shellQuote(r.path)
	if env := r.spec.Environment; env != "" {
		cmd += " --env " + env // a DNS-1123 label: nothing to quote
	}
	return cmd
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
