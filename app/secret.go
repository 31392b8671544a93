package app

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/pynenc/piceli/internal/wire"
)

// Secret source kinds, as they appear in SecretKeyInfo.Source.
const (
	// SourceGenerated ("generated") values are generated once by Piceli.
	SourceGenerated = wire.SourceGenerated
	// SourceFile ("file") values are read from a file; Ref is its path.
	SourceFile = wire.SourceFile
	// SourceEnv ("env") values are read from an environment variable; Ref
	// names it.
	SourceEnv = wire.SourceEnv
	// SourceCluster ("cluster") values are imported from a cluster Secret;
	// Ref is "secret/key".
	SourceCluster = wire.SourceCluster
)

// DefaultAlphabet (A-Z, a-z and 0-9) is the alphabet of generated secret
// values unless WithAlphabet says otherwise.
const DefaultAlphabet = wire.DefaultAlphabet

// Secret is a handle to a Secret declared by source; use it with
// EnvFromSecret and MountSecret.
type Secret struct {
	name     string
	keys     []string
	external bool   // named by SecretRef
	bad      string // what is wrong with a SecretRef's name
}

// Name returns the Secret's name.
func (s *Secret) Name() string { return s.name }

// Kind returns "Secret".
func (s *Secret) Kind() string { return "Secret" }

// HasKey reports whether the Secret declares key.
func (s *Secret) HasKey(key string) bool { return slices.Contains(s.keys, key) }

// SecretSource says where the value of one key of a Secret comes from. Make
// one with Generated, GeneratedTLS, FromFile, FromEnv or FromCluster. It
// never holds the value itself.
type SecretSource struct {
	info SecretKeyInfo
	err  string
	// more are further keys from the same source (GeneratedTLS's tls.key),
	// added only when the source is valid so its problem is reported once.
	more []SecretKeyInfo
}

func (s SecretSource) applySecret(spec *secretSpec) {
	spec.add(s)
	if s.err == "" {
		for _, info := range s.more {
			spec.add(SecretSource{info: info})
		}
	}
}

// Generated declares a key whose value Piceli generates once, length
// characters of DefaultAlphabet, and keeps across releases.
func Generated(key string, length int) SecretSource {
	s := SecretSource{info: SecretKeyInfo{Key: key, Source: SourceGenerated, Length: length, Alphabet: DefaultAlphabet}}
	if length < 1 || length > 4096 {
		s.err = fmt.Sprintf("length %d out of range 1-4096", length)
	}
	return s
}

// WithAlphabet returns a generated source drawing from the characters of
// alphabet, which needs at least two distinct characters.
func (s SecretSource) WithAlphabet(alphabet string) SecretSource {
	if s.info.Source != SourceGenerated {
		s.err = "an alphabet applies only to a generated value"
		return s
	}
	s.info.Alphabet = alphabet
	if distinctRunes(alphabet) < 2 || !utf8.ValidString(alphabet) {
		s.err = fmt.Sprintf("alphabet %q needs at least two distinct characters", alphabet)
	}
	return s
}

func distinctRunes(s string) int {
	seen := map[rune]bool{}
	for _, r := range s {
		seen[r] = true
	}
	return len(seen)
}

// FromFile declares a key whose value Piceli reads from a file on the
// machine that runs the release; path is relative to release.toml's
// directory. The composition never reads it.
func FromFile(key, path string) SecretSource {
	s := SecretSource{info: SecretKeyInfo{Key: key, Source: SourceFile, Ref: path}}
	if path == "" {
		s.err = "file path is empty"
	}
	return s
}

// FromEnv declares a key whose value Piceli reads from the environment
// variable of the process that runs the release.
func FromEnv(key, variable string) SecretSource {
	s := SecretSource{info: SecretKeyInfo{Key: key, Source: SourceEnv, Ref: variable}}
	if msgs := validation.IsEnvVarName(variable); variable == "" || len(msgs) > 0 {
		s.err = fmt.Sprintf("environment variable %q is not a valid name", variable)
	}
	return s
}

// FromCluster declares a key whose value Piceli imports from key secretKey
// of an existing Secret in the target namespace. Ref is "secret/secretKey".
func FromCluster(key, secret, secretKey string) SecretSource {
	s := SecretSource{info: SecretKeyInfo{Key: key, Source: SourceCluster, Ref: secret + "/" + secretKey}}
	if msg := dnsSubdomain(secret); msg != "" {
		s.err = fmt.Sprintf("cluster secret %q: name must be a %s", secret, msg)
	} else if len(validation.IsConfigMapKey(secretKey)) > 0 {
		s.err = fmt.Sprintf("cluster secret %q: key %q is not a valid key", secret, secretKey)
	}
	return s
}

// secretSpec is what SecretOptions set.
type secretSpec struct {
	common
	keys     []SecretKeyInfo
	metadata secretMetadata
	errs     []string
}

// add adds one key's source, checking the key.
func (spec *secretSpec) add(s SecretSource) {
	key := s.info.Key
	switch {
	case len(validation.IsConfigMapKey(key)) > 0:
		spec.errs = append(spec.errs, fmt.Sprintf("key %q: %s", key, explain("valid key", validation.IsConfigMapKey(key))))
	case s.err != "":
		spec.errs = append(spec.errs, fmt.Sprintf("key %q: %s", key, s.err))
	case slices.ContainsFunc(spec.keys, func(k SecretKeyInfo) bool { return k.Key == key }):
		spec.errs = append(spec.errs, fmt.Sprintf("key %q declared twice", key))
	default:
		spec.keys = append(spec.keys, s.info)
	}
}

// Secret declares a Secret by the sources of its keys, never by value. The
// composition emits a Secret object without data, its keys listed (sorted,
// comma-separated) in the piceli.dev/secret-keys annotation, plus a
// SecretInfo; Piceli fills in the values at release time.
func (a *App) Secret(name string, opts ...SecretOption) *Secret {
	var spec secretSpec
	for _, o := range opts {
		if o != nil {
			o.applySecret(&spec)
		}
	}
	if len(spec.keys) == 0 && len(spec.errs) == 0 {
		spec.errs = append(spec.errs, "no keys (declare them with app.Generated, app.FromFile, app.FromEnv or app.FromCluster)")
	}
	a.reportName("Secret", name, dnsSubdomain)
	a.report("Secret", name, spec.errs)
	keys := secretKeyNames(spec.keys)
	if a.claim("Secret", name) {
		a.add(name, a.secretObject(name, keys, spec), &spec.common)
		a.secrets = append(a.secrets, SecretInfo{Name: name, Keys: spec.keys})
	}
	return &Secret{name: name, keys: keys}
}

// secretObject returns the data-less Secret object.
func (a *App) secretObject(name string, keys []string, spec secretSpec) *corev1.Secret {
	m := meta(name, a.labelsOf(name, &spec.common), spec.annotations)
	if m.Annotations == nil {
		m.Annotations = map[string]string{}
	}
	m.Annotations[AnnotationSecretKeys] = strings.Join(keys, ",")
	s := &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: m,
		Type:       corev1.SecretTypeOpaque,
	}
	spec.metadata.apply(s)
	return s
}

func secretKeyNames(keys []SecretKeyInfo) []string {
	names := make([]string, 0, len(keys))
	for _, k := range keys {
		names = append(names, k.Key)
	}
	slices.Sort(names)
	return names
}
