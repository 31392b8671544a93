package spec

import (
	"fmt"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/pynenc/piceli/internal/signer"
)

// spec validates the decoded tables and builds the Spec.
func (p *parser) spec(abs string, d *decoded) *Spec {
	if d.failed {
		return nil
	}
	s := &Spec{Path: abs, Dir: p.dir, Images: map[string]string{}, Values: map[string]string{}}
	s.Target = p.target(d.target)
	s.Release = p.release(d.release)
	p.images(d.images, s)
	for k, v := range d.values {
		s.Values[k] = v
	}
	s.Checks = p.checks(d.checks, s)
	s.Deploy = p.deploy(d.deploy)
	s.Telemetry = p.telemetry(d.telemetry)
	p.packages(d, s)
	return s
}

// required returns *v, or records that key is missing or empty.
func (p *parser) required(key string, v *string, hint string) string {
	switch {
	case v == nil:
		p.errs.Add(key, "required%s", hint)
		return ""
	case *v == "":
		p.errs.Add(key, "must not be empty%s", hint)
	}
	return *v
}

// path resolves a path written in the spec against the spec's directory.
func (p *parser) path(rel string) string {
	if filepath.IsAbs(rel) {
		return filepath.Clean(rel)
	}
	return filepath.Join(p.dir, rel)
}

// target validates [target].
func (p *parser) target(r rawTarget) Target {
	if !p.md.IsDefined("target") && !p.envTarget {
		p.errs.Add("target", "missing table [target]; name the kubeconfig file, context and namespace")
		return Target{}
	}
	t := Target{
		Kubeconfig: p.kubeconfig(r.Kubeconfig),
		Context:    p.required("target.context", r.Context, "; name a context in the kubeconfig (piceli never uses its current-context)"),
		Namespace:  p.required("target.namespace", r.Namespace, ""),
	}
	p.label("target.namespace", t.Namespace)
	t.Namespaces = p.namespaces(r.Namespaces, t.Namespace)
	return t
}

// namespaces validates target.namespaces: DNS-1123 labels, each listed
// once. It returns them sorted, without the target namespace, which is
// always allowed.
func (p *parser) namespaces(raw []string, target string) []string {
	var out []string
	seen := map[string]bool{}
	for i, ns := range raw {
		key := fmt.Sprintf("target.namespaces[%d]", i)
		switch {
		case ns == "":
			p.errs.Add(key, "must not be empty")
		case seen[ns]:
			p.errs.Add(key, "%q is listed twice", ns)
		case ns != target:
			out = append(out, ns)
		}
		p.label(key, ns)
		seen[ns] = true
	}
	slices.Sort(out)
	return out
}

const kubeconfigHint = "; name a kubeconfig file: piceli never uses $KUBECONFIG or ~/.kube/config"

// kubeconfig validates and resolves target.kubeconfig.
func (p *parser) kubeconfig(v *string) string {
	const key = "target.kubeconfig"
	raw := p.required(key, v, kubeconfigHint)
	switch {
	case raw == "":
		return ""
	case strings.HasPrefix(raw, "~"):
		p.errs.Add(key, "%q: ~ is not expanded; write a path relative to the spec or an absolute path", raw)
		return ""
	case strings.HasPrefix(raw, "$"):
		p.errs.Add(key, "%q: environment variables are not expanded; write the file's path", raw)
		return ""
	}
	abs := p.path(raw)
	if isDefaultKubeconfig(abs) {
		p.errs.Add(key, "%s is the default kubeconfig: piceli never uses it, so that a release cannot reach a cluster by accident; write a kubeconfig file for this release", raw)
		return ""
	}
	return abs
}

// isDefaultKubeconfig reports whether path is $HOME/.kube/config, also
// through symbolic links.
func isDefaultKubeconfig(path string) bool {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return false
	}
	def := filepath.Join(home, ".kube", "config")
	if path == def {
		return true
	}
	a, errA := filepath.EvalSymlinks(path)
	b, errB := filepath.EvalSymlinks(def)
	return errA == nil && errB == nil && a == b
}

var dns1123Label = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// label records that v is not a DNS-1123 label; empty values were reported.
func (p *parser) label(key, v string) {
	if v != "" && (len(v) > 63 || !dns1123Label.MatchString(v)) {
		p.errs.Add(key, "%q must be a DNS-1123 label (lowercase letters, digits and '-', at most 63 characters)", v)
	}
}

var labelValue = regexp.MustCompile(`^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$`)

