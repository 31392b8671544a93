package app

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// secretMetadata is what SecretType and SecretLabel set: the type and the
// labels of a Secret beyond the builder's own.
type secretMetadata struct {
	typ    corev1.SecretType
	labels map[string]string
}

// secretOptionFunc adapts a function to SecretOption.
type secretOptionFunc func(*secretSpec)

func (o secretOptionFunc) applySecret(s *secretSpec) { o(s) }

// SecretType sets the type of a Secret declared by source, such as
// corev1.SecretTypeTLS or corev1.SecretTypeDockerConfigJson; without it the
// type is Opaque. Kubernetes never changes the type of an existing Secret,
// so a Secret taken over from a cluster must keep the type it has there
// (piceli import writes this option for it). SecretType does not check that
// the keys the type needs are declared: the API server does, when the
// values are applied.
func SecretType(t corev1.SecretType) SecretOption {
	return secretOptionFunc(func(s *secretSpec) {
		if t == "" {
			s.errs = append(s.errs, "secret type is empty")
			return
		}
		s.metadata.typ = t
	})
}

// SecretLabel adds a label to a Secret declared by source. Given one of
// the keys the builder sets itself (LabelName, LabelPartOf,
// LabelManagedBy), it replaces the builder's value, so that a Secret taken
// over from a cluster keeps its own labels (piceli import writes this
// option for each of them). Secrets select nothing, so this changes no
// selector.
func SecretLabel(key, value string) SecretOption {
	return secretOptionFunc(func(s *secretSpec) {
		if msgs := validation.IsQualifiedName(key); len(msgs) > 0 {
			s.errs = append(s.errs, fmt.Sprintf("label %q: key must be a %s", key, explain("qualified name", msgs)))
			return
		}
		if msgs := validation.IsValidLabelValue(value); len(msgs) > 0 {
			s.errs = append(s.errs, fmt.Sprintf("label %q: value %q is not a label value: %s", key, value, strings.Join(msgs, "; ")))
			return
		}
		if s.metadata.labels == nil {
			s.metadata.labels = map[string]string{}
		}
		s.metadata.labels[key] = value
	})
}

// apply sets the type and merges the labels into a Secret.
func (m secretMetadata) apply(s *corev1.Secret) {
	if m.typ != "" {
		s.Type = m.typ
	}
	for k, v := range m.labels {
		s.Labels[k] = v
	}
}
