package source

import (
	"net"
	"os"
	"strconv"
	"time"

	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
	"github.com/skeema/knownhosts"
	"golang.org/x/crypto/ssh"
)

// The keys of a Git source's Secret.
const (
	KeyUsername    = "username"
	KeyPassword    = "password"
	KeyBearerToken = "bearerToken"
	KeyIdentity    = "identity"
	KeyKnownHosts  = "known_hosts"
)

const secretField = "spec.source.git.secretRef"

// httpAuth is username and password, or bearerToken; none without a
// Secret.
func httpAuth(creds Credentials) (transport.AuthMethod, error) {
	if creds == nil {
		return nil, nil
	}
	user, pass, token := creds[KeyUsername], creds[KeyPassword], creds[KeyBearerToken]
	switch {
	case len(token) > 0 && (len(user) > 0 || len(pass) > 0):
		return nil, &SpecError{Field: secretField, Reason: "set username and password, or bearerToken, not both"}
	case len(token) > 0:
		return &githttp.TokenAuth{Token: string(token)}, nil
	case len(user) > 0 && len(pass) > 0:
		return &githttp.BasicAuth{Username: string(user), Password: string(pass)}, nil
	}
	return nil, &SpecError{Field: secretField, Reason: "an http(s) source's Secret holds username and password, or bearerToken"}
}

// sshAuth is the identity and the known_hosts of the Secret: an SSH
// source without known_hosts is refused, host keys are always checked.
func sshAuth(rawURL string, creds Credentials) (transport.AuthMethod, error) {
	identity, hosts := creds[KeyIdentity], creds[KeyKnownHosts]
	if len(identity) == 0 || len(hosts) == 0 {
		return nil, &SpecError{Field: secretField, Reason: "an ssh source needs a Secret with identity (a private key) and known_hosts"}
	}
	ep, err := transport.NewEndpoint(rawURL)
	if err != nil {
		return nil, &SpecError{Field: "spec.source.git.url", Reason: "not an SSH URL"}
	}
	user := ep.User
	if user == "" {
		user = "git"
	}
	keys, err := gitssh.NewPublicKeys(user, identity, "")
	if err != nil {
		return nil, &SpecError{Field: secretField, Reason: "identity is not an unencrypted private key in PEM or OpenSSH form"}
	}
	db, err := knownHostsDB(hosts)
	if err != nil {
		return nil, &SpecError{Field: secretField, Reason: "known_hosts is not in the known_hosts format"}
	}
	port := ep.Port
	if port == 0 {
		port = 22
	}
	keys.HostKeyCallback = db.HostKeyCallback()
	keys.HostKeyAlgorithms = db.HostKeyAlgorithms(net.JoinHostPort(ep.Host, strconv.Itoa(port)))
	return sshKeys{keys}, nil
}

// sshDialTimeout bounds the TCP connection to an SSH server: go-git
// dials without the caller's context.
const sshDialTimeout = 30 * time.Second

// sshKeys are the identity and host key checks, with the dial bounded.
type sshKeys struct{ *gitssh.PublicKeys }

func (k sshKeys) ClientConfig() (*ssh.ClientConfig, error) {
	c, err := k.PublicKeys.ClientConfig()
	if err == nil {
		c.Timeout = sshDialTimeout
	}
	return c, err
}

// knownHostsDB reads known_hosts data (the library reads files only: the
// data goes through a private temporary file, removed at once).
func knownHostsDB(data []byte) (*knownhosts.HostKeyDB, error) {
	f, err := os.CreateTemp("", "piceli-known-hosts-")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	return knownhosts.NewDB(f.Name())
}
