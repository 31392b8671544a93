package sandbox_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/sandbox"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// A StatefulSet of two replicas with a claim template gets two claims of
// the default class, bound to volumes in the sandbox's volume directory, and
// becomes ready; deleting one claim deletes its volume and directory and
// leaves the other.
func TestStatefulSetClaimsBindAndDeletedClaimIsRemoved(t *testing.T) {
	sb := agentSandbox(t)
	ns := sb.Namespace(t)
	volumes := layoutOf(t, sb).VolumeDir()
	sets := sb.Clientset.AppsV1().StatefulSets(ns)
	if _, err := sets.Create(t.Context(), statefulSetWithClaims("db", 2), metav1.CreateOptions{}); err != nil {
		t.Fatalf("create StatefulSet/%s/db: %v", ns, err)
	}
	sandboxtest.Eventually(t, 90*time.Second, "StatefulSet/"+ns+"/db with 2 ready replicas", func(ctx context.Context) (bool, error) {
		s, err := sets.Get(ctx, "db", metav1.GetOptions{})
		return err == nil && s.Status.ReadyReplicas == 2, err
	})
	dirs := map[string]string{}
	for _, claim := range []string{"data-db-0", "data-db-1"} {
		dirs[claim] = assertProvisioned(t, sb, ns, claim, volumes)
	}

	scaleStatefulSet(t, sb, ns, "db", 1)
	pv1 := boundVolume(t, sb, ns, "data-db-1")
	if err := os.WriteFile(filepath.Join(dirs["data-db-1"], "PG_VERSION"), []byte("18\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := sb.Clientset.CoreV1().PersistentVolumeClaims(ns).Delete(t.Context(), "data-db-1", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete PersistentVolumeClaim/%s/data-db-1: %v", ns, err)
	}
	sandboxtest.Eventually(t, time.Minute, "PersistentVolume/"+pv1+" and its directory removed", func(ctx context.Context) (bool, error) {
		_, err := sb.Clientset.CoreV1().PersistentVolumes().Get(ctx, pv1, metav1.GetOptions{})
		_, statErr := os.Stat(dirs["data-db-1"])
		return apierrors.IsNotFound(err) && errors.Is(statErr, fs.ErrNotExist), nil
	})
	if _, err := os.Stat(dirs["data-db-0"]); err != nil {
		t.Errorf("directory of the kept claim data-db-0: %v", err)
	}
	assertProvisioned(t, sb, ns, "data-db-0", volumes)
}

// assertProvisioned checks that ns/claim is Bound, of the default class, to
// a volume of the sandbox's provisioner whose directory exists in volumes;
// it returns that directory.
func assertProvisioned(t *testing.T, sb *sandboxtest.Sandbox, ns, claim, volumes string) string {
	t.Helper()
	c, err := sb.Clientset.CoreV1().PersistentVolumeClaims(ns).Get(t.Context(), claim, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get PersistentVolumeClaim/%s/%s: %v", ns, claim, err)
	}
	if c.Status.Phase != corev1.ClaimBound || c.Spec.StorageClassName == nil || *c.Spec.StorageClassName != sandbox.StorageClassName {
		t.Fatalf("PersistentVolumeClaim/%s/%s: phase %s, class %v; want Bound, class %s", ns, claim, c.Status.Phase, c.Spec.StorageClassName, sandbox.StorageClassName)
	}
	pv, err := sb.Clientset.CoreV1().PersistentVolumes().Get(t.Context(), c.Spec.VolumeName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get PersistentVolume/%s: %v", c.Spec.VolumeName, err)
	}
	if by := pv.Annotations["pv.kubernetes.io/provisioned-by"]; by != sandbox.ProvisionerName || pv.Spec.HostPath == nil {
		t.Fatalf("PersistentVolume/%s provisioned by %q, hostPath %v; want %s and a hostPath", pv.Name, by, pv.Spec.HostPath, sandbox.ProvisionerName)
	}
	dir := pv.Spec.HostPath.Path
	if filepath.Dir(dir) != volumes {
		t.Errorf("PersistentVolume/%s lives at %s, not in the sandbox's %s", pv.Name, dir, volumes)
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		t.Errorf("directory of PersistentVolume/%s: %v", pv.Name, err)
	}
	return dir
}

// boundVolume is the name of the volume ns/claim is bound to.
func boundVolume(t *testing.T, sb *sandboxtest.Sandbox, ns, claim string) string {
	t.Helper()
	c, err := sb.Clientset.CoreV1().PersistentVolumeClaims(ns).Get(t.Context(), claim, metav1.GetOptions{})
	if err != nil || c.Spec.VolumeName == "" {
		t.Fatalf("PersistentVolumeClaim/%s/%s: %v, volume %q; want it bound", ns, claim, err, c.Spec.VolumeName)
	}
	return c.Spec.VolumeName
}

// scaleStatefulSet sets the replicas and waits until the pods beyond them
// are gone, so their claims are no longer in use.
func scaleStatefulSet(t *testing.T, sb *sandboxtest.Sandbox, ns, name string, replicas int32) {
	t.Helper()
	sets := sb.Clientset.AppsV1().StatefulSets(ns)
	scale, err := sets.GetScale(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	scale.Spec.Replicas = replicas
	if _, err := sets.UpdateScale(t.Context(), name, scale, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("scale StatefulSet/%s/%s to %d: %v", ns, name, replicas, err)
	}
	sandboxtest.Eventually(t, time.Minute, "StatefulSet/"+ns+"/"+name+" scaled down", func(ctx context.Context) (bool, error) {
		pods, err := sb.Clientset.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=" + name})
		return err == nil && len(pods.Items) == int(replicas), err
	})
}

// statefulSetWithClaims is a StatefulSet of fake pods, each with a 1Gi
// claim "data" of the default class.
func statefulSetWithClaims(name string, replicas int32) *appsv1.StatefulSet {
	labels := map[string]string{"app": name}
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.StatefulSetSpec{
			Replicas:    &replicas,
			ServiceName: name,
			Selector:    &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: name, Image: "example.invalid/db:1",
					VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/var/lib/data"}},
				}}},
			},
			VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{
				ObjectMeta: metav1.ObjectMeta{Name: "data"},
				Spec: corev1.PersistentVolumeClaimSpec{
					AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{
						corev1.ResourceStorage: resource.MustParse("1Gi"),
					}},
				},
			}},
		},
	}
}
