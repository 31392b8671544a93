package app

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/pynenc/piceli/internal/inputfile"
)

// ConfigMap is a handle to a declared ConfigMap; use it with EnvFromConfig
// and MountConfig.
type ConfigMap struct {
	name     string
	keys     []string
	external bool   // named by ConfigMapRef
	bad      string // what is wrong with a ConfigMapRef's name
}

// Name returns the ConfigMap's name.
func (c *ConfigMap) Name() string { return c.name }

// Kind returns "ConfigMap".
func (c *ConfigMap) Kind() string { return "ConfigMap" }

// HasKey reports whether the ConfigMap declares key.
func (c *ConfigMap) HasKey(key string) bool { return slices.Contains(c.keys, key) }

// configMapSpec is what ConfigMapOptions set.
type configMapSpec struct {
	common
	keys   []string
	data   map[string]string
	binary map[string][]byte
	errs   []string
}

// configMapOption adapts a function to ConfigMapOption.
type configMapOption func(*configMapSpec)

func (o configMapOption) applyConfigMap(c *configMapSpec) { o(c) }

// Data sets a literal key of a ConfigMap.
func Data(key, value string) ConfigMapOption {
	return configMapOption(func(c *configMapSpec) { c.set(key, []byte(value)) })
}

// DataFile sets a key of a ConfigMap, named after the file's base name, to
// the file's content. The path is relative to the process's working
// directory, which for a composition is its package directory. Content that
// is not UTF-8 goes into binaryData.
func DataFile(path string) ConfigMapOption {
	return DataFileAs(filepath.Base(path), path)
}

// DataFileAs is DataFile with an explicit key.
func DataFileAs(key, path string) ConfigMapOption {
	return configMapOption(func(c *configMapSpec) {
		content, err := inputfile.Read(path, inputfile.DataLimit)
		if err != nil {
			c.errs = append(c.errs, fmt.Sprintf("key %q: read file %s: %v", key, path, unwrapPath(err)))
			return
		}
		c.set(key, content)
	})
}

// unwrapPath drops the path an *os.PathError repeats.
func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// set adds a key, checking its name and uniqueness.
func (c *configMapSpec) set(key string, value []byte) {
	if msgs := validation.IsConfigMapKey(key); len(msgs) > 0 {
		c.errs = append(c.errs, fmt.Sprintf("key %q: %s", key, explain("valid key", msgs)))
		return
	}
	if slices.Contains(c.keys, key) {
		c.errs = append(c.errs, fmt.Sprintf("key %q declared twice", key))
		return
	}
	c.keys = append(c.keys, key)
	if utf8.Valid(value) {
		setKey(&c.data, key, string(value))
	} else {
		setKey(&c.binary, key, value)
	}
}

func setKey[V any](m *map[string]V, key string, value V) {
	if *m == nil {
		*m = map[string]V{}
	}
	(*m)[key] = value
}

// ConfigMap declares a ConfigMap from literals (Data) and files (DataFile,
// DataFileAs). A file that cannot be read is an error naming its path.
func (a *App) ConfigMap(name string, opts ...ConfigMapOption) *ConfigMap {
	var spec configMapSpec
	for _, o := range opts {
		if o != nil {
			o.applyConfigMap(&spec)
		}
	}
	a.reportName("ConfigMap", name, dnsSubdomain)
	a.report("ConfigMap", name, spec.errs)
	if a.claim("ConfigMap", name) {
		a.add(name, &corev1.ConfigMap{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: meta(name, a.labelsOf(name, &spec.common), spec.annotations),
			Data:       spec.data,
			BinaryData: spec.binary,
		}, &spec.common)
	}
	return &ConfigMap{name: name, keys: spec.keys}
}
