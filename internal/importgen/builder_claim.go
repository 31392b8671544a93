package importgen

import (
	"fmt"
	"slices"

	"github.com/dave/jennifer/jen"
	corev1 "k8s.io/api/core/v1"
)

// claim recognises a.PersistentVolumeClaim(name, app.Storage(...), ...);
// what the claim options do not say is left for an Edit.
func (g *gen) claim(d *decl) (built, string) {
	orig := d.typed.(*corev1.PersistentVolumeClaim)
	left := orig.DeepCopy()
	name := left.Name
	var o options
	if !validSubdomain(name) {
		return built{}, fmt.Sprintf("its name %q is not a DNS-1123 subdomain", name)
	}
	storage, ok := claimStorage(&left.Spec)
	if !ok {
		return built{}, "it has no storage request or no access modes"
	}
	o.add(storage...)
	if why := g.takeMeta(&left.ObjectMeta, name, &o, metaRules{labels: true, annotations: true}); why != "" {
		return built{}, why
	}
	if why := g.tail(&o, "PersistentVolumeClaim", d, orig, left, nil); why != "" {
		return built{}, why
	}
	h := &handle{kind: "PersistentVolumeClaim", name: name}
	return o.builtCall("PersistentVolumeClaim", h, lit(jen.Lit(name))), ""
}

// claimStorage returns the ClaimOptions that say a claim's storage
// request, access modes (unless only ReadWriteOnce, the default) and
// storage class, clearing them; other requests, limits and fields stay.
func claimStorage(spec *corev1.PersistentVolumeClaimSpec) ([]jen.Code, bool) {
	storage, ok := spec.Resources.Requests[corev1.ResourceStorage]
	if !ok || len(spec.Resources.Requests) != 1 || len(spec.AccessModes) == 0 {
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
	spec.Resources.Requests, spec.AccessModes, spec.StorageClassName = nil, nil, nil
	return opts, true
}
