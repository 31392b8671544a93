package app

import (
	"fmt"
	"net"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/pynenc/piceli/internal/wire"
)

// SourceGeneratedTLS ("generated-tls") values are a self-signed TLS
// certificate (key tls.crt) and its private key (key tls.key), generated
// once by Piceli; Ref is the certificate's common name and Hosts its
// subject alternative names.
const SourceGeneratedTLS = wire.SourceGeneratedTLS

// GeneratedTLS declares the keys tls.crt and tls.key of a self-signed
// ECDSA P-256 certificate for commonName, valid for one year, with hosts
// (DNS names, wildcards or IP addresses) as its subject alternative names;
// with no hosts, commonName is the only one. Piceli generates the pair once
// and keeps it across releases; it does not renew it before it expires.
func GeneratedTLS(commonName string, hosts ...string) SecretSource {
	if len(hosts) == 0 {
		hosts = []string{commonName}
	}
	info := SecretKeyInfo{Key: corev1.TLSCertKey, Source: SourceGeneratedTLS, Ref: commonName, Hosts: slices.Clone(hosts)}
	key := info
	key.Key, key.Hosts = corev1.TLSPrivateKeyKey, slices.Clone(hosts)
	return SecretSource{info: info, err: tlsError(commonName, hosts), more: []SecretKeyInfo{key}}
}

// tlsError returns "" for a usable common name and hosts, or the problem.
func tlsError(commonName string, hosts []string) string {
	if commonName == "" || len(commonName) > 64 {
		return fmt.Sprintf("tls common name %q needs 1-64 characters", commonName)
	}
	for _, h := range hosts {
		if msg := hostError(h); msg != "" {
			return fmt.Sprintf("tls host %q: %s", h, msg)
		}
	}
	return ""
}

// hostError returns "" for an IP address, DNS name or wildcard DNS name.
func hostError(host string) string {
	if net.ParseIP(host) != nil {
		return ""
	}
	if len(validation.IsDNS1123Subdomain(host)) == 0 || len(validation.IsWildcardDNS1123Subdomain(host)) == 0 {
		return ""
	}
	return "must be an IP address or a DNS-1123 subdomain, optionally with a leading *."
}
