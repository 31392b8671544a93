package render

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// renderedFile matches the names WriteDir gives files, so a later render
// replaces them and leaves every other file alone.
var renderedFile = regexp.MustCompile(`^\d{3}-[a-z0-9.-]+\.(yaml|json)$`)

// FileName is the name WriteDir gives the i-th object: its position in
// apply order, kind, namespace and name, e.g. "004-deployment-shop-web.yaml".
func FileName(i int, o *unstructured.Unstructured, f Format) string {
	parts := []string{strings.ToLower(o.GetKind())}
	if ns := o.GetNamespace(); ns != "" {
		parts = append(parts, ns)
	}
	parts = append(parts, o.GetName())
	return fmt.Sprintf("%03d-%s.%s", i, strings.ToLower(strings.Join(parts, "-")), f)
}

// WriteDir writes one file per object into dir, creating it if needed,
// and removes files an earlier render left there. Other files are kept.
func WriteDir(dir string, objs []*unstructured.Unstructured, f Format) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create output directory: %w", err)
	}
	if err := removeRendered(dir); err != nil {
		return nil, err
	}
	names := make([]string, len(objs))
	for i, o := range objs {
		data, err := EncodeOne(o, f)
		if err != nil {
			return nil, err
		}
		names[i] = FileName(i, o, f)
		if err := os.WriteFile(filepath.Join(dir, names[i]), data, 0o644); err != nil {
			return nil, fmt.Errorf("write %s: %w", names[i], err)
		}
	}
	return names, nil
}

func removeRendered(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("read output directory: %w", err)
	}
	for _, e := range entries {
		if e.Type().IsRegular() && renderedFile.MatchString(e.Name()) {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return fmt.Errorf("remove stale %s: %w", e.Name(), err)
			}
		}
	}
	return nil
}
