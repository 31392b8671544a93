package artifact

import (
	"errors"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/pynenc/piceli/internal/inputfile"
	"github.com/pynenc/piceli/internal/specerr"
	"github.com/pynenc/piceli/refusal"
)

type rawSpec struct {
	Build rawBuild            `toml:"build"`
	Base  map[string]rawBase  `toml:"base"`
	Image map[string]rawImage `toml:"image"`
}

type rawBuild struct {
	Layout   *string `toml:"layout"`
	Lock     *string `toml:"lock"`
	Registry *string `toml:"registry"`
	Epoch    *int64  `toml:"epoch"`
}

type rawBase struct {
	Layout *string    `toml:"layout"`
	Ref    *string    `toml:"ref"`
	Files  []rawEntry `toml:"files"`
}

type rawEntry struct {
	Src *string `toml:"src"`
	Dst *string `toml:"dst"`
}

type rawImage struct {
	Repository *string           `toml:"repository"`
	Bases      []string          `toml:"bases"`
	Go         *string           `toml:"go"`
	Files      []rawEntry        `toml:"files"`
	Entrypoint []string          `toml:"entrypoint"`
	Cmd        []string          `toml:"cmd"`
	User       *string           `toml:"user"`
	Workdir    *string           `toml:"workdir"`
	Env        map[string]string `toml:"env"`
	Ports      []int             `toml:"ports"`
	Labels     map[string]string `toml:"labels"`
}

// knownBuildKeys lists the keys each table of build.toml accepts.
var knownBuildKeys = map[string]string{
	"":              "build, base, image",
	"build":         "layout, lock, registry, epoch",
	"base.*":        "layout, ref, files",
	"image.*":       "repository, bases, go, files, entrypoint, cmd, user, workdir, env, ports, labels",
	"base.*.files":  "src, dst",
	"image.*.files": "src, dst",
}

// LoadSpec reads and validates the build.toml at path. Problems with its
// content are *SpecError values (joined when there are several) naming the
// file as given, the line and the key. It reads nothing but the file.
func LoadSpec(path string) (*Spec, error) {
	data, err := inputfile.Read(path, inputfile.SpecLimit)
	if err != nil {
		return nil, refusal.Errorf("load build spec: %w", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("load build spec %s: %w", path, err)
	}
	var raw rawSpec
	md, err := toml.Decode(string(data), &raw)
	if err != nil {
		return nil, decodeError(path, err)
	}
	p := &specParser{dir: filepath.Dir(abs), errs: specerr.List{File: path, Lines: scanKeyLines(string(data))}}
	p.unknown(md.Undecoded())
	s := p.spec(abs, &raw)
	if err := p.errs.Err(); err != nil {
		return nil, err
	}
	return s, nil
}

var decodeLineRE = regexp.MustCompile(`^toml: line (\d+)`)

// decodeError reports TOML the parser or decoder rejected, with its line.
func decodeError(file string, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return &SpecError{File: file, Line: pe.Position.Line, Key: pe.LastKey, Msg: "invalid TOML: " + pe.Message}
	}
	msg := strings.TrimPrefix(err.Error(), "toml: ")
	line := 0
	if m := decodeLineRE.FindStringSubmatch(err.Error()); m != nil {
		fmt.Sscan(m[1], &line)
		msg = strings.TrimSpace(strings.TrimPrefix(err.Error(), m[0]))
	}
	return &SpecError{File: file, Line: line, Msg: "wrong type: " + msg}
}

type specParser struct {
	dir  string
	errs specerr.List
}

// unknown records each key build.toml does not know.
func (p *specParser) unknown(keys []toml.Key) {
	for _, k := range keys {
		generic := slices.Clone([]string(k[:len(k)-1]))
		if len(generic) >= 2 && (generic[0] == "base" || generic[0] == "image") {
			generic[1] = "*"
		}
		hint := ""
		if known, ok := knownBuildKeys[strings.Join(generic, ".")]; ok {
			hint = " (known keys: " + known + ")"
		}
		p.errs.Add(k.String(), "unknown key%s", hint)
	}
}

var nameRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

func (p *specParser) spec(abs string, r *rawSpec) *Spec {
	s := &Spec{
		Path: abs, Dir: p.dir,
		Layout:   p.path(p.errs.Optional("build.layout", r.Build.Layout, DefaultLayout)),
		Lock:     p.path(p.errs.Optional("build.lock", r.Build.Lock, DefaultLock)),
		Registry: p.errs.Optional("build.registry", r.Build.Registry, DefaultRegistry),
		Epoch:    time.Unix(0, 0).UTC(),
		Bases:    map[string]*Base{},
		Images:   map[string]*Image{},
	}
	if r.Build.Epoch != nil {
		if *r.Build.Epoch < 0 {
			p.errs.Add("build.epoch", "%d: want seconds since 1970, not negative", *r.Build.Epoch)
		}
		s.Epoch = time.Unix(*r.Build.Epoch, 0).UTC()
	}
	for _, name := range slices.Sorted(maps.Keys(r.Base)) {
		s.Bases[name] = p.base(name, r.Base[name])
	}
	for _, name := range slices.Sorted(maps.Keys(r.Image)) {
		s.Images[name] = p.image(name, r.Image[name], s.Bases)
	}
	if len(s.Images) == 0 {
		p.errs.Add("image", "no images: declare at least one [image.NAME]")
	}
	return s
}

