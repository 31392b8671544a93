package kube

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// TestIdentityForbiddenNamesThePermission: a user that may not read
// kube-system gets a target error saying which permission the plan needs.
func TestIdentityForbiddenNamesThePermission(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	ns := sb.Namespace(t)
	ctx := sandboxtest.Context(t, 30*time.Second)
	sas := sb.Clientset.CoreV1().ServiceAccounts(ns)
	if _, err := sas.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "nobody"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tok, err := sas.CreateToken(ctx, "nobody", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		sandboxtest.Unavailable(t, "the sandbox issues no service account tokens: "+err.Error())
	}
	file := tokenKubeconfig(t, sb, tok.Status.Token)

	c, err := Connect(ctx, Options{Kubeconfig: file, Context: "nobody"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Identity(ctx)
	want := `identify the cluster of context "nobody" in ` + file + `: read Namespace/kube-system (the plan needs get on namespaces/kube-system): `
	if !errors.Is(err, ErrTarget) || !strings.HasPrefix(errString(err), want) {
		t.Errorf("Identity() as a user without rights = %v, want an ErrTarget starting %q", err, want)
	}
}

// tokenKubeconfig writes a kubeconfig with context "nobody" for the
// sandbox's server and token.
func tokenKubeconfig(t *testing.T, sb *sandboxtest.Sandbox, token string) string {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["sandbox"] = &clientcmdapi.Cluster{
		Server:                   sb.RESTConfig.Host,
		CertificateAuthority:     sb.RESTConfig.CAFile,
		CertificateAuthorityData: sb.RESTConfig.CAData,
		InsecureSkipTLSVerify:    sb.RESTConfig.Insecure,
	}
	cfg.AuthInfos["nobody"] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts["nobody"] = &clientcmdapi.Context{Cluster: "sandbox", AuthInfo: "nobody"}
	path := filepath.Join(t.TempDir(), "nobody.kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}
