package kube

import (
	"fmt"
	"strings"

	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/pynenc/piceli/internal/inputfile"
)

// originate records path as where every entry of file came from, as
// clientcmd.LoadFromFile does, so relative paths resolve against its
// directory.
func originate(file *clientcmdapi.Config, path string) {
	for _, c := range file.Clusters {
		c.LocationOfOrigin = path
	}
	for _, u := range file.AuthInfos {
		u.LocationOfOrigin = path
	}
	for _, c := range file.Contexts {
		c.LocationOfOrigin = path
	}
}

// inlineFiles reads the files the named context's cluster and user name
// (token file, client certificate and key, CA bundle) with a bound, each a
// regular file of at most inputfile.CredentialLimit bytes, and puts their
// content in the entries in place of the paths. client-go would otherwise
// read them itself, unbounded: a tokenFile of /dev/zero grew memory by a
// gigabyte a second. A token file is so read once per connection, not
// re-read as it rotates.
func inlineFiles(file *clientcmdapi.Config, contextName string) error {
	kctx := file.Contexts[contextName]
	if u := file.AuthInfos[kctx.AuthInfo]; u != nil {
		if err := inlineUser(kctx.AuthInfo, u); err != nil {
			return err
		}
	}
	if c := file.Clusters[kctx.Cluster]; c != nil && c.CertificateAuthority != "" {
		data, err := readNamed("cluster", kctx.Cluster, "certificate-authority", c.CertificateAuthority)
		if err != nil {
			return err
		}
		c.CertificateAuthorityData, c.CertificateAuthority = data, ""
	}
	return nil
}

// inlineUser inlines a user entry's token file and client certificate
// and key. A token given inline wins over the file, as in client-go.
func inlineUser(name string, u *clientcmdapi.AuthInfo) error {
	if u.TokenFile != "" {
		data, err := readNamed("user", name, "tokenFile", u.TokenFile)
		if err != nil {
			return err
		}
		if u.Token == "" {
			u.Token = strings.TrimSpace(string(data)) // as client-go reads a token file
		}
		u.TokenFile = ""
	}
	for _, f := range []struct {
		key  string
		path *string
		data *[]byte
	}{
		{key: "client-certificate", path: &u.ClientCertificate, data: &u.ClientCertificateData},
		{key: "client-key", path: &u.ClientKey, data: &u.ClientKeyData},
	} {
		if *f.path == "" {
			continue
		}
		data, err := readNamed("user", name, f.key, *f.path)
		if err != nil {
			return err
		}
		*f.data, *f.path = data, ""
	}
	return nil
}

// readNamed reads a file a kubeconfig entry names, saying which entry and
// key in its error.
func readNamed(entry, name, key, path string) ([]byte, error) {
	data, err := inputfile.Read(path, inputfile.CredentialLimit)
	if err != nil {
		return nil, fmt.Errorf("%s %q, key %s: %w", entry, name, key, err)
	}
	return data, nil
}
