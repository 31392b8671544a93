package source

import (
	"encoding/base64"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/google/go-containerregistry/pkg/authn"
)

// DockerConfigKey is the key of a kubernetes.io/dockerconfigjson Secret
// that holds the registry credentials.
const DockerConfigKey = ".dockerconfigjson"

type dockerConfig struct {
	Auths map[string]dockerAuth `json:"auths"`
}

type dockerAuth struct {
	Username      string `json:"username"`
	Password      string `json:"password"`
	Auth          string `json:"auth"`
	IdentityToken string `json:"identitytoken"`
	RegistryToken string `json:"registrytoken"`
}

// registryAuth reads the credentials for host from the Secret's
// .dockerconfigjson and returns them with their values, to be kept out of
// errors.
func registryAuth(creds Credentials, host string) (authn.Authenticator, []string, error) {
	const field = "spec.source.oci.secretRef"
	raw, ok := creds[DockerConfigKey]
	if !ok {
		return nil, nil, &SpecError{Field: field, Reason: "the Secret has no " + DockerConfigKey + " key (want a Secret of type kubernetes.io/dockerconfigjson)"}
	}
	var cfg dockerConfig
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return nil, nil, &SpecError{Field: field, Reason: "the Secret's " + DockerConfigKey + " is not a Docker config JSON document"}
	}
	// An exact key first, then the others in order, so the same Secret
	// always gives the same credentials.
	keys := slices.Sorted(maps.Keys(cfg.Auths))
	if i := slices.Index(keys, host); i > 0 {
		keys[0], keys[i] = keys[i], keys[0]
	}
	for _, key := range keys {
		a := cfg.Auths[key]
		if registryHost(key) != host && !(isDockerHub(key) && isDockerHub(host)) {
			continue
		}
		if a.Auth != "" {
			dec, err := base64.StdEncoding.DecodeString(a.Auth)
			user, pass, found := strings.Cut(string(dec), ":")
			if err != nil || !found {
				return nil, nil, &SpecError{Field: field, Reason: "the auth of " + host + " in " + DockerConfigKey + " is not base64 of USER:PASSWORD"}
			}
			a.Username, a.Password = user, pass
		}
		cfg := authn.AuthConfig{Username: a.Username, Password: a.Password, IdentityToken: a.IdentityToken, RegistryToken: a.RegistryToken}
		return authn.FromConfig(cfg), []string{a.Password, a.Auth, a.IdentityToken, a.RegistryToken}, nil
	}
	return nil, nil, &SpecError{Field: field, Reason: "the Secret's " + DockerConfigKey + " has no credentials for " + host}
}

// registryHost is the HOST[:PORT] of a key of auths, which may be a URL.
func registryHost(key string) string {
	key = strings.TrimPrefix(strings.TrimPrefix(key, "https://"), "http://")
	host, _, _ := strings.Cut(key, "/")
	return host
}

func isDockerHub(key string) bool {
	switch registryHost(key) {
	case "docker.io", "index.docker.io", "registry-1.docker.io":
		return true
	}
	return false
}
