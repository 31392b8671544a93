package source

import (
	"maps"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/pynenc/piceli/api/v1alpha1"
)

// The default bounds of Options.
const (
	DefaultMaxBytes = 64 << 20
	DefaultMaxFiles = 10000
)

// Options bound what a Source reads and say how it reaches registries.
// The zero value is valid.
type Options struct {
	// MaxBytes bounds what one Fetch reads: for OCI every response from
	// the registry and the artifact's blobs in all; for Git the pack a
	// clone receives (four times that once unpacked in memory) and the
	// files written, in all. Zero means DefaultMaxBytes.
	MaxBytes int64
	// MaxFiles bounds the files one Git Fetch writes. Zero means
	// DefaultMaxFiles.
	MaxFiles int
	// Transport carries the HTTP requests to an OCI registry; nil means
	// go-containerregistry's default (proxies from the environment).
	// Plain HTTP goes out only when the Release sets insecure.
	Transport http.RoundTripper
}

func (o Options) withDefaults() Options {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxFiles <= 0 {
		o.MaxFiles = DefaultMaxFiles
	}
	return o
}

var (
	digestRE = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
	commitRE = regexp.MustCompile(`^[0-9a-f]{40}$`)
)

// New checks src and returns the Source it names; creds are the data of
// the Secret its secretRef names (nil when it names none). A source that
// cannot be used as written is a *SpecError naming the field.
func New(src v1alpha1.Source, creds Credentials, opts Options) (Source, error) {
	opts = opts.withDefaults()
	switch {
	case src.OCI != nil && src.Git != nil:
		return nil, &SpecError{Field: "spec.source", Reason: "set exactly one of oci and git, not both"}
	case src.OCI != nil:
		return newOCI(*src.OCI, creds, opts)
	case src.Git != nil:
		return newGit(*src.Git, creds, opts)
	}
	return nil, &SpecError{Field: "spec.source", Reason: "set exactly one of oci and git"}
}

// oneSelector checks that exactly one of the named selectors is set and
// returns its name.
func oneSelector(prefix string, sel map[string]string) (string, error) {
	var set []string
	for _, k := range sortedKeys(sel) {
		if sel[k] != "" {
			set = append(set, k)
		}
	}
	if len(set) != 1 {
		return "", &SpecError{Field: prefix, Reason: "set exactly one of " + strings.Join(sortedKeys(sel), ", ") + selectorsSet(set)}
	}
	return set[0], nil
}

func selectorsSet(set []string) string {
	if len(set) == 0 {
		return " (none is set)"
	}
	return " (" + strings.Join(set, " and ") + " are set)"
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }

// parseOCIURL reads oci://HOST[:PORT]/REPOSITORY into a repository.
func parseOCIURL(raw string, insecure bool) (name.Repository, error) {
	const field = "spec.source.oci.url"
	rest, ok := strings.CutPrefix(raw, "oci://")
	if !ok {
		return name.Repository{}, &SpecError{Field: field, Reason: "want oci://HOST[:PORT]/REPOSITORY"}
	}
	host, _, _ := strings.Cut(rest, "/")
	if strings.Contains(host, "@") {
		return name.Repository{}, &SpecError{Field: field, Reason: "the URL carries credentials; put them in the Secret secretRef names"}
	}
	if !strings.Contains(rest, "/") || strings.ContainsAny(rest, "@?#") || strings.Contains(path.Base(rest), ":") {
		return name.Repository{}, &SpecError{Field: field, Reason: "want oci://HOST[:PORT]/REPOSITORY, without a tag or digest (set tag, semver or digest)"}
	}
	opts := []name.Option{name.StrictValidation}
	if insecure {
		opts = append(opts, name.Insecure)
	}
	repo, err := name.NewRepository(rest, opts...)
	if err != nil || repo.RegistryStr() != host && !(isDockerHub(host) && isDockerHub(repo.RegistryStr())) {
		return name.Repository{}, &SpecError{Field: field, Reason: "want oci://HOST[:PORT]/REPOSITORY with a lowercase repository name"}
	}
	return repo, nil
}

// checkGitURL checks a Git URL and says whether it is SSH.
func checkGitURL(raw string) (ssh bool, err error) {
	const field = "spec.source.git.url"
	if scpLike(raw) {
		if strings.Contains(strings.SplitN(raw, "@", 2)[0], ":") {
			return false, &SpecError{Field: field, Reason: "the URL carries a password; put credentials in the Secret secretRef names"}
		}
		return true, nil
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return false, &SpecError{Field: field, Reason: "want http://, https:// or ssh://HOST/PATH (or USER@HOST:PATH)"}
	}
	switch u.Scheme {
	case "http", "https":
		if u.User != nil {
			return false, &SpecError{Field: field, Reason: "the URL carries credentials; put them in the Secret secretRef names"}
		}
		return false, nil
	case "ssh":
		if _, has := u.User.Password(); has {
			return false, &SpecError{Field: field, Reason: "the URL carries a password; put credentials in the Secret secretRef names"}
		}
		return true, nil
	}
	return false, &SpecError{Field: field, Reason: "scheme " + u.Scheme + " is not supported: want http, https or ssh"}
}

// scpLike is USER@HOST:PATH, the short SSH form.
func scpLike(raw string) bool {
	if strings.Contains(raw, "://") {
		return false
	}
	at := strings.Index(raw, "@")
	colon := strings.LastIndex(raw, ":")
	return at > 0 && colon > at+1 && !strings.ContainsAny(raw[:at], "/")
}

// checkGitPath checks that p is a clean relative path inside the
// repository and returns it ("" for the root).
func checkGitPath(p string) (string, error) {
	const field = "spec.source.git.path"
	if p == "" || p == "." {
		return "", nil
	}
	bad := func(reason string) (string, error) { return "", &SpecError{Field: field, Reason: reason} }
	switch {
	case strings.ContainsAny(p, "\\\x00"):
		return bad("a path holds no backslash or NUL")
	case path.IsAbs(p):
		return bad("want a path relative to the repository's root, not an absolute one")
	case path.Clean(p) != p:
		return bad("want a clean path (no ./, //, or trailing /)")
	}
	for _, el := range strings.Split(p, "/") {
		if el == ".." {
			return bad("a path may not climb out with ..")
		}
	}
	return p, nil
}
