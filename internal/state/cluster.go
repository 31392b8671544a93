package state

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Labels and names of the state objects.
const (
	// StateLabel holds the release's name on every state Secret.
	StateLabel = "piceli.dev/state-of"
	// PartLabel says which part of the state a Secret is: "manifest" or
	// "chunk".
	PartLabel       = "piceli.dev/state-part"
	generationLabel = "piceli.dev/state-generation"
	manifestKey     = "manifest.json"
	chunkKey        = "chunk"
	// ManifestSchema versions the manifest document.
	ManifestSchema = "piceli.state-manifest/v1"
	// ChunkSize is the most compressed bytes one chunk Secret holds:
	// base64 makes 512 KiB about 683 KiB, well under the API server's
	// 1.5 MiB request limit and etcd's ~1 MiB value limit.
	ChunkSize = 512 << 10
)

// Manifest is the document of the manifest Secret: the current snapshot
// and the one before it, which stays whole until the next push so that a
// reader finding the current one torn still has a complete state.
type Manifest struct {
	Schema   string    `json:"schema"`
	Release  string    `json:"release"`
	Current  *Snapshot `json:"current,omitempty"`
	Previous *Snapshot `json:"previous,omitempty"`
}

// Snapshot describes one pushed state: its generation, its digest and
// size, who wrote it under which Lease transition, and its chunks in order.
type Snapshot struct {
	Generation  int64   `json:"generation"`
	Digest      string  `json:"sha256"`
	Size        int     `json:"size"`
	Files       int     `json:"files"`
	Writer      string  `json:"writer"`
	Transitions int32   `json:"leaseTransitions"`
	Chunks      []Chunk `json:"chunks"`
}

// Chunk is one chunk Secret of a snapshot.
type Chunk struct {
	Name   string `json:"name"`
	Digest string `json:"sha256"`
	Size   int    `json:"size"`
}

// Cluster is the Store of a release whose state lives in the cluster: a
// manifest Secret piceli-state-<release> and chunk Secrets
// piceli-state-<release>-<generation>-<index> in Namespace, all labelled
// StateLabel=<release>.
type Cluster struct {
	Client    kubernetes.Interface
	Namespace string // where the state Secrets are
	Release   string
	Dir       string // the state directory, the cache
}

func (c *Cluster) manifestName() string { return "piceli-state-" + c.Release }

func (c *Cluster) chunkName(gen int64, i int) string {
	return fmt.Sprintf("piceli-state-%s-%d-%d", c.Release, gen, i)
}

func (c *Cluster) where() string { return "namespace " + c.Namespace }

// readManifest returns the manifest and the Secret holding it; both are
// nil when there is none yet.
func (c *Cluster) readManifest(ctx context.Context) (*Manifest, *corev1.Secret, error) {
	sec, err := c.Client.CoreV1().Secrets(c.Namespace).Get(ctx, c.manifestName(), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, c.apiError("get", "Secret/"+c.Namespace+"/"+c.manifestName(), err)
	}
	var m Manifest
	if err := json.Unmarshal(sec.Data[manifestKey], &m); err != nil || m.Schema != ManifestSchema {
		return nil, nil, fmt.Errorf("read state manifest Secret/%s/%s: not a %s document", c.Namespace, c.manifestName(), ManifestSchema)
	}
	return &m, sec, nil
}

// apiError names what was being done and, when forbidden, the permission
// that is missing.
func (c *Cluster) apiError(verb, what string, err error) error {
	if apierrors.IsForbidden(err) {
		return fmt.Errorf("state: %s %s: forbidden: the operator needs %q on secrets in namespace %s (see docs/state.md, RBAC): %w", verb, what, verb, c.Namespace, err)
	}
	return fmt.Errorf("state: %s %s: %w", verb, what, err)
}

// Read returns the manifest and the files of the newest complete
// snapshot, with what was wrong with a newer one when the previous had to
// be used. With no manifest it returns nil files. When no snapshot is
// whole the error names every missing or damaged chunk.
func (c *Cluster) Read(ctx context.Context) (*Manifest, *Snapshot, []File, string, error) {
	m, _, err := c.readManifest(ctx)
	if err != nil || m == nil || m.Current == nil {
		return m, nil, nil, "", err
	}
	files, curErr := c.readSnapshot(ctx, m.Current)
	if curErr == nil {
		return m, m.Current, files, "", nil
	}
	if m.Previous == nil {
		return m, nil, nil, "", curErr
	}
	files, prevErr := c.readSnapshot(ctx, m.Previous)
	if prevErr != nil {
		return m, nil, nil, "", fmt.Errorf("%w; and %w", curErr, prevErr)
	}
	return m, m.Previous, files, curErr.Error(), nil
}

// readSnapshot fetches and checks every chunk of snap, then unpacks it.
func (c *Cluster) readSnapshot(ctx context.Context, snap *Snapshot) ([]File, error) {
	var data []byte
	var bad []string
	for _, ch := range snap.Chunks {
		got, problem, err := c.readChunk(ctx, ch)
		if err != nil {
			return nil, err
		}
		if problem != "" {
			bad = append(bad, problem)
		}
		data = append(data, got...)
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("state snapshot %d is torn: %s", snap.Generation, strings.Join(bad, ", "))
	}
	if Digest(data) != snap.Digest {
		return nil, fmt.Errorf("state snapshot %d is torn: its chunks do not add up to digest %s", snap.Generation, snap.Digest)
	}
	return Unpack(data)
}

