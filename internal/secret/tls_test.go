package secret

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// parsePair checks that v's tls.crt and tls.key form a pair and returns
// the certificate.
func parsePair(t *testing.T, v *Version) *x509.Certificate {
	t.Helper()
	vals := v.Values()
	pair, err := tls.X509KeyPair(vals["tls.crt"], vals["tls.key"])
	if err != nil {
		t.Fatalf("tls.X509KeyPair() error = %v", err)
	}
	return pair.Leaf
}

func TestGeneratedTLSPair(t *testing.T) {
	f := newFixture(t)
	d := decl(generatedTLS("shop.example.com", "shop.example.com", "*.shop.example.com", "10.0.0.1")...)
	first, _ := f.resolve(t, d, ResolveOptions{})
	cert := parsePair(t, first)
	if cert.Subject.CommonName != "shop.example.com" {
		t.Errorf("common name = %q, want shop.example.com", cert.Subject.CommonName)
	}
	if diff := cmp.Diff([]string{"shop.example.com", "*.shop.example.com"}, cert.DNSNames); diff != "" {
		t.Errorf("DNS names (-want +got):\n%s", diff)
	}
	if len(cert.IPAddresses) != 1 || !cert.IPAddresses[0].Equal(net.ParseIP("10.0.0.1")) {
		t.Errorf("IP addresses = %v, want [10.0.0.1]", cert.IPAddresses)
	}
	if life := cert.NotAfter.Sub(cert.NotBefore); life < 365*24*time.Hour || life > 366*24*time.Hour {
		t.Errorf("validity = %v, want one year", life)
	}
	if err := cert.VerifyHostname("api.shop.example.com"); err != nil {
		t.Errorf("VerifyHostname(api.shop.example.com) = %v, want the wildcard to match", err)
	}
	second, changed := f.resolve(t, d, ResolveOptions{})
	if changed || len(ChangedKeys(first, second)) != 0 {
		t.Errorf("a second Resolve changed the pair (changed %v, keys %v), want it kept", changed, ChangedKeys(first, second))
	}
}

func TestGeneratedTLSPairIsRemadeWhenHostsChange(t *testing.T) {
	f := newFixture(t)
	first, _ := f.resolve(t, decl(generatedTLS("shop", "a.example.com")...), ResolveOptions{})
	second, changed := f.resolve(t, decl(generatedTLS("shop", "b.example.com")...), ResolveOptions{})
	if diff := cmp.Diff([]string{"tls.crt", "tls.key"}, ChangedKeys(first, second)); diff != "" || !changed {
		t.Errorf("Resolve() with new hosts: changed %v, ChangedKeys (-want +got):\n%s", changed, diff)
	}
	if got := parsePair(t, second).DNSNames; !cmp.Equal(got, []string{"b.example.com"}) {
		t.Errorf("DNS names = %v, want [b.example.com]", got)
	}
}
