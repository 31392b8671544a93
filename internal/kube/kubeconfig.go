package kube

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/pynenc/piceli/internal/inputfile"
)

// restConfig loads the named file, checks the named context and its user,
// and builds the REST config with the client limits of opts. It also
// returns the context's cluster's proxy-url, credentials removed.
func restConfig(opts Options) (*rest.Config, string, error) {
	file, err := loadKubeconfig(opts.Kubeconfig)
	if err != nil {
		return nil, "", err
	}
	if err := checkContext(file, opts); err != nil {
		return nil, "", err
	}
	if err := inlineFiles(file, opts.Context); err != nil {
		return nil, "", err
	}
	cfg, err := clientcmd.NewNonInteractiveClientConfig(*file, opts.Context, &clientcmd.ConfigOverrides{}, nil).ClientConfig()
	if err != nil {
		return nil, "", err
	}
	withLimits(cfg, opts)
	return cfg, proxyOf(file, opts.Context), nil
}

// proxyOf is the proxy-url of the context's cluster with any user and
// password removed, or "".
func proxyOf(file *clientcmdapi.Config, contextName string) string {
	c := file.Clusters[file.Contexts[contextName].Cluster]
	if c == nil || c.ProxyURL == "" {
		return ""
	}
	u, err := url.Parse(c.ProxyURL)
	if err != nil {
		return "(unparsable proxy-url)"
	}
	u.User = nil
	return u.String()
}

// loadKubeconfig reads one kubeconfig file (a regular file of at most
// inputfile.KubeconfigLimit bytes), resolving its relative paths against
// the file's directory as kubectl does.
func loadKubeconfig(path string) (*clientcmdapi.Config, error) {
	if path == "" {
		return nil, errors.New("no kubeconfig file named (Piceli never reads $KUBECONFIG or ~/.kube/config)")
	}
	data, err := inputfile.Read(path, inputfile.KubeconfigLimit)
	if err != nil {
		return nil, fmt.Errorf("read kubeconfig: %w", err)
	}
	file, err := clientcmd.Load(data)
	if err != nil {
		return nil, fmt.Errorf("read kubeconfig %s: %w", path, err)
	}
	originate(file, path)
	if err := clientcmd.ResolveLocalPaths(file); err != nil {
		return nil, fmt.Errorf("resolve paths in kubeconfig: %w", err)
	}
	return file, nil
}

// checkContext requires the named context in file and refuses credential
// plugins of its user unless allowed.
func checkContext(file *clientcmdapi.Config, opts Options) error {
	if opts.Context == "" {
		return errors.New("no context named (Piceli never uses the kubeconfig's current-context)")
	}
	kctx, ok := file.Contexts[opts.Context]
	if !ok {
		return fmt.Errorf("no such context; %s", listContexts(file.Contexts))
	}
	if opts.AllowExec {
		return nil
	}
	return checkUser(kctx.AuthInfo, file.AuthInfos[kctx.AuthInfo])
}

// listContexts says which contexts a file has, sorted.
func listContexts(contexts map[string]*clientcmdapi.Context) string {
	if len(contexts) == 0 {
		return "the file has no contexts"
	}
	names := make([]string, 0, len(contexts))
	for name := range contexts {
		names = append(names, fmt.Sprintf("%q", name))
	}
	slices.Sort(names)
	return "the file has " + strings.Join(names, ", ")
}

// checkUser refuses a user entry that would run a local program to get
// credentials.
func checkUser(name string, user *clientcmdapi.AuthInfo) error {
	switch {
	case user == nil:
		return nil // the client config reports a missing user
	case user.Exec != nil:
		return fmt.Errorf("user %q runs exec credential plugin %q: %w", name, user.Exec.Command, ErrExecNotAllowed)
	case user.AuthProvider != nil:
		return fmt.Errorf("user %q uses auth provider %q: %w", name, user.AuthProvider.Name, ErrExecNotAllowed)
	}
	return nil
}
