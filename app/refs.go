package app

import "fmt"

// ConfigMapRef returns a handle to a ConfigMap the builders did not
// declare: a k8s.io/api literal or a file of the same app, another app's,
// or one an operator makes. Options that take it (EnvFromConfig,
// ConfigVolume, ...) refer to it by name and cannot check its keys; a name
// that is not a DNS-1123 subdomain is reported by the option that uses it.
// It declares nothing.
func ConfigMapRef(name string) *ConfigMap {
	return &ConfigMap{name: name, external: true, bad: refError("config map", name)}
}

// SecretRef returns a handle to a Secret the builders did not declare, as
// ConfigMapRef does for a ConfigMap. It declares nothing.
func SecretRef(name string) *Secret {
	return &Secret{name: name, external: true, bad: refError("secret", name)}
}

// ServiceAccountRef returns a handle to a ServiceAccount the builders did
// not declare, for RunAs. It declares nothing.
func ServiceAccountRef(name string) *ServiceAccount {
	return &ServiceAccount{name: name, bad: refError("service account", name)}
}

// ClaimRef returns a handle to a PersistentVolumeClaim the builders did
// not declare, for ClaimVolume and MountClaim. It declares nothing.
func ClaimRef(name string) *Claim {
	return &Claim{name: name, bad: refError("claim", name)}
}

// refError describes a reference whose name the API server would refuse.
func refError(what, name string) string {
	if msg := dnsSubdomain(name); msg != "" {
		return fmt.Sprintf("%s %q: name must be a %s", what, name, msg)
	}
	return ""
}

// knows reports whether key may be read from the ConfigMap: one declared
// here has it, one named by ConfigMapRef may.
func (c *ConfigMap) knows(key string) bool { return c.external || c.HasKey(key) }

// knows reports whether key may be read from the Secret.
func (s *Secret) knows(key string) bool { return s.external || s.HasKey(key) }

// badRef returns the problem of a handle made by a Ref function, or "".
func badRef(h Handle) string {
	switch t := h.(type) {
	case *ConfigMap:
		return t.bad
	case *Secret:
		return t.bad
	case *ServiceAccount:
		return t.bad
	case *Claim:
		return t.bad
	}
	return ""
}

// checkRef records the problem of a handle made by a Ref function and
// reports whether it has none.
func (w *Workload) checkRef(h Handle) bool {
	if msg := badRef(h); msg != "" {
		w.fail("%s", msg)
		return false
	}
	return true
}
