package sandbox

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v13/controller"
)

// What Up passes to the agent is what the agent's flags read back.
func TestAgentArgsRoundTrip(t *testing.T) {
	for name, opts := range map[string]AgentOptions{
		"every field": {Kubeconfig: "/s/kubeconfig.yaml", VolumeDir: "/s/volumes", NoLoadBalancer: true, ReadyFile: "/s/ready",
			EgressSocket: "/run/piceli/x/egress.sock", EgressStats: "/s/egress.json", NodeState: "/s/node/state.json"},
		"with a load balancer":  {Kubeconfig: "/s/kubeconfig.yaml", VolumeDir: "/s/volumes"},
		"paths that have space": {Kubeconfig: "/a b/kubeconfig.yaml", VolumeDir: "/a b/volumes", ReadyFile: "/a b/ready"},
	} {
		t.Run(name, func(t *testing.T) {
			var got AgentOptions
			fs := flag.NewFlagSet("agent", flag.ContinueOnError)
			got.RegisterFlags(fs)
			if err := fs.Parse(opts.args()); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(opts, got); diff != "" {
				t.Errorf("parse(args(%+v)) differs (-want +got):\n%s", opts, diff)
			}
		})
	}
}

// An agent without a kubeconfig or with a relative volume directory is
// refused, the message naming each flag.
func TestRunAgentRefusesBadOptions(t *testing.T) {
	err := RunAgent(t.Context(), AgentOptions{VolumeDir: "volumes", EgressSocket: "egress.sock"})
	if err == nil || !strings.Contains(err.Error(), "--kubeconfig") || !strings.Contains(err.Error(), `--volume-dir "volumes"`) ||
		!strings.Contains(err.Error(), `--egress-socket "egress.sock"`) {
		t.Fatalf("RunAgent(no kubeconfig, relative volume dir and socket) = %v; want the three flags named", err)
	}
}

func provisionOptions(claimName string) controller.ProvisionOptions {
	reclaim := corev1.PersistentVolumeReclaimRetain
	return controller.ProvisionOptions{
		PVName:       "pvc-1234",
		StorageClass: &storagev1.StorageClass{ReclaimPolicy: &reclaim, MountOptions: []string{"noatime"}},
		PVC: &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: claimName},
			Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				VolumeMode:  new(corev1.PersistentVolumeFilesystem),
				Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceStorage: resource.MustParse("5Gi"),
				}},
			},
		},
	}
}

// Provision makes a world-writable directory named after the volume and its
// claim and a volume that matches the claim; Delete removes the directory.
func TestHostPathProvisionThenDelete(t *testing.T) {
	dir := t.TempDir()
	h := hostPathVolumes{dir: dir}
	pv, state, err := h.Provision(t.Context(), provisionOptions("data-db-0"))
	if err != nil || state != controller.ProvisioningFinished {
		t.Fatalf("Provision = %v, %v; want a volume, finished", state, err)
	}
	path := filepath.Join(dir, "pvc-1234_shop_data-db-0")
	want := corev1.PersistentVolumeSpec{
		PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
		AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		VolumeMode:                    new(corev1.PersistentVolumeFilesystem),
		MountOptions:                  []string{"noatime"},
		Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("5Gi")},
		PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{
			Path: path, Type: new(corev1.HostPathDirectoryOrCreate),
		}},
	}
	if diff := cmp.Diff(want, pv.Spec); pv.Name != "pvc-1234" || diff != "" {
		t.Errorf("Provision returned volume %s (-want +got spec):\n%s", pv.Name, diff)
	}
	info, err := os.Stat(path)
	if err != nil || !info.IsDir() || info.Mode().Perm() != 0o777 {
		t.Fatalf("volume directory %s: %v, %v; want a directory with mode 0777", path, info, err)
	}
	if err := os.WriteFile(filepath.Join(path, "PG_VERSION"), []byte("18\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := h.Delete(t.Context(), pv); err != nil {
		t.Fatalf("Delete = %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("volume directory after Delete: %v; want it gone", err)
	}
}

// A claim with a selector cannot be served by a new volume and is refused.
func TestHostPathRefusesSelector(t *testing.T) {
	opts := provisionOptions("picky")
	opts.PVC.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"disk": "ssd"}}
	_, _, err := hostPathVolumes{dir: t.TempDir()}.Provision(t.Context(), opts)
	if err == nil || !strings.Contains(err.Error(), "shop/picky has a selector") {
		t.Fatalf("Provision(claim with a selector) = %v; want a refusal naming the claim", err)
	}
}

// Delete leaves alone a volume whose path is not a directory it made.
func TestHostPathDeleteIgnoresForeignPaths(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	h := hostPathVolumes{dir: dir}
	for name, path := range map[string]string{
		"another directory":   other,
		"the volume dir":      dir,
		"a path that escapes": filepath.Join(dir, "..", filepath.Base(other)),
		"a nested path":       filepath.Join(dir, "a", "b"),
	} {
		t.Run(name, func(t *testing.T) {
			pv := &corev1.PersistentVolume{Spec: corev1.PersistentVolumeSpec{PersistentVolumeSource: corev1.PersistentVolumeSource{
				HostPath: &corev1.HostPathVolumeSource{Path: path},
			}}}
			var ignored *controller.IgnoredError
			if err := h.Delete(t.Context(), pv); !errors.As(err, &ignored) {
				t.Fatalf("Delete(%s) = %v; want IgnoredError", path, err)
			}
		})
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("%s after Delete: %v", other, err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("%s after Delete: %v", dir, err)
	}
}

func TestWantedIngress(t *testing.T) {
	vip := corev1.LoadBalancerIPModeVIP
	loopback := []corev1.LoadBalancerIngress{{IP: "127.0.0.1", IPMode: &vip}}
	tests := map[string]struct {
		spec   corev1.ServiceSpec
		want   []corev1.LoadBalancerIngress
		manage bool
	}{
		"a LoadBalancer Service gets 127.0.0.1":       {spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer}, want: loopback, manage: true},
		"a ClusterIP Service gets no address":         {spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP}, manage: true},
		"a NodePort Service gets no address":          {spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort}, manage: true},
		"a Service of another load balancer is alone": {spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, LoadBalancerClass: new("example.com/lb")}},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			got, manage := wantedIngress(&corev1.Service{Spec: tt.spec})
			if diff := cmp.Diff(tt.want, got); diff != "" || manage != tt.manage {
				t.Errorf("wantedIngress(%+v) = %v, %t; want %v, %t", tt.spec, got, manage, tt.want, tt.manage)
			}
		})
	}
}

// Fields the API server defaults do not count as a difference; another
// address does.
func TestSameIngress(t *testing.T) {
	proxy := corev1.LoadBalancerIPModeProxy
	want, _ := wantedIngress(&corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer}})
	if !sameIngress([]corev1.LoadBalancerIngress{{IP: "127.0.0.1", IPMode: &proxy}}, want) {
		t.Errorf("sameIngress: another ipMode made 127.0.0.1 differ")
	}
	for name, got := range map[string][]corev1.LoadBalancerIngress{
		"none":          nil,
		"another ip":    {{IP: "10.0.0.1"}},
		"a hostname":    {{IP: "127.0.0.1", Hostname: "lb.example"}},
		"two addresses": {{IP: "127.0.0.1"}, {IP: "::1"}},
	} {
		if sameIngress(got, want) {
			t.Errorf("sameIngress(%s %v, %v) = true", name, got, want)
		}
	}
}
