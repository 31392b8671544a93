package cli

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/pynenc/piceli/api/v1alpha1"
	"github.com/pynenc/piceli/controller"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// Bad input to controller rollback and unpin exits 2, names what is
// wrong and changes nothing: a name that is not NAMESPACE/NAME, no --to,
// a revision the Release never ran, a Release that is not pinned. A good
// rollback pins the Release (shown by controller status), and unpin
// removes the pin.
func TestControllerRollbackAndUnpinRefuseBadInputWithExit2(t *testing.T) {
	nowhere := []string{"--kubeconfig", "missing.kubeconfig", "--context", "c"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"controller", "rollback", "app", "--to", "0123456789ab"}, "is not NAMESPACE/NAME"},
		{[]string{"controller", "rollback", "ns/app/x", "--to", "0123456789ab"}, "is not NAMESPACE/NAME"},
		{[]string{"controller", "rollback", "ns/app"}, "--to REV"},
		{[]string{"controller", "unpin", "/app"}, "is not NAMESPACE/NAME"},
	} {
		res := run(t, append(tc.args, nowhere...)...)
		if res.code != ExitRefused || !strings.Contains(res.stderr, tc.want) {
			t.Errorf("piceli %s: exit %d, want 2 naming %q\n%s", strings.Join(tc.args, " "), res.code, tc.want, res.stderr)
		}
	}

	sb := sandboxtest.Cluster(t)
	ns := sb.Namespace(t)
	ctx := sandboxtest.Context(t, 2*time.Minute)
	c := crdClient(t, sb)
	ran := "test@sha256:" + strings.Repeat("ab", 32)
	rel := &v1alpha1.Release{
		ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: ns},
		Spec: v1alpha1.ReleaseSpec{
			Source:  v1alpha1.Source{OCI: &v1alpha1.OCISource{URL: "oci://127.0.0.1:1/app", Tag: "test"}},
			Approve: "sha256:" + strings.Repeat("0", 64),
		},
	}
	if err := c.Create(ctx, rel); err != nil {
		t.Fatal(err)
	}
	rel.Status = v1alpha1.ReleaseStatus{State: v1alpha1.StateReady, AppliedRevision: ran, SourceRevision: "test@sha256:" + strings.Repeat("cd", 32)}
	if err := c.Status().Update(ctx, rel); err != nil {
		t.Fatal(err)
	}
	key := types.NamespacedName{Namespace: ns, Name: "app"}
	target := []string{"--kubeconfig", sb.Kubeconfig, "--context", sb.Context}
	version := func() string {
		var cur v1alpha1.Release
		if err := c.Get(ctx, key, &cur); err != nil {
			t.Fatal(err)
		}
		return cur.ResourceVersion
	}
	before := version()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"controller", "rollback", ns + "/app", "--to", "test@sha256:" + strings.Repeat("ef", 32)}, "never ran"},
		{[]string{"controller", "rollback", ns + "/app", "--to", "cdcdcdcdcdcd"}, "never ran"},
		{[]string{"controller", "rollback", ns + "/app", "--to", "abab"}, "never ran"},
		{[]string{"controller", "rollback", ns + "/nope", "--to", "abababababab"}, "not found"},
		{[]string{"controller", "unpin", ns + "/app"}, "is not pinned"},
	} {
		res := run(t, append(tc.args, target...)...)
		if res.code != ExitRefused || !strings.Contains(res.stderr, tc.want) {
			t.Errorf("piceli %s: exit %d, want 2 naming %q\n%s", strings.Join(tc.args, " "), res.code, tc.want, res.stderr)
		}
	}
	if v := version(); v != before {
		t.Fatalf("a refused command changed the Release (resourceVersion %s → %s)", before, v)
	}

	res := mustRun(t, append([]string{"controller", "rollback", ns + "/app", "--to", "abababababab", "--reason", "bad config", "-o", "json"}, target...)...)
	var req controller.RollbackRequest
	if err := json.Unmarshal([]byte(res.stdout), &req); err != nil || req.Schema != controller.RollbackSchema || req.Revision != ran {
		t.Fatalf("rollback -o json: %v\n%s", err, res.stdout)
	}
	var cur v1alpha1.Release
	if err := c.Get(ctx, key, &cur); err != nil {
		t.Fatal(err)
	}
	if p := cur.Spec.Pin; p == nil || p.Revision != ran || p.Reason != "bad config" || p.By == "" || cur.Spec.Approve != "" {
		t.Fatalf("spec.pin %+v, spec.approve %q; want the pin and no approval", cur.Spec.Pin, cur.Spec.Approve)
	}
	res = mustRun(t, append([]string{"controller", "status", ns + "/app"}, target...)...)
	if !strings.Contains(res.stdout, "pinned:  "+ran) || !strings.Contains(res.stdout, "bad config") {
		t.Errorf("controller status does not show the pin:\n%s", res.stdout)
	}
	res = mustRun(t, append([]string{"controller", "status", ns + "/app", "-o", "json"}, target...)...)
	var doc controller.StatusDoc
	if err := json.Unmarshal([]byte(res.stdout), &doc); err != nil || len(doc.Releases) != 1 || doc.Releases[0].Pin == nil || doc.Releases[0].Pin.Revision != ran {
		t.Errorf("controller status -o json does not show the pin: %v\n%s", err, res.stdout)
	}
	res = mustRun(t, append([]string{"controller", "unpin", ns + "/app", "-o", "json"}, target...)...)
	var un controller.UnpinRequest
	if err := json.Unmarshal([]byte(res.stdout), &un); err != nil || un.Schema != controller.UnpinSchema || un.Revision != ran {
		t.Fatalf("unpin -o json: %v\n%s", err, res.stdout)
	}
	if err := c.Get(ctx, key, &cur); err != nil || cur.Spec.Pin != nil {
		t.Fatalf("after unpin: %v, spec.pin %+v", err, cur.Spec.Pin)
	}
}

// crdClient is a client of sb that knows Releases, with the Release CRD
// installed and served.
func crdClient(t *testing.T, sb *sandboxtest.Sandbox) client.Client {
	t.Helper()
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, v1alpha1.AddToScheme, apiextensionsv1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	c, err := client.New(sb.RESTConfig, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx := sandboxtest.Context(t, time.Minute)
	crd := v1alpha1.CRD()
	if err := c.Create(ctx, crd); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		var got apiextensionsv1.CustomResourceDefinition
		if c.Get(ctx, types.NamespacedName{Name: crd.Name}, &got) == nil {
			for _, cond := range got.Status.Conditions {
				if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
					return c
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the Release CRD is not established after 30s")
		}
	}
}
