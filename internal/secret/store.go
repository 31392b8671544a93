package secret

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pynenc/piceli/internal/atomicfile"
	"github.com/pynenc/piceli/internal/statedir"
)

// KeepVersions is the retention rule's count: retention.PruneSecrets keeps
// the 10 newest versions of a secret plus every version a release revision
// still uses.
const KeepVersions = 10

// fileSchema identifies the format of a version file.
const fileSchema = "piceli.secret-version/v1"

// Store keeps secret versions under a state directory, owner-only: the
// directory secrets/ and each secret's directory are 0700, and each version
// is a 0600 file secrets/<name>/<NNNNNN>.json replaced atomically. It holds
// the only copy of values Piceli writes to disk.
type Store struct {
	dir string
}

// Open returns the store under stateDir, creating stateDir/secrets owner-only
// or making an existing one owner-only.
func Open(stateDir string) (*Store, error) {
	dir := statedir.Path(stateDir, statedir.Secrets)
	if err := atomicfile.MkdirPrivate(dir); err != nil {
		return nil, fmt.Errorf("open secret store: %w", err)
	}
	return &Store{dir: dir}, nil
}

// View returns the store of stateDir for reading only: nothing is created,
// and a missing store holds no versions. Resolve with DryRun on it writes
// nothing, as "release diff" requires.
func View(stateDir string) *Store { return &Store{dir: statedir.Path(stateDir, statedir.Secrets)} }

// Names returns the secrets that have versions in the store, sorted:
// directories named like a secret (not symlinks).
func (s *Store) Names() ([]string, error) {
	names, err := statedir.List(s.dir, statedir.Dirs, func(name string) bool { return checkName(name) == nil })
	if err != nil {
		return nil, fmt.Errorf("read secret store: %w", err)
	}
	return names, nil
}

// Dir returns the store's directory, stateDir/secrets.
func (s *Store) Dir() string { return s.dir }

// Versions returns the version numbers stored for the secret name in
// ascending order; none (and no error) when it has none.
func (s *Store) Versions(name string) ([]int, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	names, err := statedir.List(filepath.Join(s.dir, name), statedir.Files, func(f string) bool {
		_, ok := versionNumber(f)
		return ok
	})
	if err != nil {
		return nil, fmt.Errorf("list versions of secret %q: %w", name, err)
	}
	var nums []int
	for _, f := range names {
		n, _ := versionNumber(f)
		nums = append(nums, n)
	}
	slices.Sort(nums)
	return nums, nil
}

// Latest returns the newest version of the secret name, or nil and no
// error when it has none.
func (s *Store) Latest(name string) (*Version, error) {
	nums, err := s.Versions(name)
	if err != nil || len(nums) == 0 {
		return nil, err
	}
	return s.Load(name, nums[len(nums)-1])
}

// Load returns version n of the secret name. A version that does not exist
// is an error matching fs.ErrNotExist.
func (s *Store) Load(name string, n int) (*Version, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	data, err := statedir.ReadFile(s.path(name, n))
	if err != nil {
		return nil, fmt.Errorf("load secret %q version %d: %w", name, n, err)
	}
	v, err := decode(data)
	if err == nil && (v.Secret != name || v.Number != n) {
		err = errors.New("file holds another secret or version") // its fields are not quoted: the file may be corrupt
	}
	if err != nil {
		return nil, fmt.Errorf("load secret %q version %d: %w", name, n, err)
	}
	return v, nil
}

// Prune deletes the versions of the secret name older than its newest keep
// that pinned does not hold, and returns their numbers in ascending order.
// A keep below 1 counts as 1: the latest version always survives. The
// retention rule (retention.PruneSecrets) is keep = KeepVersions with
// pinned = every version a release revision still uses.
func (s *Store) Prune(name string, keep int, pinned map[int]bool) ([]int, error) {
	nums, err := s.Versions(name)
	if err != nil {
		return nil, err
	}
	keep = max(keep, 1)
	var deleted []int
	for _, n := range nums[:max(len(nums)-keep, 0)] {
		if pinned[n] {
			continue
		}
		if err := os.Remove(s.path(name, n)); err != nil {
			return deleted, fmt.Errorf("prune secret %q version %d: %w", name, n, err)
		}
		deleted = append(deleted, n)
	}
	if len(deleted) == 0 {
		return nil, nil
	}
	return deleted, atomicfile.SyncDir(filepath.Join(s.dir, name))
}

// Save writes v, a version Resolve returned with DryRun, as a new version;
// an existing version is never replaced. Callers resolve first and save
// once the work that uses the version is accepted, so bad input leaves the
// store unchanged.
func (s *Store) Save(v *Version) error { return s.save(v) }

// save writes v as a new version; an existing version is never replaced.
func (s *Store) save(v *Version) error {
	if err := checkName(v.Secret); err != nil {
		return err
	}
	if err := atomicfile.MkdirPrivate(filepath.Join(s.dir, v.Secret)); err != nil {
		return fmt.Errorf("save secret %q version %d: %w", v.Secret, v.Number, err)
	}
	p := s.path(v.Secret, v.Number)
	if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("save secret %q version %d: version exists", v.Secret, v.Number)
	}
	if err := atomicfile.Write(p, encode(v), 0o600); err != nil {
		return fmt.Errorf("save secret %q version %d: %w", v.Secret, v.Number, err)
	}
	return nil
}

func (s *Store) path(name string, n int) string {
	return filepath.Join(s.dir, name, fmt.Sprintf("%06d.json", n))
}

// versionNumber parses a version file name, NNNNNN.json.
func versionNumber(file string) (int, bool) {
	digits, ok := strings.CutSuffix(file, ".json")
	if !ok || len(digits) != 6 {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	return n, err == nil && n > 0
}

// checkName refuses a secret name that is not a DNS-1123 subdomain's
// characters, so it is always one directory inside the store.
func checkName(name string) error {
	ok := name != "" && len(name) <= 253 && name != "." && name != ".."
	for _, r := range name {
		ok = ok && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.')
	}
	if !ok {
		return sourceErr(name, "", errors.New("name is not a DNS-1123 subdomain"))
	}
	return nil
}

// versionFile is a Version as stored: values base64-encoded by
// encoding/json.
type versionFile struct {
	Schema  string    `json:"schema"`
	Secret  string    `json:"secret"`
	Number  int       `json:"number"`
	Created time.Time `json:"created"`
	Keys    []keyFile `json:"keys"`
}

type keyFile struct {
	Key         string `json:"key"`
	Fingerprint string `json:"fingerprint"`
	Value       []byte `json:"value"`
}

func encode(v *Version) []byte {
	f := versionFile{Schema: fileSchema, Secret: v.Secret, Number: v.Number, Created: v.Created}
	for _, k := range v.Keys {
		f.Keys = append(f.Keys, keyFile{Key: k.Key, Fingerprint: k.Fingerprint, Value: v.values[k.Key]})
	}
	data, _ := json.MarshalIndent(f, "", "  ") // cannot fail: plain types
	return append(data, '\n')
}

// decode parses a version file. Its errors never quote the file's content,
// which holds values.
func decode(data []byte) (*Version, error) {
	var f versionFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, errors.New("malformed version file")
	}
	if f.Schema != fileSchema {
		return nil, errors.New("not a " + fileSchema + " file")
	}
	v := &Version{Secret: f.Secret, Number: f.Number, Created: f.Created, values: map[string][]byte{}}
	for _, k := range f.Keys {
		v.Keys = append(v.Keys, KeyVersion{Key: k.Key, Fingerprint: k.Fingerprint})
		v.values[k.Key] = k.Value
	}
	return v, nil
}
