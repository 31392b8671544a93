package importgen

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// configMap recognises a.ConfigMap(name, app.Data(...)...); binary data
// and immutability are left for an Edit.
func (g *gen) configMap(d *decl) (built, string) {
	orig := d.typed.(*corev1.ConfigMap)
	left := orig.DeepCopy()
	name := left.Name
	var o options
	if !validSubdomain(name) {
		return built{}, fmt.Sprintf("its name %q is not a DNS-1123 subdomain", name)
	}
	if why := g.takeMeta(&left.ObjectMeta, name, &o, metaRules{labels: true, annotations: true}); why != "" {
		return built{}, why
	}
	keys := slices.Sorted(maps.Keys(left.Data))
	if slices.ContainsFunc(keys, func(k string) bool { return len(validation.IsConfigMapKey(k)) > 0 }) {
		keys = nil
	}
	var data []jen.Code
	for _, k := range keys {
		data = append(data, appCall("Data", jen.Lit(k), str(left.Data[k])))
		delete(left.Data, k)
	}
	if len(left.Data) == 0 {
		left.Data = nil
	}
	o.list = append(func() []option {
		var out []option
		for _, c := range data {
			out = append(out, fixed(c))
		}
		return out
	}(), o.list...)
	if why := g.tail(&o, "ConfigMap", d, orig, left, nil); why != "" {
		return built{}, why
	}
	h := &handle{kind: "ConfigMap", name: name, keys: keys}
	return o.builtCall("ConfigMap", h, lit(jen.Lit(name))), ""
}

// secretKeys returns the keys of a Secret: those of data and stringData
// and those an earlier render listed in the keys annotation. Values are
// never read.
func secretKeys(s *corev1.Secret) []string {
	keys := map[string]bool{}
	for k := range s.Data {
		keys[k] = true
	}
	for k := range s.StringData {
		keys[k] = true
	}
	for _, k := range strings.Split(s.Annotations[secretKeysAnnotation], ",") {
		if k != "" {
			keys[k] = true
		}
	}
	return slices.Sorted(maps.Keys(keys))
}

// secret declares a Secret with keys by source: each key imported from
// the cluster Secret of the same name, its type and own labels and
// annotations kept. It returns ok false for a Secret without keys (a
// literal then says it, with no value to leak) and an error for one the
// declaration cannot say.
func (g *gen) secret(d *decl, s *corev1.Secret) (built, bool, error) {
	keys := secretKeys(s)
	if len(keys) == 0 {
		return built{}, false, nil
	}
	if err := g.checkSecret(s, keys); err != nil {
		return built{}, false, fmt.Errorf("%s (%s): %w", d.ref, d.src, err)
	}
	name, typ := s.Name, s.Type
	labels := g.ownSecretLabels(s)
	notes := maps.Clone(s.Annotations)
	delete(notes, secretKeysAnnotation)
	h := &handle{kind: "Secret", name: name, keys: keys}
	return built{handle: h, code: call("Secret", func() []jen.Code {
		args := []jen.Code{jen.Lit(name)}
		for _, k := range keys {
			args = append(args, appCall("FromCluster", jen.Lit(k), jen.Lit(name), jen.Lit(k)))
		}
		if typ != "" && typ != corev1.SecretTypeOpaque {
			args = append(args, appCall("SecretType", jen.Lit(string(typ))))
		}
		for _, k := range slices.Sorted(maps.Keys(labels)) {
			args = append(args, appCall("SecretLabel", jen.Lit(k), jen.Lit(labels[k])))
		}
		return append(args, annotationOptions(notes)...)
	})}, true, nil
}

// checkSecret refuses what a declaration by source cannot say.
func (g *gen) checkSecret(s *corev1.Secret, keys []string) error {
	c := s.DeepCopy()
	c.Name, c.Namespace, c.Labels, c.Annotations = "", "", nil, nil
	c.Data, c.StringData, c.Type = nil, nil, ""
	switch {
	case s.Namespace != "":
		return fmt.Errorf("a Secret outside the target namespace cannot be declared by source; import its namespace on its own")
	case !validSubdomain(s.Name):
		return fmt.Errorf("name is not a DNS-1123 subdomain")
	case s.Immutable != nil:
		return fmt.Errorf("immutable Secrets cannot be declared by source yet")
	case !rest(c):
		return fmt.Errorf("metadata besides name, labels and annotations (finalizers, owners) cannot be declared by source")
	}
	for _, k := range keys {
		if len(validation.IsConfigMapKey(k)) > 0 {
			return fmt.Errorf("key %q is not a valid key", k)
		}
	}
	return nil
}

// ownSecretLabels are the labels of s the Secret builder would not write
// itself.
func (g *gen) ownSecretLabels(s *corev1.Secret) map[string]string {
	builder := g.builderLabels(s.Name)
	own := map[string]string{}
	for k, v := range s.Labels {
		if bv, ok := builder[k]; !ok || bv != v {
			own[k] = v
		}
	}
	return own
}

func validSubdomain(name string) bool { return len(validation.IsDNS1123Subdomain(name)) == 0 }

func validLabel(name string) bool { return len(validation.IsDNS1123Label(name)) == 0 }