// readChunk returns a chunk's bytes, or a problem naming it when it is
// missing or damaged.
func (c *Cluster) readChunk(ctx context.Context, ch Chunk) ([]byte, string, error) {
	sec, err := c.Client.CoreV1().Secrets(c.Namespace).Get(ctx, ch.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, fmt.Sprintf("chunk Secret/%s/%s is missing", c.Namespace, ch.Name), nil
	}
	if err != nil {
		return nil, "", c.apiError("get", "Secret/"+c.Namespace+"/"+ch.Name, err)
	}
	data := sec.Data[chunkKey]
	if Digest(data) != ch.Digest {
		return nil, fmt.Sprintf("chunk Secret/%s/%s does not match its digest", c.Namespace, ch.Name), nil
	}
	return data, "", nil
}

// Pull brings the cache up to date with the newest complete snapshot.
// A cache that already agrees with the current snapshot costs one read.
func (c *Cluster) Pull(ctx context.Context) (*Pulled, error) {
	rec := readSync(c.Dir)
	m, _, err := c.readManifest(ctx)
	if err != nil || m == nil || m.Current == nil {
		return &Pulled{}, err
	}
	if rec.Generation == m.Current.Generation && rec.Digest == m.Current.Digest {
		return &Pulled{Generation: rec.Generation, Files: len(rec.Files)}, nil
	}
	_, snap, files, refused, err := c.Read(ctx)
	if err != nil || snap == nil {
		return &Pulled{}, err
	}
	changed, err := Merge(c.Dir, files, rec.gone(files))
	if err != nil {
		return nil, err
	}
	if err := writeSync(c.Dir, syncRecord{Generation: snap.Generation, Digest: snap.Digest, Files: paths(files)}); err != nil {
		return nil, err
	}
	return &Pulled{Generation: snap.Generation, Files: len(files), Changed: changed, Refused: refused}, nil
}

// Push packs the state directory and makes it the current snapshot,
// keeping the one before as previous, after checking fence against the
// Lease. The manifest is replaced with its resourceVersion as read, so of
// two writers racing only one wins; the other's chunks are left for the
// next push to remove.
func (c *Cluster) Push(ctx context.Context, fence Fence) (*Pushed, error) {
	files, err := Files(c.Dir)
	if err != nil {
		return nil, err
	}
	data, err := Pack(files)
	if err != nil {
		return nil, err
	}
	if err := c.checkFence(ctx, fence); err != nil {
		return nil, err
	}
	m, sec, err := c.readManifest(ctx)
	if err != nil {
		return nil, err
	}
	if m != nil && m.Current != nil && m.Current.Digest == Digest(data) {
		return &Pushed{Generation: m.Current.Generation, Chunks: len(m.Current.Chunks), Bytes: len(data), Unchanged: true}, nil
	}
	snap, err := c.writeChunks(ctx, m, data, fence)
	if err != nil {
		return nil, err
	}
	snap.Files = len(files)
	if err := c.checkFence(ctx, fence); err != nil {
		return nil, err
	}
	if err := c.writeManifest(ctx, m, sec, snap); err != nil {
		return nil, err
	}
	c.collect(ctx, snap.Generation, m)
	if err := writeSync(c.Dir, syncRecord{Generation: snap.Generation, Digest: snap.Digest, Files: paths(files)}); err != nil {
		return nil, err
	}
	return &Pushed{Generation: snap.Generation, Chunks: len(snap.Chunks), Bytes: len(data)}, nil
}

// checkFence refuses a write unless the Lease is still fence's: same
// holder, same transition count.
func (c *Cluster) checkFence(ctx context.Context, fence Fence) error {
	lease, err := c.Client.CoordinationV1().Leases(fence.Namespace).Get(ctx, fence.Lease, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("write state of release %s: lease %s/%s is gone: %w", c.Release, fence.Namespace, fence.Lease, ErrFenced)
	}
	if err != nil {
		return fmt.Errorf("write state of release %s: read lease %s/%s: %w", c.Release, fence.Namespace, fence.Lease, err)
	}
	holder, transitions := "", int32(0)
	if lease.Spec.HolderIdentity != nil {
		holder = *lease.Spec.HolderIdentity
	}
	if lease.Spec.LeaseTransitions != nil {
		transitions = *lease.Spec.LeaseTransitions
	}
	if holder != fence.Identity || transitions != fence.Transitions {
		return fmt.Errorf("write state of release %s: lease %s/%s is held by %q at transition %d, not by %q at %d: %w",
			c.Release, fence.Namespace, fence.Lease, holder, transitions, fence.Identity, fence.Transitions, ErrFenced)
	}
	return nil
}

