package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v13/controller"
)

// The sandbox's storage: one default StorageClass whose claims the agent
// binds to hostPath volumes in a directory of the sandbox.
const (
	// StorageClassName is the sandbox's default StorageClass: a claim that
	// names no class gets it.
	StorageClassName = "piceli-local"
	// ProvisionerName is the provisioner of StorageClassName: the agent.
	ProvisionerName = "piceli.dev/hostpath"

	defaultClassAnnotation = "storageclass.kubernetes.io/is-default-class"
)

// storageClass is the sandbox's default class. Binding is Immediate, not
// WaitForFirstConsumer: a release waits for its claims to be Bound before it
// creates the workloads that use them, and a hostPath volume with no node
// affinity suits every fake node anyway.
func storageClass() *storagev1.StorageClass {
	reclaim := corev1.PersistentVolumeReclaimDelete
	binding := storagev1.VolumeBindingImmediate
	return &storagev1.StorageClass{
		ObjectMeta: metav1.ObjectMeta{
			Name:        StorageClassName,
			Annotations: map[string]string{defaultClassAnnotation: "true"},
		},
		Provisioner:       ProvisionerName,
		ReclaimPolicy:     &reclaim,
		VolumeBindingMode: &binding,
	}
}

// ensureStorageClass creates the default class unless it exists; an
// existing one, perhaps edited by the user, is left as it is.
func ensureStorageClass(ctx context.Context, cs kubernetes.Interface) error {
	_, err := cs.StorageV1().StorageClasses().Create(ctx, storageClass(), metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create StorageClass/%s: %w", StorageClassName, err)
	}
	return nil
}

// newProvisioner builds the provisioning controller on the shared
// informers, so they are listed once; wg tracks its workers.
func newProvisioner(ctx context.Context, cs kubernetes.Interface, factory informers.SharedInformerFactory, dir string, wg *sync.WaitGroup) *controller.ProvisionController {
	ctrl := controller.NewProvisionController(ctx, cs, ProvisionerName, hostPathVolumes{dir: dir},
		controller.LeaderElection(false), // one agent per sandbox
		controller.ClaimsInformer(factory.Core().V1().PersistentVolumeClaims().Informer()),
		controller.VolumesInformer(factory.Core().V1().PersistentVolumes().Informer()),
		controller.ClassesInformer(factory.Storage().V1().StorageClasses().Informer()),
	)
	ctrl.ControllerWaitGroup(wg)
	return ctrl
}

// hostPathVolumes provisions a volume as a directory under dir, named after
// the volume and its claim, and removes the directory when the library
// deletes a released volume.
type hostPathVolumes struct{ dir string }

// Provision creates the volume's directory (world-writable, as a container
// of any user may write to it) and returns its PersistentVolume: the
// claim's size and access modes, the class's reclaim policy, no node
// affinity. The library adds the claim reference and class name.
func (h hostPathVolumes) Provision(_ context.Context, opts controller.ProvisionOptions) (*corev1.PersistentVolume, controller.ProvisioningState, error) {
	claim := opts.PVC
	if claim.Spec.Selector != nil {
		return nil, controller.ProvisioningFinished, fmt.Errorf("claim %s/%s has a selector; the sandbox's provisioner makes new volumes and cannot honour one", claim.Namespace, claim.Name)
	}
	path := filepath.Join(h.dir, opts.PVName+"_"+claim.Namespace+"_"+claim.Name)
	if err := os.MkdirAll(path, 0o755); err != nil {
		return nil, controller.ProvisioningFinished, fmt.Errorf("create volume directory: %w", err)
	}
	if err := os.Chmod(path, 0o777); err != nil {
		return nil, controller.ProvisioningFinished, fmt.Errorf("create volume directory: %w", err)
	}
	reclaim := corev1.PersistentVolumeReclaimDelete
	if opts.StorageClass.ReclaimPolicy != nil {
		reclaim = *opts.StorageClass.ReclaimPolicy
	}
	hostPathType := corev1.HostPathDirectoryOrCreate
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: opts.PVName},
		Spec: corev1.PersistentVolumeSpec{
			PersistentVolumeReclaimPolicy: reclaim,
			AccessModes:                   claim.Spec.AccessModes,
			VolumeMode:                    claim.Spec.VolumeMode,
			MountOptions:                  opts.StorageClass.MountOptions,
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: claim.Spec.Resources.Requests[corev1.ResourceStorage]},
			PersistentVolumeSource: corev1.PersistentVolumeSource{
				HostPath: &corev1.HostPathVolumeSource{Path: path, Type: &hostPathType},
			},
		},
	}, controller.ProvisioningFinished, nil
}

// Delete removes the volume's directory. A volume whose path lies outside
// dir was not made here, and is left alone.
func (h hostPathVolumes) Delete(_ context.Context, pv *corev1.PersistentVolume) error {
	if pv.Spec.HostPath == nil || !within(h.dir, pv.Spec.HostPath.Path) {
		return &controller.IgnoredError{Reason: "its path is not in " + h.dir}
	}
	if err := os.RemoveAll(pv.Spec.HostPath.Path); err != nil {
		return fmt.Errorf("remove volume directory: %w", err)
	}
	return nil
}

// within reports whether path names an entry directly in dir, as every
// volume directory Provision makes does.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && rel != ".." && !strings.ContainsRune(rel, filepath.Separator)
}
