package secret

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/pynenc/piceli/internal/wire"
)

// tlsValidity is how long a generated certificate is valid.
const tlsValidity = 365 * 24 * time.Hour

// tlsKeys are the keys of a "generated-tls" source, certificate first.
var tlsKeys = []string{corev1.TLSCertKey, corev1.TLSPrivateKeyKey}

// checkTLSPair refuses "generated-tls" keys other than one tls.crt and
// tls.key pair from the same source.
func checkTLSPair(decl wire.SecretInfo) error {
	var pair []wire.SecretKeyInfo
	for _, k := range decl.Keys {
		if k.Source != wire.SourceGeneratedTLS {
			continue
		}
		if !slices.Contains(tlsKeys, k.Key) {
			return sourceErr(decl.Name, k.Key, errors.New("generated-tls keys are tls.crt and tls.key"))
		}
		pair = append(pair, k)
	}
	if len(pair) == 1 || len(pair) == 2 && fingerprint(pair[0]) != fingerprint(pair[1]) {
		return sourceErr(decl.Name, pair[0].Key, errors.New("generated-tls needs tls.crt and tls.key from one source"))
	}
	return nil
}

// tlsPair returns the values of decl's TLS pair by key: the latest
// version's while both fingerprints are unchanged, else a new pair. It is
// nil when decl has no generated-tls source.
func (r *Resolver) tlsPair(decl wire.SecretInfo, latest *Version) (map[string][]byte, error) {
	i := slices.IndexFunc(decl.Keys, func(k wire.SecretKeyInfo) bool { return k.Source == wire.SourceGeneratedTLS })
	if i < 0 {
		return nil, nil
	}
	k := decl.Keys[i]
	fp := fingerprint(k)
	crt, okCrt := latest.kept(corev1.TLSCertKey, fp)
	key, okKey := latest.kept(corev1.TLSPrivateKeyKey, fp)
	if !okCrt || !okKey {
		var err error
		if crt, key, err = r.selfSigned(k.Ref, k.Hosts); err != nil {
			return nil, &keyError{secret: decl.Name, key: k.Key, err: fmt.Errorf("generate tls pair: %w", err)}
		}
	}
	return map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: key}, nil
}

// selfSigned returns a PEM certificate for commonName and hosts, signed by
// its own new ECDSA P-256 key, and that key as PEM PKCS #8.
func (r *Resolver) selfSigned(commonName string, hosts []string) (crt, key []byte, err error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), r.random())
	if err != nil {
		return nil, nil, err
	}
	tmpl, err := r.certTemplate(commonName, hosts)
	if err != nil {
		return nil, nil, err
	}
	der, err := x509.CreateCertificate(r.random(), tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		return nil, nil, err
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, nil, err
	}
	crt = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	key = pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8})
	return crt, key, nil
}

// certTemplate describes a one-year server certificate whose subject
// alternative names are hosts, IP addresses apart from DNS names.
func (r *Resolver) certTemplate(commonName string, hosts []string) (*x509.Certificate, error) {
	serial, err := r.serial()
	if err != nil {
		return nil, err
	}
	now := r.now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: commonName},
		NotBefore:             now.Add(-time.Minute), // tolerate small clock skew
		NotAfter:              now.Add(tlsValidity),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	return tmpl, nil
}

// serial returns a random positive serial number of at most 128 bits.
func (r *Resolver) serial() (*big.Int, error) {
	b := make([]byte, 16)
	if _, err := io.ReadFull(r.random(), b); err != nil {
		return nil, err
	}
	b[0] &= 0x7f
	n := new(big.Int).SetBytes(b)
	return n.Add(n, big.NewInt(1)), nil
}
