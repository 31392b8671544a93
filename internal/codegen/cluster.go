package codegen

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/pynenc/piceli/internal/crdgen"
	"github.com/pynenc/piceli/internal/kube"
)

// crdResource is where CustomResourceDefinitions live.
var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// fromCluster GETs each named CRD; nothing else is sent.
func fromCluster(ctx context.Context, c Cluster) ([]crdgen.Document, error) {
	if c.Kubeconfig == "" || c.Context == "" || len(c.CRDs) == 0 {
		return nil, refusef("reading CRDs from a cluster needs a kubeconfig file, a context and CRD names: piceli never uses $KUBECONFIG, ~/.kube/config or a current-context")
	}
	client, err := kube.Connect(ctx, kube.Options{Kubeconfig: c.Kubeconfig, Context: c.Context, AllowExec: c.AllowExec, WrapTransport: c.WrapTransport})
	if err != nil {
		return nil, err
	}
	var docs []crdgen.Document
	for _, name := range c.CRDs {
		u, err := client.Dynamic.Resource(crdResource).Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			return nil, refusef("CustomResourceDefinition/%s: not found in context %q", name, c.Context)
		case err != nil:
			return nil, fmt.Errorf("get CustomResourceDefinition/%s from context %q: %w", name, c.Context, err)
		}
		docs = append(docs, crdgen.Document{Origin: fmt.Sprintf("CustomResourceDefinition/%s of context %q", name, c.Context), Object: u.Object})
	}
	return docs, nil
}
