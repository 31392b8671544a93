package app

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Claim is a handle to a declared PersistentVolumeClaim; mount it with
// MountClaim.
type Claim struct {
	name string
	bad  string // what is wrong with a ClaimRef's name
}

// Name returns the claim's name.
func (c *Claim) Name() string { return c.name }

// Kind returns "PersistentVolumeClaim".
func (c *Claim) Kind() string { return "PersistentVolumeClaim" }

// claimSpec is what ClaimOptions set.
type claimSpec struct {
	common
	storage      *resource.Quantity
	accessModes  []corev1.PersistentVolumeAccessMode
	storageClass *string
	errs         []string
}

// claimOption adapts a function to ClaimOption.
type claimOption func(*claimSpec)

func (o claimOption) applyClaim(c *claimSpec) { o(c) }

func newClaimSpec(opts []ClaimOption) claimSpec {
	var c claimSpec
	for _, o := range opts {
		if o != nil {
			o.applyClaim(&c)
		}
	}
	if c.storage == nil {
		c.errs = append(c.errs, "storage size is required (app.Storage)")
	}
	if len(c.accessModes) == 0 {
		c.accessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}
	}
	return c
}

// Storage sets the requested size of a claim, as a quantity ("10Gi").
func Storage(size string) ClaimOption {
	return claimOption(func(c *claimSpec) {
		q, err := resource.ParseQuantity(size)
		if err != nil {
			c.errs = append(c.errs, fmt.Sprintf("storage %q: %v", size, err))
			return
		}
		c.storage = &q
	})
}

// AccessModes sets a claim's access modes; the default is ReadWriteOnce.
func AccessModes(modes ...corev1.PersistentVolumeAccessMode) ClaimOption {
	return claimOption(func(c *claimSpec) { c.accessModes = append([]corev1.PersistentVolumeAccessMode(nil), modes...) })
}

// StorageClass sets a claim's storage class; without it the cluster's
// default class provisions the volume.
func StorageClass(name string) ClaimOption {
	return claimOption(func(c *claimSpec) { c.storageClass = &name })
}

// pvcSpec returns the Kubernetes claim spec.
func (c claimSpec) pvcSpec() corev1.PersistentVolumeClaimSpec {
	spec := corev1.PersistentVolumeClaimSpec{AccessModes: c.accessModes, StorageClassName: c.storageClass}
	if c.storage != nil {
		spec.Resources.Requests = corev1.ResourceList{corev1.ResourceStorage: *c.storage}
	}
	return spec
}

// PersistentVolumeClaim declares a standalone PersistentVolumeClaim, for
// storage shared by a Deployment's pods or kept apart from a StatefulSet.
// Storage is required.
func (a *App) PersistentVolumeClaim(name string, opts ...ClaimOption) *Claim {
	spec := newClaimSpec(opts)
	a.reportName("PersistentVolumeClaim", name, dnsSubdomain)
	a.report("PersistentVolumeClaim", name, spec.errs)
	if a.claim("PersistentVolumeClaim", name) {
		a.add(name, &corev1.PersistentVolumeClaim{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
			ObjectMeta: meta(name, a.labelsOf(name, &spec.common), spec.annotations),
			Spec:       spec.pvcSpec(),
		}, &spec.common)
	}
	return &Claim{name: name}
}
