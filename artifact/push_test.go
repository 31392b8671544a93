package artifact_test

import (
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/pynenc/piceli/artifact"
	"github.com/pynenc/piceli/internal/artifacttest"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// sent lists the blobs a push sent, by repository@digest.
func sent(rec *artifact.Receipt) map[string]int64 {
	out := map[string]int64{}
	for _, b := range rec.Blobs {
		if b.Action == "sent" {
			out[b.Repository+"@"+b.Digest] = b.BytesSent
		}
	}
	return out
}

// Acceptance 4: a push to a real registry on loopback sends the shared
// base layer once (the other repositories mount it), and a second push
// sends no layer at all. The registry asks for a password, which reaches
// neither the receipt nor the output.
func TestPushToLoopbackRegistrySendsOnlyWhatItLacks(t *testing.T) {
	dir := t.TempDir()
	hash, err := bcrypt.GenerateFromPassword([]byte(canary), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	htpasswd := filepath.Join(dir, "htpasswd")
	if err := os.WriteFile(htpasswd, []byte("piceli:"+string(hash)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	reg := artifacttest.StartRegistry(t, htpasswd)
	_, res := pinAndBuild(t)
	var log strings.Builder
	opts := artifact.ImportOptions{Target: artifact.TargetRegistry, Log: &log,
		Registry: artifact.RegistryOptions{Address: reg.Addr, Username: "piceli", Password: canary}}

	first, err := artifact.Import(t.Context(), res.Layout, opts)
	if err != nil {
		t.Fatalf("first push: %v", err)
	}
	base := res.Images[0].Layers[0]
	baseSent := 0
	for key := range sent(first) {
		if strings.HasSuffix(key, "@"+base) {
			baseSent++
		}
	}
	if baseSent != 1 {
		t.Errorf("first push sent the base layer %d times, want once: blobs %+v", baseSent, first.Blobs)
	}
	if blobs := reg.Blobs(t); blobs != int(len(files(t, filepath.Join(res.Layout, "blobs")))) {
		t.Errorf("registry stores %d blobs, want the layout's %d", blobs, len(files(t, filepath.Join(res.Layout, "blobs"))))
	}
	for _, im := range first.Images {
		if im.Reference != reg.Addr+"/services/"+im.Name+"@"+im.Digest {
			t.Errorf("receipt reference %s", im.Reference)
		}
	}

	second, err := artifact.Import(t.Context(), res.Layout, opts)
	if err != nil {
		t.Fatalf("second push: %v", err)
	}
	if s := sent(second); len(s) != 0 {
		t.Errorf("second push sent blobs again: %v", s)
	}
	if second.BytesSent >= res.Images[0].Size/10 {
		t.Errorf("second push sent %d bytes; want only manifests' worth", second.BytesSent)
	}
	for _, rec := range []*artifact.Receipt{first, second} {
		assertNoCanary(t, "the receipt", receiptText(t, rec))
		if !rec.Target.Auth {
			t.Errorf("receipt does not say credentials were used")
		}
	}
	assertNoCanary(t, "the import's log", log.String())
}

// Acceptance 4: a push through a port-forward to the pod behind
// service/registry:5000 reaches the loopback registry (kwok forwards the
// pod's port there); the node it goes through is loopback only.
func TestPushThroughSandboxPortForward(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	reg := artifacttest.StartRegistry(t, "")
	_, res := pinAndBuild(t)
	ns := sb.Namespace(t)
	pod := sb.RunPod(t, ns, "registry")
	node, err := sb.Clientset.CoreV1().Nodes().Get(t.Context(), pod.Spec.NodeName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range node.Status.Addresses {
		if ip, err := netip.ParseAddr(a.Address); err != nil || !ip.IsLoopback() {
			t.Fatalf("Node/%s has address %s; refusing to forward off loopback", node.Name, a.Address)
		}
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "registry", Namespace: ns}, Spec: corev1.ServiceSpec{
		Selector: map[string]string{"app": "registry"},
		Ports:    []corev1.ServicePort{{Port: 5000, TargetPort: intstr.FromInt32(8080)}},
	}}
	if _, err := sb.Clientset.CoreV1().Services(ns).Create(t.Context(), svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	sb.ForwardPod(t, ns, pod.Name, 8080, netip.MustParseAddrPort(reg.Addr))

	opts := artifact.ImportOptions{Target: artifact.TargetRegistry, Images: []string{"catalog"}, Registry: artifact.RegistryOptions{
		ViaForward: "service/registry:5000", Kubeconfig: sb.Kubeconfig, Context: sb.Context, Namespace: ns}}
	rec, err := artifact.Import(t.Context(), res.Layout, opts)
	if err != nil {
		t.Fatalf("push via forward: %v", err)
	}
	if len(sent(rec)) != 3 || reg.Blobs(t) != 4 {
		t.Errorf("push via forward sent %v and the registry stores %d blobs; want catalog's config and two layers sent, and its manifest stored too", sent(rec), reg.Blobs(t))
	}
	want := fmt.Sprintf("registry.%s.svc:5000/services/catalog@%s", ns, byName(res)["catalog"].Digest)
	if rec.Images[0].Reference != want || rec.Target.ViaForward != "service/registry:5000" || !strings.HasPrefix(rec.Target.Address, "127.0.0.1:") {
		t.Errorf("receipt images %+v target %+v; want %s through a 127.0.0.1 forward", rec.Images, rec.Target, want)
	}
	again, err := artifact.Import(t.Context(), res.Layout, opts)
	if err != nil {
		t.Fatalf("second push via forward: %v", err)
	}
	if s := sent(again); len(s) != 0 {
		t.Errorf("second push via forward sent %v again", s)
	}
}