// release validates [release].
func (p *parser) release(r rawRelease) Release {
	if !p.md.IsDefined("release") {
		p.errs.Add("release", "missing table [release]; name the release and its composition")
		return Release{}
	}
	name := p.required("release.name", r.Name, "")
	p.label("release.name", name)
	rel := Release{
		Name:                name,
		Owner:               p.errs.Optional("release.owner", r.Owner, name),
		FieldManager:        p.errs.Optional("release.field_manager", r.FieldManager, "piceli-"+name),
		Composition:         p.composition(r.Composition),
		StateDir:            p.path(p.errs.Optional("release.state_dir", r.StateDir, DefaultStateDir)),
		State:               p.state(r.State),
		StateNamespace:      p.errs.Optional("release.state_namespace", r.StateNamespace, ""),
		StateSigners:        p.signers(r.StateSigners),
		AllowUnpinnedImages: r.AllowUnpinnedImages,
		RequirePinnedImages: r.RequirePinnedImages,
		Prune:               r.Prune,
		OnFailure:           p.onFailure(r.OnFailure),
		ReadyTimeout:        p.readyTimeout(r.ReadyTimeout),
		Wait:                p.wait(r.Wait),
	}
	p.releaseNames(rel)
	p.label("release.state_namespace", rel.StateNamespace)
	if rel.StateNamespace != "" && rel.State != StateCluster {
		p.errs.Add("release.state_namespace", "is only used with release.state = %q", StateCluster)
	}
	if rel.State == StateCluster && len(rel.StateSigners) == 0 && len(r.StateSigners) == 0 {
		p.noSigners(r.StateSigners)
	}
	if rel.AllowUnpinnedImages && rel.RequirePinnedImages {
		p.errs.Add("release.require_pinned_images", "contradicts release.allow_unpinned_images = true; set only one")
	}
	return rel
}

// signers parses release.state_signers: "ed25519:<base64> NAME" lines,
// each key listed once.
func (p *parser) signers(lines []string) []signer.Signer {
	var out []signer.Signer
	seen := map[string]bool{}
	for i, line := range lines {
		key := fmt.Sprintf("release.state_signers[%d]", i)
		s, err := signer.Parse(line)
		switch {
		case err != nil:
			p.errs.Add(key, "%v (\"piceli state key\" prints this machine's line)", err)
		case seen[s.ID()]:
			p.errs.Add(key, "the key of %q is listed twice", s.Name)
		default:
			out = append(out, s)
		}
		seen[s.ID()] = true
	}
	return out
}

// noSigners reports cluster state without state_signers: on the line of
// the key when it is there and empty, else on the line of state.
func (p *parser) noSigners(v []string) {
	const key, msg = "release.state_signers", "%s with state = %q: list the public keys allowed to sign the shared state; run \"piceli state key\" on each machine or runner that writes it and paste the line it prints"
	if v != nil {
		p.errs.Add(key, msg, "must not be empty", StateCluster)
		return
	}
	p.errs.Errs = append(p.errs.Errs, &Error{File: p.errs.File, Line: p.loc.Line("release.state"), Key: key, Msg: fmt.Sprintf(msg, "required", StateCluster)})
}

// onFailure checks release.on_failure, "stop" by default.
func (p *parser) onFailure(v *string) string {
	got := p.errs.Optional("release.on_failure", v, OnFailureStop)
	if got != OnFailureStop && got != OnFailureCompensate && got != OnFailureRollback {
		p.errs.Add("release.on_failure", "%q: want %q, %q or %q", got, OnFailureStop, OnFailureCompensate, OnFailureRollback)
	}
	return got
}

// state checks release.state. A spec without the key keeps its state
// locally, as every spec did before the key existed; new specs written by
// the scaffold name "cluster".
func (p *parser) state(v *string) string {
	got := p.errs.Optional("release.state", v, StateLocal)
	if got != StateLocal && got != StateCluster {
		p.errs.Add("release.state", "%q: want %q or %q", got, StateCluster, StateLocal)
	}
	return got
}

// wait checks release.wait, "ready" by default.
func (p *parser) wait(v *string) string {
	got := p.errs.Optional("release.wait", v, WaitReady)
	if got != WaitReady && got != WaitNone {
		p.errs.Add("release.wait", "%q: want %q or %q", got, WaitReady, WaitNone)
	}
	return got
}

// duration checks an optional positive Go duration ("90s", "5m").
func (p *parser) duration(key string, v *string) time.Duration {
	if v == nil {
		return 0
	}
	d, err := time.ParseDuration(*v)
	if err != nil || d <= 0 {
		p.errs.Add(key, "%q: want a positive duration such as \"90s\" or \"5m\"", *v)
	}
	return d
}

// MaxReadyTimeout is the longest readiness wait of one wave that
// release.ready_timeout may ask for: a wave still waiting after a day is
// a typo ("876000h" for "8760s"), not a plan.
const MaxReadyTimeout = 24 * time.Hour

// MinReadyTimeout is the shortest readiness wait release.ready_timeout
// may ask for.
const MinReadyTimeout = time.Second

