package bench

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"golang.org/x/sync/errgroup"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/kube"
)

// floorManager is the field manager of the floor's applies.
const floorManager = "bench-floor"

// maxFloorFile bounds the manifests file the floor reads.
const maxFloorFile = 256 << 20

// floor is the benchmark's lower bound for a fresh apply: the least a
// client can do to put a file's objects on a cluster by server-side apply
// with Piceli's connection settings and requests in flight. It reads the
// file, connects as Piceli does (internal/kube: same client-side limits,
// discovery through the same mapper), applies the cluster-scoped objects
// (the Namespace) one by one, then every other object with parallel
// applies in flight, each a plain server-side apply of the object under
// floorManager without force. No plan, no approval, no journal, no lock,
// no readiness. It prints a workerResult: "floor [-parallel N]
// -kubeconfig FILE -context NAME MANIFESTS".
func floor(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("floor", flag.ContinueOnError)
	parallel := fs.Int("parallel", 0, "applies in flight (0: Piceli's default)")
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig file")
	kubeContext := fs.String("context", "", "context in the kubeconfig")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 || *kubeconfig == "" || *kubeContext == "" {
		return errors.New("usage: floor [-parallel N] -kubeconfig FILE -context NAME MANIFESTS")
	}
	if *parallel <= 0 {
		*parallel = apply.DefaultParallel
	}
	objs, err := readManifests(fs.Arg(0))
	if err != nil {
		return err
	}
	c, err := kube.Connect(ctx, kube.Options{Kubeconfig: *kubeconfig, Context: *kubeContext})
	if err != nil {
		return err
	}
	n, err := applyAll(ctx, c, objs, *parallel)
	if err != nil {
		return err
	}
	res := workerResult{Op: "floor", Written: n}
	if res.RSS, err = peakRSS(); err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(res)
}

// readManifests decodes a multi-document YAML file into objects.
func readManifests(path string) ([]*unstructured.Unstructured, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dec := utilyaml.NewYAMLOrJSONDecoder(io.LimitReader(f, maxFloorFile), 64<<10)
	var out []*unstructured.Unstructured
	for i := 1; ; i++ {
		u := &unstructured.Unstructured{}
		err := dec.Decode(&u.Object)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", path, i, err)
		}
		if len(u.Object) > 0 {
			out = append(out, u)
		}
	}
}

// applyAll applies the cluster-scoped objects one by one, then the others
// with parallel in flight, and returns how many it applied.
func applyAll(ctx context.Context, c *kube.Client, objs []*unstructured.Unstructured, parallel int) (int, error) {
	var first, rest []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetNamespace() == "" {
			first = append(first, o)
		} else {
			rest = append(rest, o)
		}
	}
	for _, o := range first {
		if err := applyOne(ctx, c, o); err != nil {
			return 0, err
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(parallel)
	for _, o := range rest {
		g.Go(func() error { return applyOne(gctx, c, o) })
	}
	return len(objs), g.Wait()
}

func applyOne(ctx context.Context, c *kube.Client, o *unstructured.Unstructured) error {
	gvk := o.GroupVersionKind()
	m, err := c.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return fmt.Errorf("map %s: %w", gvk, err)
	}
	res := c.Dynamic.Resource(m.Resource)
	if ns := o.GetNamespace(); ns != "" {
		_, err = res.Namespace(ns).Apply(ctx, o.GetName(), o, metav1.ApplyOptions{FieldManager: floorManager})
	} else {
		_, err = res.Apply(ctx, o.GetName(), o, metav1.ApplyOptions{FieldManager: floorManager})
	}
	if err != nil {
		return fmt.Errorf("apply %s %s/%s: %w", gvk.Kind, o.GetNamespace(), o.GetName(), err)
	}
	return nil
}
