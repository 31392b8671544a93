package crdgen_test

import (
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/crdgen"
)

// composition uses the generated Widget as a composition would, with
// field written in as the size field's name.
func composition(field string) string {
	return `package infra

import (
	"k8s.io/utils/ptr"

	"github.com/pynenc/piceli/app"

	widgets "` + testModulePath + `/crds/crdgen.piceli.test/v1"
)

// Build declares one Widget.
func Build(ctx *app.Context) (*app.Composition, error) {
	a := app.New("demo")
	w := widgets.NewWidget("w")
	w.Spec = widgets.WidgetSpec{` + field + `: 3, Color: ptr.To(widgets.WidgetSpecColorRed), Ports: []widgets.WidgetSpecPorts{{Name: "http"}}}
	a.Objects(w)
	return a.Composition(ctx)
}
`
}

// certComposition is the example of docs/crds.md, which must compile.
const certComposition = `package cert

import (
	"k8s.io/utils/ptr"

	"github.com/pynenc/piceli/app"

	certv1 "` + testModulePath + `/crds/cert-manager.io/v1"
)

func Build(ctx *app.Context) (*app.Composition, error) {
	a := app.New("shop")
	cert := certv1.NewCertificate("web-tls")
	cert.Spec = certv1.CertificateSpec{
		SecretName: "web-tls",
		DnsNames:   []string{"shop.example.com"},
		IssuerRef:  certv1.CertificateSpecIssuerRef{Name: "letsencrypt", Kind: ptr.To("ClusterIssuer")},
	}
	a.Objects(cert)
	return a.Composition(ctx)
}
`

// The packages generated from every test CRD compile and go vet finds
// nothing in them; compositions using them (the example of docs/crds.md
// among them) compile, and the same composition with a misspelt field
// does not (acceptance 1 of issue 32).
func TestGeneratedPackagesCompileAndCatchMisspellings(t *testing.T) {
	out := generate(t, crdgen.Input{Documents: readCRDs(t, testCRDs...)})
	dir := testModule(t, out, map[string]string{"infra/infra.go": composition("Size"), "cert/cert.go": certComposition})
	if msg, err := goCmd(t, dir, "build", "./..."); err != nil {
		t.Fatalf("go build of the generated packages and a composition: %v\n%s", err, msg)
	}
	if msg, err := goCmd(t, dir, "vet", "./..."); err != nil {
		t.Fatalf("go vet of the generated packages: %v\n%s", err, msg)
	}
	writeTree(t, dir, map[string][]byte{"infra/infra.go": []byte(composition("Sise"))})
	msg, err := goCmd(t, dir, "build", "./infra")
	if err == nil || !strings.Contains(msg, "unknown field Sise") {
		t.Fatalf("go build of a composition with a misspelt field = %v, want an unknown field error:\n%s", err, msg)
	}
}