// readyTimeout parses release.ready_timeout, a duration between
// MinReadyTimeout and MaxReadyTimeout; a value out of that range, one too
// large to parse among them, is refused stating the range.
func (p *parser) readyTimeout(v *string) time.Duration {
	const key = "release.ready_timeout"
	if v == nil {
		return 0
	}
	d, err := time.ParseDuration(*v)
	if err != nil || d < MinReadyTimeout || d > MaxReadyTimeout {
		p.errs.Add(key, "%q: want a duration between 1s and 24h (the longest readiness wait of one wave), such as \"90s\" or \"10m\"", *v)
	}
	return d
}

// releaseNames checks the owner (a label value) and the field manager.
func (p *parser) releaseNames(r Release) {
	if r.Owner != "" && (len(r.Owner) > 63 || !labelValue.MatchString(r.Owner)) {
		p.errs.Add("release.owner", "%q must be a Kubernetes label value (letters, digits, '-', '_', '.', at most 63 characters)", r.Owner)
	}
	if len(r.FieldManager) > 128 || strings.ContainsFunc(r.FieldManager, isControlOrSpace) {
		p.errs.Add("release.field_manager", "%q must be at most 128 characters without spaces", r.FieldManager)
	}
}

func isControlOrSpace(r rune) bool { return r <= ' ' || r == 0x7f }

// composition parses release.composition.
func (p *parser) composition(v *string) Composition {
	const key = "release.composition"
	raw := p.required(key, v, `; write "file.go:Func", a .yaml/.yml/.json file or a directory`)
	if raw == "" {
		return Composition{}
	}
	if i := strings.LastIndex(raw, ":"); i > 0 && strings.HasSuffix(raw[:i], ".go") {
		return p.goComposition(raw[:i], raw[i+1:])
	}
	if strings.HasSuffix(raw, ".go") {
		p.errs.Add(key, "%q names no function; write it as %q", raw, raw+":Build")
		return Composition{}
	}
	return p.filesComposition(raw)
}

// goComposition validates "file.go:Func".
func (p *parser) goComposition(file, fn string) Composition {
	if !token.IsIdentifier(fn) {
		p.errs.Add("release.composition", "%q is not a Go function name", fn)
		return Composition{}
	}
	return Composition{Kind: CompositionGo, File: p.path(file), Func: fn}
}

// filesComposition validates a YAML/JSON file or a directory.
func (p *parser) filesComposition(raw string) Composition {
	abs := p.path(raw)
	switch strings.ToLower(filepath.Ext(raw)) {
	case ".yaml", ".yml", ".json":
		return Composition{Kind: CompositionFiles, File: abs}
	}
	if info, err := os.Stat(abs); strings.HasSuffix(raw, "/") || err == nil && info.IsDir() {
		return Composition{Kind: CompositionFiles, File: abs}
	}
	p.errs.Add("release.composition", `%q is neither "file.go:Func", a .yaml/.yml/.json file nor an existing directory`, raw)
	return Composition{}
}

var pinnedImage = regexp.MustCompile(`^[^@\s]+@sha256:[0-9a-f]{64}$`)

// Pinned reports whether an image reference is pinned by digest
// (name@sha256:<64 lowercase hex>): the one rule for [images] and for the
// images a plan finds in its objects.
func Pinned(image string) bool { return pinnedImage.MatchString(image) }

// images validates [images]: references pinned by digest unless allowed
// otherwise, or { build = "NAME" } tables.
func (p *parser) images(images map[string]rawImage, s *Spec) {
	for _, k := range slices.Sorted(maps.Keys(images)) {
		key := "images." + k
		if table, ok := images[k].value.(map[string]any); ok {
			p.imageBuild(key, table, k, s)
			continue
		}
		v, ok := images[k].value.(string)
		if !ok {
			p.errs.Add(key, "wrong type: want string or table, have %s", tomlKindOf(images[k].value))
			continue
		}
		switch {
		case v == "":
			p.errs.Add(key, "must not be empty")
		case !s.Release.AllowUnpinnedImages && !Pinned(v):
			p.errs.Add(key, "%q is not pinned by digest (name@sha256:<64 lowercase hex>); pin it or set release.allow_unpinned_images = true", v)
		}
		s.Images[k] = v
	}
}

// imageBuild validates an [images] table: build (required) and registry.
func (p *parser) imageBuild(key string, table map[string]any, k string, s *Spec) {
	var b ImageBuild
	for _, name := range slices.Sorted(maps.Keys(table)) {
		v, isString := table[name].(string)
		switch {
		case name != "build" && name != "registry":
			p.errs.Add(key+"."+name, "unknown key (known keys: build, registry)")
		case !isString:
			p.errs.Add(key+"."+name, "wrong type: want string, have %s", tomlKindOf(table[name]))
		case v == "":
			p.errs.Add(key+"."+name, "must not be empty")
		case name == "build":
			b.Image = v
		default:
			b.Registry = v
		}
	}
	if _, ok := table["build"]; !ok {
		p.errs.Add(key, "a table here needs build = \"NAME\", an image of build.toml beside the spec")
	}
	if s.Builds == nil {
		s.Builds = map[string]ImageBuild{}
	}
	s.Builds[k] = b
}
