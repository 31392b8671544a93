package controller

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/pynenc/piceli/api/v1alpha1"
	"github.com/pynenc/piceli/internal/kube"
	"github.com/pynenc/piceli/refusal"
)

// Target names the cluster a command about Releases reaches, as every
// piceli command names one: a kubeconfig file and a context in it, never
// $KUBECONFIG, ~/.kube/config or a current-context.
type Target struct {
	Kubeconfig string
	Context    string
	AllowExec  bool // let the kubeconfig's exec credential plugin run
}

// Connect returns a client of t's cluster that knows Releases. Nothing is
// sent until the first request.
func Connect(ctx context.Context, t Target) (client.Client, error) {
	if t.Kubeconfig == "" || t.Context == "" {
		return nil, refusal.Errorf("name the cluster with --kubeconfig and --context")
	}
	kc, err := kube.Connect(ctx, kube.Options{Kubeconfig: t.Kubeconfig, Context: t.Context, AllowExec: t.AllowExec})
	if err != nil {
		return nil, refusal.New(err)
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	return client.New(kc.Config, client.Options{Scheme: scheme})
}

// StatusSchema versions the document `piceli controller status -o json`
// prints.
const StatusSchema = "piceli.controller-status/v1"

// StatusDoc is the Releases a status command found, sorted by namespace
// and name.
type StatusDoc struct {
	Schema   string          `json:"schema"` // StatusSchema
	Releases []ReleaseReport `json:"releases"`
}

// ReleaseReport is one Release: where it comes from and its status.
type ReleaseReport struct {
	Namespace string           `json:"namespace"`
	Name      string           `json:"name"`
	Source    string           `json:"source"` // the source as the spec names it
	Approve   string           `json:"approve,omitempty"`
	Policy    *v1alpha1.Policy `json:"policy,omitempty"`
	// Pin is spec.pin: the revision the Release is held at, if any.
	Pin    *v1alpha1.Pin          `json:"pin,omitempty"`
	Status v1alpha1.ReleaseStatus `json:"status"`

	generation int64 // the spec's, to tell a status written for it
}

// Statuses reads the Releases of namespace (all namespaces when empty), or
// the one named name in it.
func Statuses(ctx context.Context, c client.Client, namespace, name string) (*StatusDoc, error) {
	var list v1alpha1.ReleaseList
	if name != "" {
		var rel v1alpha1.Release
		if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &rel); err != nil {
			if client.IgnoreNotFound(err) == nil {
				return nil, refusal.Errorf("release %s/%s not found", namespace, name)
			}
			return nil, err
		}
		list.Items = []v1alpha1.Release{rel}
	} else if err := c.List(ctx, &list, client.InNamespace(namespace)); err != nil {
		return nil, err
	}
	doc := &StatusDoc{Schema: StatusSchema, Releases: []ReleaseReport{}}
	for _, rel := range list.Items {
		doc.Releases = append(doc.Releases, ReleaseReport{
			Namespace: rel.Namespace, Name: rel.Name, Source: DescribeSource(rel.Spec.Source),
			Approve: rel.Spec.Approve, Policy: rel.Spec.Policy, Pin: rel.Spec.Pin, Status: rel.Status, generation: rel.Generation,
		})
	}
	sort.Slice(doc.Releases, func(i, j int) bool {
		a, b := doc.Releases[i], doc.Releases[j]
		return a.Namespace+"/"+a.Name < b.Namespace+"/"+b.Name
	})
	return doc, nil
}

// DescribeSource is a source as its spec names it, without credentials.
func DescribeSource(s v1alpha1.Source) string {
	switch {
	case s.OCI != nil:
		return withoutUser(s.OCI.URL) + selector(":", s.OCI.Tag, " semver ", s.OCI.SemVer, "@", s.OCI.Digest)
	case s.Git != nil:
		out := withoutUser(s.Git.URL) + selector(" branch ", s.Git.Branch, " tag ", s.Git.Tag, " commit ", s.Git.Commit)
		if s.Git.Path != "" {
			out += " path " + s.Git.Path
		}
		return out
	}
	return "(no source)"
}

// selector is the first non-empty value with its prefix.
func selector(pairs ...string) string {
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] != "" {
			return fmt.Sprintf("%s%s", pairs[i], pairs[i+1])
		}
	}
	return ""
}

// withoutUser is a URL with any user and password removed.
func withoutUser(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		if at := strings.LastIndex(raw, "@"); at >= 0 && !strings.Contains(raw, "://") {
			return raw // user@host:path, an SSH user name and no password
		}
		return "(unparsable URL)"
	}
	u.User = nil
	return u.String()
}

// WaitFor polls the Release key every second until its status's State is
// state and its ObservedGeneration has caught up with its spec, and
// returns its report. A Release that reaches Stalled while another state
// is awaited ends the wait with the Stalled condition's message, and ctx
// bounds it.
func WaitFor(ctx context.Context, c client.Client, key client.ObjectKey, state string) (*ReleaseReport, error) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		doc, err := Statuses(ctx, c, key.Namespace, key.Name)
		if err != nil {
			return nil, err
		}
		r := doc.Releases[0]
		if r.Status.State == state && r.Status.ObservedGeneration >= r.generation {
			return &r, nil
		}
		if r.Status.State == v1alpha1.StateStalled && state != v1alpha1.StateStalled {
			return nil, fmt.Errorf("release %s is Stalled: %s", key, stalledMessage(r.Status))
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("release %s is %s, not %s: %w", key, r.Status.State, state, context.Cause(ctx))
		case <-tick.C:
		}
	}
}

func stalledMessage(st v1alpha1.ReleaseStatus) string {
	for _, c := range st.Conditions {
		if c.Type == v1alpha1.ConditionStalled {
			return c.Message
		}
	}
	return ""
}
