package app

// ConfigMapRef returns a handle to a ConfigMap the builders did not
// declare: a k8s.io/api literal or a file of the same app, another app's,
// or one an operator makes. Options that take it (EnvFromConfig,
// ConfigVolume, ...) refer to it by name and cannot check its keys. It
// declares nothing.
func ConfigMapRef(name string) *ConfigMap { return &ConfigMap{name: name, external: true} }

// SecretRef returns a handle to a Secret the builders did not declare, as
// ConfigMapRef does for a ConfigMap. It declares nothing.
func SecretRef(name string) *Secret { return &Secret{name: name, external: true} }

// ServiceAccountRef returns a handle to a ServiceAccount the builders did
// not declare, for RunAs. It declares nothing.
func ServiceAccountRef(name string) *ServiceAccount { return &ServiceAccount{name: name} }

// ClaimRef returns a handle to a PersistentVolumeClaim the builders did
// not declare, for ClaimVolume and MountClaim. It declares nothing.
func ClaimRef(name string) *Claim { return &Claim{name: name} }

// knows reports whether key may be read from the ConfigMap: one declared
// here has it, one named by ConfigMapRef may.
func (c *ConfigMap) knows(key string) bool { return c.external || c.HasKey(key) }

// knows reports whether key may be read from the Secret.
func (s *Secret) knows(key string) bool { return s.external || s.HasKey(key) }
