package importgen

import (
	"slices"

	"github.com/dave/jennifer/jen"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// claim recognises a.PersistentVolumeClaim(name, app.Storage(...), ...).
func (g *gen) claim(obj runtime.Object) (built, bool) {
	pvc := obj.(*corev1.PersistentVolumeClaim).DeepCopy()
	name := pvc.Name
	notes, ok := g.takeMeta(&pvc.ObjectMeta, name, name, true)
	if !ok || !validSubdomain(name) {
		return built{}, false
	}
	opts, ok := claimOptions(&pvc.Spec)
	if !ok || !rest(pvc) {
		return built{}, false
	}
	h := &handle{kind: "PersistentVolumeClaim", name: name}
	return built{handle: h, code: call("PersistentVolumeClaim", func() []jen.Code {
		return append(append([]jen.Code{jen.Lit(name)}, opts...), notes...)
	})}, true
}

// claimOptions returns the ClaimOptions that say spec (storage, access
// modes unless only ReadWriteOnce, storage class) and clears it, or
// reports that they cannot.
func claimOptions(spec *corev1.PersistentVolumeClaimSpec) ([]jen.Code, bool) {
	storage, ok := spec.Resources.Requests[corev1.ResourceStorage]
	if !ok || len(spec.Resources.Requests) != 1 || len(spec.Resources.Limits) > 0 || len(spec.AccessModes) == 0 {
		return nil, false
	}
	opts := []jen.Code{appCall("Storage", jen.Lit(storage.String()))}
	if !slices.Equal(spec.AccessModes, []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}) {
		var modes []jen.Code
		for _, m := range spec.AccessModes {
			modes = append(modes, jen.Lit(string(m)))
		}
		opts = append(opts, appCall("AccessModes", modes...))
	}
	if spec.StorageClassName != nil {
		opts = append(opts, appCall("StorageClass", jen.Lit(*spec.StorageClassName)))
	}
	spec.Resources, spec.AccessModes, spec.StorageClassName = corev1.VolumeResourceRequirements{}, nil, nil
	return opts, rest(spec)
}
