package observe_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/archive"
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/observe"
)

// lens is a namespace of the sandbox holding Deployment api (one kwok
// pod whose port 8080 forwards to a loopback server and whose logs are
// logFile), an archive declaring it, and the lens connected.
type lens struct {
	sb      *sandboxtest.Sandbox
	ns      string
	cl      *observe.Cluster
	backend *sandboxtest.LoopbackServer
	archive *observe.Archive
	logFile string
}

func newLens(t *testing.T, logLines int) *lens {
	t.Helper()
	sb := sandboxtest.Cluster(t)
	assertNodesLoopback(t, sb)
	l := &lens{sb: sb, ns: sb.Namespace(t), backend: sandboxtest.LoopbackHTTP(t)}
	l.logFile = writeNumberedLog(t, logLines)
	sb.OnEveryPod(t, l.ns, sandboxtest.PodRule{Selector: map[string]string{"app": "api"}, Port: 8080, Target: l.backend.Addr, Logs: l.logFile})
	l.createDeployment(t, "api")
	cl, err := observe.Connect(t.Context(), observe.Target{Kubeconfig: sb.Kubeconfig, Context: sb.Context})
	if err != nil {
		t.Fatal(err)
	}
	l.cl = cl
	l.archive = l.archiveOf(t, object.Ref{Group: "apps", Kind: "Deployment", Namespace: l.ns, Name: "api"})
	return l
}

// assertNodesLoopback fails the test unless every node address is
// loopback: forwards and logs then reach nothing but this machine.
func assertNodesLoopback(t *testing.T, sb *sandboxtest.Sandbox) {
	t.Helper()
	nodes, err := sb.Clientset.CoreV1().Nodes().List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes.Items {
		for _, a := range n.Status.Addresses {
			if ip := net.ParseIP(a.Address); (a.Type == corev1.NodeInternalIP || a.Type == corev1.NodeExternalIP) && (ip == nil || !ip.IsLoopback()) {
				t.Fatalf("node %s has address %s; the sandbox must be loopback only", n.Name, a.Address)
			}
		}
	}
}

func (l *lens) createDeployment(t *testing.T, name string) {
	t.Helper()
	one := int32(1)
	labels := map[string]string{"app": name}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: l.ns},
		Spec: appsv1.DeploymentSpec{Replicas: &one, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "example.invalid/api:1",
					Ports: []corev1.ContainerPort{{ContainerPort: 8080}}}}}}}}
	if _, err := l.sb.Clientset.AppsV1().Deployments(l.ns).Create(t.Context(), d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	sandboxtest.Eventually(t, 2*time.Minute, "Deployment/"+l.ns+"/"+name+" available", func(ctx context.Context) (bool, error) {
		got, err := l.sb.Clientset.AppsV1().Deployments(l.ns).Get(ctx, name, metav1.GetOptions{})
		return err == nil && got.Status.AvailableReplicas == 1, err
	})
}

// archiveOf is an archive of this sandbox declaring refs.
func (l *lens) archiveOf(t *testing.T, refs ...object.Ref) *observe.Archive {
	t.Helper()
	ks, err := l.sb.Clientset.CoreV1().Namespaces().Get(t.Context(), "kube-system", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a := &observe.Archive{Schema: archive.Schema, Run: "test-run", Release: "lens", Plan: "0123abcd", Status: "finished",
		Target:     plan.Target{Server: l.cl.Server, Context: l.sb.Context, Namespace: l.ns, ClusterUID: string(ks.UID)},
		Namespaces: []string{l.ns}, Started: time.Now().UTC(), Ended: time.Now().UTC()}
	resources := map[string][2]string{"Deployment": {"apps/v1", "deployments"}, "Secret": {"v1", "secrets"}, "ConfigMap": {"v1", "configmaps"}, "Service": {"v1", "services"}}
	for _, r := range refs {
		res := resources[r.Kind]
		a.Objects = append(a.Objects, archive.Object{Ref: r, APIVersion: res[0], Resource: res[1], Action: "create", Declared: true, Digest: "d", Outcome: "applied"})
	}
	return a
}

// writeNumberedLog writes a CRI-format log of n lines ("line N") and
// returns its path; n zero writes an empty log.
func writeNumberedLog(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "container.log")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for i := range n {
		fmt.Fprintf(w, "2026-01-01T00:00:00.000000000Z stdout F line %07d\n", i)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// freePort returns a loopback port of 1024 or more that was free a moment
// ago (see sandboxtest.FreeLocalPort).
func freePort(t *testing.T) int { t.Helper(); return sandboxtest.FreeLocalPort(t) }
