package sandbox

import (
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// writeKubeconfig turns kwokctl's kubeconfig into a self-contained file (the
// certificates embedded) with one context named Layout.Context(), written
// atomically with mode 0600. It returns the API server URL.
func (s *Sandbox) writeKubeconfig() (string, error) {
	cfg, err := clientcmd.LoadFromFile(s.layout.kwokKubeconfig())
	if err != nil {
		return "", fmt.Errorf("read kwokctl kubeconfig: %w", err)
	}
	if err := clientcmdapi.FlattenConfig(cfg); err != nil {
		return "", fmt.Errorf("embed sandbox certificates: %w", err)
	}
	ctx, ok := cfg.Contexts[cfg.CurrentContext]
	if !ok {
		return "", fmt.Errorf("kwokctl kubeconfig %s has no current context", s.layout.kwokKubeconfig())
	}
	name := s.layout.Context()
	out := clientcmdapi.NewConfig()
	out.Clusters[name] = cfg.Clusters[ctx.Cluster]
	out.AuthInfos[name] = cfg.AuthInfos[ctx.AuthInfo]
	out.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
	out.CurrentContext = name
	if out.Clusters[name] == nil || out.AuthInfos[name] == nil {
		return "", fmt.Errorf("kwokctl kubeconfig %s: context %q is incomplete", s.layout.kwokKubeconfig(), cfg.CurrentContext)
	}
	data, err := clientcmd.Write(*out)
	if err != nil {
		return "", fmt.Errorf("encode sandbox kubeconfig: %w", err)
	}
	if err := writeFileAtomic(s.layout.Kubeconfig(), data, 0o600); err != nil {
		return "", fmt.Errorf("write sandbox kubeconfig: %w", err)
	}
	return out.Clusters[name].Server, nil
}

// restConfig builds a client config from the sandbox kubeconfig file.
func (s *Sandbox) restConfig() (*rest.Config, error) {
	return RESTConfig(s.layout.Kubeconfig(), s.layout.Context())
}

// RESTConfig loads the named context of a kubeconfig file.
func RESTConfig(kubeconfig, context string) (*rest.Config, error) {
	rules := &clientcmd.ClientConfigLoadingRules{ExplicitPath: kubeconfig}
	overrides := &clientcmd.ConfigOverrides{CurrentContext: context}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("load kubeconfig %s context %s: %w", kubeconfig, context, err)
	}
	return cfg, nil
}

// writeFileAtomic replaces path with data: temp file in the same directory,
// fsync, rename, fsync the directory.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := writeSync(f, data, perm); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	return syncDir(dir)
}

func writeSync(f *os.File, data []byte, perm os.FileMode) error {
	_, err := f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
