package controller

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/pynenc/piceli/internal/atomicfile"
)

// InClusterContext is the context InClusterKubeconfig writes.
const InClusterContext = "in-cluster"

// ServiceAccountDir is where a pod's ServiceAccount token and CA are
// mounted.
const ServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// APIServerNameEnv names the environment variable that, when set, is the
// TLS server name to verify the API server's certificate against, for
// clusters whose pods reach the API server at an address its certificate
// does not name (the sandbox's real node).
const APIServerNameEnv = "PICELI_API_SERVER_NAME"

// InClusterKubeconfig writes dir/in-cluster.kubeconfig for the pod's
// ServiceAccount: the API server at $KUBERNETES_SERVICE_HOST and
// $KUBERNETES_SERVICE_PORT, its CA and token file from ServiceAccountDir
// (the token is read afresh by every connection, so rotation works). The
// release engine reaches clusters only through a named kubeconfig file and
// context; this is that file for a pod.
func InClusterKubeconfig(dir string) (string, error) {
	host, port := os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return "", errors.New("not in a pod: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set; pass --kubeconfig and --context")
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[InClusterContext] = &clientcmdapi.Cluster{
		Server:               "https://" + net.JoinHostPort(host, port),
		CertificateAuthority: filepath.Join(ServiceAccountDir, "ca.crt"),
		TLSServerName:        os.Getenv(APIServerNameEnv),
	}
	cfg.AuthInfos[InClusterContext] = &clientcmdapi.AuthInfo{TokenFile: filepath.Join(ServiceAccountDir, "token")}
	cfg.Contexts[InClusterContext] = &clientcmdapi.Context{Cluster: InClusterContext, AuthInfo: InClusterContext}
	data, err := clientcmd.Write(*cfg)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("work directory: %w", err)
	}
	path := filepath.Join(dir, "in-cluster.kubeconfig")
	if err := atomicfile.Write(path, data, 0o600); err != nil {
		return "", err
	}
	return path, nil
}
