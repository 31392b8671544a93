package observe

import (
	"errors"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/pynenc/piceli/refusal"
)

// checkArchive refuses (refusal.Is) an archive the lens must not
// act on: one naming a namespace that none of its objects nor its target
// is in, or declaring an object whose kind and resource disagree with
// the cluster's discovery (a crafted archive pairing kind ConfigMap with
// resource secrets had Secrets listed in full). Nothing is listed before
// it passes.
func (cl *Cluster) checkArchive(a *Archive) error {
	if err := checkNamespaces(a); err != nil {
		return err
	}
	var errs []error
	for _, o := range a.Objects {
		if o.Declared {
			errs = append(errs, cl.checkKind(o))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return refusal.Errorf("session archive refused: %w", err)
	}
	return nil
}

// checkNamespaces refuses archive namespaces beyond the target's and its
// objects': the release's plan wrote to no other.
func checkNamespaces(a *Archive) error {
	declared := []string{a.Target.Namespace}
	for _, o := range a.Objects {
		declared = append(declared, o.Ref.Namespace)
	}
	for _, ns := range a.Namespaces {
		if !slices.Contains(declared, ns) {
			return badInput("session archive refused: namespace %q is in its namespaces but neither its target's nor any of its objects'", ns)
		}
	}
	return nil
}

// checkKind requires the object's kind to be served by the cluster as its
// archived resource, with its archived scope.
func (cl *Cluster) checkKind(o ArchivedObject) error {
	gv, err := schema.ParseGroupVersion(o.APIVersion)
	if err != nil {
		return fmt.Errorf("object %s: apiVersion %q: %w", o.Ref, o.APIVersion, err)
	}
	m, err := cl.c.Mapper.RESTMapping(schema.GroupKind{Group: gv.Group, Kind: o.Ref.Kind}, gv.Version)
	if err != nil {
		return fmt.Errorf("object %s: kind %s of %s is not served by this cluster: %w", o.Ref, o.Ref.Kind, o.APIVersion, err)
	}
	if m.Resource.Resource != o.Resource {
		return fmt.Errorf("object %s: kind %s of %s is resource %q in this cluster, but the archive says %q", o.Ref, o.Ref.Kind, o.APIVersion, m.Resource.Resource, o.Resource)
	}
	if namespaced := m.Scope.Name() == meta.RESTScopeNameNamespace; namespaced != (o.Ref.Namespace != "") {
		return fmt.Errorf("object %s: kind %s is %s in this cluster, but the archive gives it namespace %q", o.Ref, o.Ref.Kind, scopeWord(namespaced), o.Ref.Namespace)
	}
	return nil
}

func scopeWord(namespaced bool) string {
	if namespaced {
		return "namespaced"
	}
	return "cluster-scoped"
}

// isSecrets says whether gvr is the core Secrets resource, which the lens
// lists as metadata only, whatever kind an archive pairs it with.
func isSecrets(gvr schema.GroupVersionResource) bool {
	return gvr.Group == "" && gvr.Resource == "secrets"
}
