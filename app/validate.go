package app

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// dnsLabel returns "" for a valid DNS-1123 label, or what is wrong with it.
func dnsLabel(name string) string {
	return explain("DNS-1123 label", validation.IsDNS1123Label(name))
}

// dnsSubdomain returns "" for a valid DNS-1123 subdomain, or what is wrong.
func dnsSubdomain(name string) string {
	return explain("DNS-1123 subdomain", validation.IsDNS1123Subdomain(name))
}

func explain(what string, msgs []string) string {
	if len(msgs) == 0 {
		return ""
	}
	return what + ": " + strings.Join(msgs, "; ")
}

// portError returns "" for a port in 1-65535, or the problem.
func portError(port int) string {
	if port < 1 || port > 65535 {
		return fmt.Sprintf("port %d out of range 1-65535", port)
	}
	return ""
}

// meta returns object metadata with copies of labels and annotations.
func meta(name string, labels, annotations map[string]string) metav1.ObjectMeta {
	m := metav1.ObjectMeta{Name: name, Labels: labels}
	if len(annotations) > 0 {
		m.Annotations = make(map[string]string, len(annotations))
		for k, v := range annotations {
			m.Annotations[k] = v
		}
	}
	return m
}

// lower is strings.ToLower, for kinds in messages.
func lower(kind string) string { return strings.ToLower(kind) }
