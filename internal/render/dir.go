package render

import (
	"fmt"
	"os"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/localpath"
)

// renderedFile matches the names WriteDir gives files, so a later render
// replaces them and leaves every other file alone.
var renderedFile = regexp.MustCompile(`^\d{3,}-[a-z0-9.-]+\.(yaml|json)$`)

// FileName is the name WriteDir gives the i-th object: its position in
// apply order, then its kind, namespace and name made a file name by
// localpath.Key, e.g. "004-deployment-shop-web.yaml". It never holds a
// path separator and stays within a file name's length, whatever the
// object's name.
func FileName(i int, o *unstructured.Unstructured, f Format) string {
	parts := []string{o.GetKind()}
	if ns := o.GetNamespace(); ns != "" {
		parts = append(parts, ns)
	}
	parts = append(parts, o.GetName())
	return fmt.Sprintf("%03d-%s.%s", i, localpath.Key(strings.Join(parts, "-")), f)
}

// WriteDir writes one file per object into dir, creating it if needed,
// and removes files an earlier render left there. Other files are kept.
// Every file is written and removed through localpath, so nothing lands
// outside dir, through a symlink in it neither.
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
		if err := localpath.WriteFile(dir, names[i], data, 0o644); err != nil {
			return nil, err
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
			if err := localpath.Remove(dir, e.Name()); err != nil {
				return fmt.Errorf("remove stale %s: %w", e.Name(), err)
			}
		}
	}
	return nil
}
