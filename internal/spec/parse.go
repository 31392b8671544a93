package spec

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/pynenc/piceli/internal/inputfile"
	"github.com/pynenc/piceli/internal/specerr"
)

// MaxFileSize bounds release.toml; a larger file is refused before it is
// parsed (a 36 MiB one took 20 seconds and 1.2 GB to parse).
const MaxFileSize = 1 << 20

// Load reads and validates the release.toml at path. Errors about the
// content are *Error values (joined when there are several) naming path as
// given, the line and the key; so is a file larger than MaxFileSize.
func Load(path string) (*Spec, error) { return LoadEnv(path, "") }

// LoadEnv is Load resolving the environment env (ParseEnv).
func LoadEnv(path, env string) (*Spec, error) {
	f, err := inputfile.Open(path, inputfile.Options{})
	if err != nil {
		return nil, fmt.Errorf("load release spec: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("load release spec: %w", err)
	}
	if len(data) > MaxFileSize {
		return nil, &Error{File: path, Msg: fmt.Sprintf("file is larger than %d MiB", MaxFileSize>>20)}
	}
	return ParseEnv(path, data, env)
}

// Parse validates data as the release.toml at path. Relative paths in it
// resolve against the directory of path; path itself is not read. It reads
// no environment variable except the home directory, to refuse the default
// kubeconfig.
func Parse(path string, data []byte) (*Spec, error) { return ParseEnv(path, data, "") }

// ParseEnv is Parse resolving the environment env: when the file declares
// [environments], env must name one of them and the result is an ordinary
// spec, the environment's overrides laid over the top-level tables, its
// Environment set; when it declares none, env must be empty. Every
// environment is validated whichever env asks for.
func ParseEnv(path string, data []byte, env string) (*Spec, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("load release spec %s: %w", path, err)
	}
	var raw rawFile
	md, err := toml.Decode(string(data), &raw)
	if err != nil && len(md.Keys()) == 0 {
		return nil, syntaxError(path, err)
	}
	loc := locate(string(data))
	p := &parser{dir: filepath.Dir(abs), md: md, loc: loc, errs: specerr.List{File: path, Lines: loc}}
	if p.typeErrors(string(data)) {
		return nil, p.errs.Err()
	}
	if err != nil {
		return nil, p.typeError(err, keepKey)
	}
	d := p.decode(&raw)
	if d.failed {
		return nil, p.errs.Err()
	}
	s := p.resolve(abs, d, env)
	if err := p.errs.Err(); err != nil {
		return nil, err
	}
	return s, nil
}

// parser holds what validating one file needs.
type parser struct {
	dir  string // the spec's directory, absolute
	md   toml.MetaData
	loc  *locator
	errs specerr.List
	// envTarget says an environment being resolved sets its own target,
	// so the top level may leave out [target].
	envTarget bool
}

// decoded is release.toml decoded into its raw, unvalidated form.
type decoded struct {
	target         rawTarget
	release        rawRelease
	images         map[string]rawImage
	values         map[string]string
	checks         []rawCheck
	deploy         rawDeploy
	telemetry      rawTelemetry
	charts         []rawChart
	kustomizations []rawKustomization
	// environments are the [environments.<name>] tables, by name.
	environments map[string]rawEnvironment
	failed       bool // a type error was recorded
}

// decode decodes each table, recording type errors and, when there are
// none, unknown keys.
func (p *parser) decode(raw *rawFile) *decoded {
	d := &decoded{checks: make([]rawCheck, len(raw.Checks))}
	p.table("target", raw.Target, &d.target, d)
	p.table("release", raw.Release, &d.release, d)
	p.table("images", raw.Images, &d.images, d)
	p.table("values", raw.Values, &d.values, d)
	p.table("deploy", raw.Deploy, &d.deploy, d)
	p.table("telemetry", raw.Telemetry, &d.telemetry, d)
	p.table(environmentsKey, raw.Environments, &d.environments, d)
	for i, prim := range raw.Checks {
		p.primitive(prim, &d.checks[i], indexKey("checks", i), d)
	}
	p.decodePackages(raw.Charts, raw.Kustomizations, d)
	if !d.failed {
		p.unknownKeys()
	}
	return d
}

// table decodes one top-level table when the file defines it.
func (p *parser) table(name string, prim toml.Primitive, v any, d *decoded) {
	if p.md.IsDefined(name) {
		p.primitive(prim, v, keepKey, d)
	}
}

// primitive decodes prim into v; rename maps the key of a type error to
// its indexed path.
func (p *parser) primitive(prim toml.Primitive, v any, rename func(string) string, d *decoded) {
	if err := p.md.PrimitiveDecode(prim, v); err != nil {
		p.errs.Errs = append(p.errs.Errs, p.typeError(err, rename))
		d.failed = true
	}
}

// keepKey is the identity rename.
func keepKey(key string) string { return key }

// indexKey renames keys under array to keys under its i-th element.
func indexKey(array string, i int) func(string) string {
	return func(key string) string {
		if key == array || strings.HasPrefix(key, array+".") {
			return fmt.Sprintf("%s[%d]%s", array, i, key[len(array):])
		}
		return key
	}
}

// unknownKeys records every key the spec does not know, once per table:
// the keys inside an unknown table are not repeated.
func (p *parser) unknownKeys() {
	undecoded := p.md.Undecoded()
	unknown := map[string]bool{}
	for _, k := range undecoded {
		unknown[strings.Join(k, ".")] = true
	}
	seen := map[string]int{}
	for _, k := range undecoded {
		plain := strings.Join(k, ".")
		if freeForm(k) {
			continue
		}
		n := seen[plain]
		seen[plain]++
		if unknown[strings.Join(k[:len(k)-1], ".")] {
			continue
		}
		p.errs.Add(p.loc.indexed(plain, n), "unknown key%s", knownHint(k))
	}
}

// knownHint lists the keys accepted where k was found.
func knownHint(k toml.Key) string {
	table := slices.Clone(k[:len(k)-1])
	if len(table) > 1 && table[0] == environmentsKey {
		table[1] = "*" // every environment accepts the same keys
	}
	parent := strings.Join(table, ".")
	if known, ok := knownKeys[parent]; ok {
		return " (known keys: " + known + ")"
	}
	if known, ok := packageKeys[parent]; ok {
		return " (known keys: " + known + ")"
	}
	return ""
}