func (p *specParser) path(rel string) string {
	if filepath.IsAbs(rel) {
		return filepath.Clean(rel)
	}
	return filepath.Join(p.dir, rel)
}

func (p *specParser) name(key, name string) {
	if len(name) > 63 || !nameRE.MatchString(name) {
		p.errs.Add(key, "%q must be lowercase letters, digits and '-' (at most 63 characters)", name)
	}
}

func (p *specParser) base(name string, r rawBase) *Base {
	key := "base." + name
	p.name(key, name)
	b := &Base{Name: name, Files: p.entries(key+".files", r.Files)}
	switch {
	case r.Layout != nil && len(r.Files) > 0:
		p.errs.Add(key, "set either layout (an OCI layout) or files, not both")
	case r.Layout != nil:
		b.Layout = p.path(p.errs.Optional(key+".layout", r.Layout, "."))
		b.Ref = p.errs.Optional(key+".ref", r.Ref, "")
		if r.Ref == nil {
			p.errs.Add(key+".ref", "required with layout: the image's ref name in that layout or its manifest digest")
		}
	case len(r.Files) == 0:
		p.errs.Add(key, "empty base: set layout (a local OCI layout) or files")
	case r.Ref != nil:
		p.errs.Add(key+".ref", "only a layout base has a ref")
	}
	return b
}

// entries validates files = [{ src, dst }].
func (p *specParser) entries(key string, raw []rawEntry) []Entry {
	var out []Entry
	for i, r := range raw {
		k := fmt.Sprintf("%s[%d]", key, i)
		switch {
		case r.Src == nil || *r.Src == "":
			p.errs.Add(k+".src", "required: a file or directory on this machine")
		case r.Dst == nil || !strings.HasPrefix(*r.Dst, "/"):
			p.errs.Add(k+".dst", "required: an absolute path in the image")
		case path.Clean(*r.Dst) == "/":
			p.errs.Add(k+".dst", "must name a path below /")
		default:
			out = append(out, Entry{Src: p.path(*r.Src), Dst: path.Clean(*r.Dst), Key: k})
		}
	}
	return out
}

func (p *specParser) image(name string, r rawImage, bases map[string]*Base) *Image {
	key := "image." + name
	p.name(key, name)
	im := &Image{
		Name:       name,
		Repository: p.errs.Optional(key+".repository", r.Repository, name),
		Bases:      r.Bases,
		Files:      p.entries(key+".files", r.Files),
		Entrypoint: r.Entrypoint,
		Cmd:        r.Cmd,
		User:       p.errs.Optional(key+".user", r.User, DefaultUser),
		Workdir:    p.errs.Optional(key+".workdir", r.Workdir, "/"),
		Env:        r.Env,
		Ports:      r.Ports,
		Labels:     r.Labels,
	}
	p.repository(key+".repository", im.Repository)
	for i, b := range r.Bases {
		if bases[b] == nil {
			p.errs.Add(fmt.Sprintf("%s.bases[%d]", key, i), "%q is not a [base.NAME] of this file", b)
		}
	}
	if r.Go != nil {
		im.Go = p.path(p.errs.Optional(key+".go", r.Go, "."))
		if len(im.Entrypoint) == 0 {
			im.Entrypoint = []string{im.BinaryPath()}
		}
	}
	if im.Go == "" && len(im.Files) == 0 && len(im.Bases) == 0 {
		p.errs.Add(key, "empty image: set go, files or bases")
	}
	if !strings.HasPrefix(im.Workdir, "/") {
		p.errs.Add(key+".workdir", "%q must be an absolute path", im.Workdir)
	}
	for i, port := range r.Ports {
		if port < 1 || port > 65535 {
			p.errs.Add(fmt.Sprintf("%s.ports[%d]", key, i), "%d is not a port (1-65535)", port)
		}
	}
	return im
}

var repositoryRE = regexp.MustCompile(`^[a-z0-9]+(?:[._-][a-z0-9]+)*(?:/[a-z0-9]+(?:[._-][a-z0-9]+)*)*$`)

func (p *specParser) repository(key, repo string) {
	if !repositoryRE.MatchString(repo) {
		p.errs.Add(key, "%q is not a repository path (lowercase path components such as \"shop/api\", no registry host)", repo)
	}
}
