package controller

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/pynenc/piceli/api/v1alpha1"
	"github.com/pynenc/piceli/controller/source"
	"github.com/pynenc/piceli/internal/atomicfile"
)

// workspace is one Release's directory under Options.WorkDir: the release
// spec the controller writes for it, its state cache and its fetched
// revisions. Everything in it can be rebuilt from the Release, the source
// and the cluster's shared state.
type workspace struct {
	dir string
}

// workspaceOf is the directory of the Release namespace/name under root.
// The API server only accepts DNS names for both, but they are checked
// again here, since they become a path.
func workspaceOf(root, namespace, name string) (workspace, error) {
	for _, part := range []string{namespace, name} {
		if errs := validation.IsDNS1123Subdomain(part); len(errs) > 0 || strings.ContainsAny(part, `/\`) {
			return workspace{}, fmt.Errorf("%q cannot name a directory: %s", part, strings.Join(errs, "; "))
		}
	}
	return workspace{dir: filepath.Join(root, "releases", namespace, name)}, nil
}

// remove deletes everything kept for a Release that is gone: its spec,
// its state cache (the state itself is in the cluster) and its fetched
// revision.
func (w workspace) remove() error { return os.RemoveAll(w.dir) }

func (w workspace) specPath() string  { return filepath.Join(w.dir, "release.toml") }
func (w workspace) stateDir() string  { return filepath.Join(w.dir, "state") }
func (w workspace) revisions() string { return filepath.Join(w.dir, "revisions") }

// revisionDir is where a fetched revision lives: its ID with ':' made '-'
// (IDs are hex digests or commits, checked by the source).
func (w workspace) revisionDir(rev source.Revision) (string, error) {
	id := strings.ReplaceAll(rev.ID, ":", "-")
	if id == "" || strings.Trim(id, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
		return "", fmt.Errorf("revision %q is not a digest or a commit", rev.ID)
	}
	return filepath.Join(w.revisions(), id), nil
}

// fetch returns the content of rev, fetching it once: into a temporary
// directory renamed into place, so a half-written revision is never used.
// Other revisions of the Release are removed, but for those keep names
// (by ID).
func (w workspace) fetch(ctx context.Context, src source.Source, rev source.Revision, keep ...string) (*source.Content, error) {
	dir, err := w.revisionDir(rev)
	if err != nil {
		return nil, err
	}
	if c, ok := cached(dir, rev); ok {
		return c, nil
	}
	if err := os.MkdirAll(w.revisions(), 0o700); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(w.revisions(), ".fetch-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	c, err := src.Fetch(ctx, rev, tmp)
	if err != nil {
		return nil, err
	}
	if (c.Artifact != "" && c.Artifact != tmp) || (c.Files != "" && c.Files != tmp) {
		return nil, fmt.Errorf("source wrote revision %s outside the directory it was given", rev)
	}
	w.prune(keep)
	if err := os.Rename(tmp, dir); err != nil {
		return nil, err
	}
	if c, ok := cached(dir, rev); ok {
		return c, nil
	}
	return nil, fmt.Errorf("revision %s vanished from %s", rev, dir)
}

// cached reads back a fetched revision: a directory with an oci-layout
// file is a published release, any other is a directory of manifests.
func cached(dir string, rev source.Revision) (*source.Content, bool) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, false
	}
	if _, err := os.Stat(filepath.Join(dir, "oci-layout")); err == nil {
		return &source.Content{Revision: rev, Artifact: dir}, true
	}
	return &source.Content{Revision: rev, Files: dir}, true
}

// prune removes fetched revisions but those of the IDs keep; the one
// being fetched is renamed in after it.
func (w workspace) prune(keep []string) {
	kept := map[string]bool{}
	for _, id := range keep {
		kept[strings.ReplaceAll(id, ":", "-")] = true
	}
	entries, _ := os.ReadDir(w.revisions())
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".fetch-") && !kept[e.Name()] {
			_ = os.RemoveAll(filepath.Join(w.revisions(), e.Name()))
		}
	}
}

// releaseFile is the release.toml the controller writes for a Release.
type releaseFile struct {
	Target  targetTable  `toml:"target"`
	Release releaseTable `toml:"release"`
	Checks  []checkTable `toml:"checks,omitempty"`
}

type checkTable struct {
	Name    string     `toml:"name"`
	Timeout string     `toml:"timeout,omitempty"`
	Retries *int32     `toml:"retries,omitempty"`
	HTTP    *httpTable `toml:"http,omitempty"`
	TCP     *tcpTable  `toml:"tcp,omitempty"`
}

type httpTable struct {
	Service      string `toml:"service"`
	Port         int32  `toml:"port"`
	Path         string `toml:"path,omitempty"`
	ExpectStatus int32  `toml:"expect_status,omitzero"`
	BodyContains string `toml:"body_contains,omitempty"`
}

type tcpTable struct {
	Service string `toml:"service"`
	Port    int32  `toml:"port"`
}

// checksOf writes the Release's checks as release.toml's [[checks]]; the
// spec's parser then validates them as it does any release.toml's.
func checksOf(rel *v1alpha1.Release) []checkTable {
	var out []checkTable
	for _, c := range rel.Spec.Checks {
		t := checkTable{Name: c.Name, Timeout: c.Timeout, Retries: c.Retries}
		if c.HTTP != nil {
			t.HTTP = &httpTable{Service: c.HTTP.Service, Port: c.HTTP.Port, Path: c.HTTP.Path, ExpectStatus: c.HTTP.ExpectStatus, BodyContains: c.HTTP.BodyContains}
		}
		if c.TCP != nil {
			t.TCP = &tcpTable{Service: c.TCP.Service, Port: c.TCP.Port}
		}
		out = append(out, t)
	}
	return out
}

type targetTable struct {
	Kubeconfig string `toml:"kubeconfig"`
	Context    string `toml:"context"`
	Namespace  string `toml:"namespace"`
}

type releaseTable struct {
	Name         string   `toml:"name"`
	Composition  string   `toml:"composition"`
	StateDir     string   `toml:"state_dir"`
	State        string   `toml:"state"`
	StateSigners []string `toml:"state_signers"`
	Prune        bool     `toml:"prune,omitempty"`
	OnFailure    string   `toml:"on_failure,omitempty"`
	ReadyTimeout string   `toml:"ready_timeout,omitempty"`
}

// writeSpec writes the release spec of rel for content c: the target is
// the controller's cluster and rel's target namespace, the state is shared
// in that cluster and signed by the controller (signer) besides the
// signers rel trusts. Every string is written by the TOML encoder, so
// nothing from the Release can add a key.
func (w workspace) writeSpec(o Options, rel *v1alpha1.Release, c *source.Content, signer string) (string, error) {
	composition := c.Files
	if c.Artifact != "" {
		composition = c.Artifact // a directory; the artifact replaces it
	}
	f := releaseFile{
		Target: targetTable{Kubeconfig: o.Kubeconfig, Context: o.Context, Namespace: targetNamespace(rel)},
		Release: releaseTable{
			Name: releaseName(rel), Composition: composition, StateDir: w.stateDir(), State: "cluster",
			StateSigners: append([]string{signer}, rel.Spec.StateSigners...), Prune: rel.Spec.Prune,
			OnFailure: rel.Spec.OnFailure, ReadyTimeout: durationOf(rel.Spec.ReadyTimeout.Duration),
		},
		Checks: checksOf(rel),
	}
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(f); err != nil {
		return "", err
	}
	if err := os.MkdirAll(w.dir, 0o700); err != nil {
		return "", err
	}
	return w.specPath(), atomicfile.Write(w.specPath(), b.Bytes(), 0o600)
}

// targetNamespace is where rel writes: spec.targetNamespace or its own.
func targetNamespace(rel *v1alpha1.Release) string {
	if rel.Spec.TargetNamespace != "" {
		return rel.Spec.TargetNamespace
	}
	return rel.Namespace
}

// releaseName is rel's release: spec.releaseName or its own name.
func releaseName(rel *v1alpha1.Release) string {
	if rel.Spec.ReleaseName != "" {
		return rel.Spec.ReleaseName
	}
	return rel.Name
}

// durationOf is d as release.toml writes one, or "" for zero.
func durationOf(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return d.String()
}