// writeChunks stores data as the chunks of the next generation.
func (c *Cluster) writeChunks(ctx context.Context, m *Manifest, data []byte, fence Fence) (*Snapshot, error) {
	gen := int64(1)
	if m != nil && m.Current != nil {
		gen = m.Current.Generation + 1
	}
	snap := &Snapshot{Generation: gen, Digest: Digest(data), Size: len(data), Writer: fence.Identity, Transitions: fence.Transitions}
	for i := 0; i == 0 || i*ChunkSize < len(data); i++ {
		part := data[i*ChunkSize : min((i+1)*ChunkSize, len(data))]
		ch := Chunk{Name: c.chunkName(gen, i), Digest: Digest(part), Size: len(part)}
		if err := c.putSecret(ctx, c.secret(ch.Name, "chunk", gen, map[string][]byte{chunkKey: part}), ""); err != nil {
			return nil, err
		}
		snap.Chunks = append(snap.Chunks, ch)
	}
	return snap, nil
}

// writeManifest makes snap current, conditional on the manifest read.
func (c *Cluster) writeManifest(ctx context.Context, m *Manifest, old *corev1.Secret, snap *Snapshot) error {
	next := Manifest{Schema: ManifestSchema, Release: c.Release, Current: snap}
	if m != nil {
		next.Previous = m.Current
	}
	doc, err := json.MarshalIndent(next, "", "  ")
	if err != nil {
		return err
	}
	sec := c.secret(c.manifestName(), "manifest", snap.Generation, map[string][]byte{manifestKey: doc})
	rv := ""
	if old != nil {
		rv = old.ResourceVersion
	}
	err = c.putSecret(ctx, sec, rv)
	if apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("write state manifest Secret/%s/%s: another writer changed it since it was read: %w", c.Namespace, sec.Name, ErrFenced)
	}
	return err
}

func (c *Cluster) secret(name, part string, gen int64, data map[string][]byte) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: c.Namespace, Labels: map[string]string{
			StateLabel: c.Release, PartLabel: part, generationLabel: strconv.FormatInt(gen, 10),
		}},
		Type: corev1.SecretTypeOpaque,
		Data: data,
	}
}

// putSecret creates sec, or replaces it: with resourceVersion rv when rv
// is set (an optimistic write), unconditionally otherwise. rv set and no
// Secret is a conflict, since the writer read one.
func (c *Cluster) putSecret(ctx context.Context, sec *corev1.Secret, rv string) error {
	api := c.Client.CoreV1().Secrets(c.Namespace)
	ref := "Secret/" + c.Namespace + "/" + sec.Name
	if rv != "" {
		sec.ResourceVersion = rv
		_, err := api.Update(ctx, sec, metav1.UpdateOptions{})
		if err != nil && !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) {
			return c.apiError("update", ref, err)
		}
		if apierrors.IsNotFound(err) {
			return apierrors.NewConflict(corev1.Resource("secrets"), sec.Name, err)
		}
		return err
	}
	_, err := api.Create(ctx, sec, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) && sec.Labels[PartLabel] == "chunk" {
		cur, gerr := api.Get(ctx, sec.Name, metav1.GetOptions{})
		if gerr != nil {
			return c.apiError("get", ref, gerr)
		}
		sec.ResourceVersion = cur.ResourceVersion
		_, err = api.Update(ctx, sec, metav1.UpdateOptions{})
	}
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return c.apiError("create", ref, err)
	}
	return err
}

// collect deletes the chunks of every generation but current and the
// one before it. It is best effort: a chunk left over is only space.
func (c *Cluster) collect(ctx context.Context, current int64, m *Manifest) {
	keep := map[string]bool{strconv.FormatInt(current, 10): true}
	if m != nil && m.Current != nil {
		keep[strconv.FormatInt(m.Current.Generation, 10)] = true
	}
	api := c.Client.CoreV1().Secrets(c.Namespace)
	list, err := api.List(ctx, metav1.ListOptions{LabelSelector: StateLabel + "=" + c.Release + "," + PartLabel + "=chunk"})
	if err != nil {
		return
	}
	for _, s := range list.Items {
		if !keep[s.Labels[generationLabel]] {
			api.Delete(ctx, s.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &s.UID}})
		}
	}
}

// syncRecord is the cache's note of the snapshot it last agreed with.
type syncRecord struct {
	Generation int64    `json:"generation"`
	Digest     string   `json:"sha256"`
	Files      []string `json:"files"`
}

// gone lists the files of the recorded snapshot that files lacks.
func (r syncRecord) gone(files []File) []string {
	now := make(map[string]bool, len(files))
	for _, f := range files {
		now[f.Path] = true
	}
	var gone []string
	for _, p := range r.Files {
		if !now[p] && !local(p) {
			gone = append(gone, p)
		}
	}
	return gone
}

func paths(files []File) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.Path
	}
	slices.Sort(out)
	return out
}

func readSync(dir string) syncRecord {
	var r syncRecord
	data, err := os.ReadFile(filepath.Join(dir, syncFile))
	if err == nil {
		json.Unmarshal(data, &r) // a damaged record means "agreed with nothing"
	}
	return r
}

func writeSync(dir string, r syncRecord) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return writePrivate(filepath.Join(dir, syncFile), data)
}
