package state

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/pynenc/piceli/internal/signer"
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
	// Signer is the public key ("ed25519:<base64>") whose Signature, in
	// base64, covers the snapshot's Statement. Writer and Transitions are
	// not covered: they say who held the Lease, for people.
	Signer    string `json:"signer,omitempty"`
	Signature string `json:"signature,omitempty"`
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
//
// Every snapshot is signed by its writer's key (Key) and read only when
// signed by a key of Signers over the statement of this Release,
// Namespace and ClusterUID; and, once this machine has verified a
// generation, never an older one unacknowledged (PullOlder).
type Cluster struct {
	Client    kubernetes.Interface
	Namespace string // where the state Secrets are
	Release   string
	Dir       string // the state directory, the cache
	// ClusterUID is the target cluster's identity (the kube-system
	// Namespace UID), bound into every signature.
	ClusterUID string
	// Signers are the keys whose snapshots are read: [release]
	// state_signers. None trusts nothing.
	Signers []signer.Signer
	// Key is this machine's signing key, which Push signs with; Push
	// refuses, before writing anything, without one or when Signers does
	// not list it. Reading needs none.
	Key *signer.Key
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
// be used. With no manifest it returns nil files. A snapshot is used only
// when its signature verifies (an error matching ErrUntrusted otherwise,
// with no fall back to the previous one); when no snapshot is whole the
// error names every missing or damaged chunk. Read does not apply this
// machine's replay floor: Pull does.
func (c *Cluster) Read(ctx context.Context) (*Manifest, *Snapshot, []File, string, error) {
	m, _, err := c.readManifest(ctx)
	if err != nil || m == nil || m.Current == nil {
		return m, nil, nil, "", err
	}
	snap, files, refused, err := c.newest(ctx, m)
	return m, snap, files, refused, err
}

// newest returns the current snapshot of m, or the previous one when the
// current is torn, each verified before a chunk of it is read.
func (c *Cluster) newest(ctx context.Context, m *Manifest) (*Snapshot, []File, string, error) {
	files, curErr := c.readSnapshot(ctx, m.Current)
	if curErr == nil {
		return m.Current, files, "", nil
	}
	if errors.Is(curErr, ErrUntrusted) || m.Previous == nil {
		return nil, nil, "", curErr
	}
	files, prevErr := c.readSnapshot(ctx, m.Previous)
	if prevErr != nil {
		return nil, nil, "", fmt.Errorf("%w; and %w", curErr, prevErr)
	}
	return m.Previous, files, curErr.Error(), nil
}

// readSnapshot verifies snap's signature, then fetches and checks every
// chunk of it against the signed digest and size, and unpacks it.
func (c *Cluster) readSnapshot(ctx context.Context, snap *Snapshot) ([]File, error) {
	if _, err := c.verify(snap); err != nil {
		return nil, err
	}
	if want := chunksFor(snap.Size); len(snap.Chunks) != want {
		return nil, fmt.Errorf("state snapshot %d is torn: it lists %d chunks, its signed size needs %d", snap.Generation, len(snap.Chunks), want)
	}
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
		if data = append(data, got...); len(data) > snap.Size {
			bad = append(bad, fmt.Sprintf("chunk Secret/%s/%s goes past the signed size", c.Namespace, ch.Name))
			break
		}
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("state snapshot %d is torn: %s", snap.Generation, strings.Join(bad, ", "))
	}
	if Digest(data) != snap.Digest || len(data) != snap.Size {
		return nil, fmt.Errorf("state snapshot %d is torn: its chunks do not add up to digest %s", snap.Generation, snap.Digest)
	}
	return c.unpack(snap, data)
}

// chunksFor is how many chunks a snapshot of size bytes is cut into.
func chunksFor(size int) int { return max(1, (size+ChunkSize-1)/ChunkSize) }

// unpack unpacks a verified snapshot and checks its signed file count.
func (c *Cluster) unpack(snap *Snapshot, data []byte) ([]File, error) {
	files, err := Unpack(data)
	if err == nil && len(files) != snap.Files {
		err = fmt.Errorf("state snapshot %d holds %d files, its signature says %d", snap.Generation, len(files), snap.Files)
	}
	return files, err
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

// Pull brings the cache up to date with the newest complete snapshot,
// verified (see Cluster). A cache that already agrees with the current
// snapshot costs one read. A snapshot older than the newest this machine
// has verified, or no state where it has seen one, is refused with an
// *OlderError and nothing is merged.
func (c *Cluster) Pull(ctx context.Context) (*Pulled, error) { return c.pull(ctx, nil) }

// PullOlder is Pull that accepts the cluster's state although it is older
// than what this machine has seen, as its operator acknowledged: exactly
// generation (0: the state is gone, and the cache is kept as it is). The
// acceptance is recorded in the cache's sync record; this machine's later
// pushes still number past every generation it has seen. A newer state
// than generation is refused, since the acknowledgement was not for it.
func (c *Cluster) PullOlder(ctx context.Context, generation int64) (*Pulled, error) {
	return c.pull(ctx, &generation)
}

func (c *Cluster) pull(ctx context.Context, accept *int64) (*Pulled, error) {
	rec := readSync(c.Dir)
	m, _, err := c.readManifest(ctx)
	if err != nil {
		return nil, err
	}
	if m == nil || m.Current == nil {
		return c.vanished(rec, accept)
	}
	if rec.agrees(m.Current) {
		if _, err := c.verify(m.Current); err != nil {
			return nil, err
		}
		return &Pulled{Generation: rec.Generation, Files: len(rec.Files)}, nil
	}
	snap, files, refused, err := c.newest(ctx, m)
	if err != nil {
		return nil, err
	}
	return c.merge(rec, snap, files, refused, accept)
}

// merge admits snap against the floor, merges its files into the cache
// and records the agreement.
func (c *Cluster) merge(rec syncRecord, snap *Snapshot, files []File, refused string, accept *int64) (*Pulled, error) {
	if err := c.admit(rec, snap, accept); err != nil {
		if refused != "" {
			return nil, fmt.Errorf("%w (the newer %s)", err, refused)
		}
		return nil, err
	}
	older := snap.Generation <= rec.floor() && !rec.agrees(snap)
	if accept != nil && !older {
		return nil, fmt.Errorf("accept older state snapshot %d: the cluster holds snapshot %d, which is not older than snapshot %d this machine has seen; pull without accepting older state", *accept, snap.Generation, rec.floor())
	}
	changed, err := Merge(c.Dir, files, rec.gone(files))
	if err != nil {
		return nil, err
	}
	if err := writeSync(c.Dir, rec.after(snap, paths(files), older)); err != nil {
		return nil, err
	}
	got := &Pulled{Generation: snap.Generation, Files: len(files), Changed: changed, Refused: refused}
	if older {
		got.Accepted = &Ack{Generation: snap.Generation, Seen: rec.floor()}
	}
	return got, nil
}

// vanished answers a pull that found no state: nothing to do unless this
// machine had agreed with a snapshot, which is then refused unless
// acknowledged (generation 0). An acknowledged disappearance keeps the
// cache's files as files made here.
func (c *Cluster) vanished(rec syncRecord, accept *int64) (*Pulled, error) {
	switch {
	case accept != nil && *accept != 0:
		return nil, fmt.Errorf("accept older state snapshot %d: the cluster holds no state of release %s in namespace %s; accept that as generation 0", *accept, c.Release, c.Namespace)
	case rec.Generation == 0:
		return &Pulled{}, nil
	case accept == nil:
		return nil, &OlderError{Release: c.Release, Namespace: c.Namespace, Seen: rec.floor()}
	}
	next := syncRecord{Seen: rec.floor(), Acks: rec.ack(0)}
	if err := writeSync(c.Dir, next); err != nil {
		return nil, err
	}
	return &Pulled{Accepted: &Ack{Seen: rec.floor()}}, nil
}

// Push packs the state directory and makes it the current snapshot,
// signed with Key, keeping the one before as previous, after checking
// fence against the Lease. A Key missing or not in Signers is refused
// (ErrUntrusted) before anything is read or written. The new generation
// is one past both the manifest's and the newest this machine has seen.
// The manifest is replaced with its resourceVersion as read, so of two
// writers racing only one wins; the other's chunks are left for the next
// push to remove.
func (c *Cluster) Push(ctx context.Context, fence Fence) (*Pushed, error) {
	if _, err := c.writer(); err != nil {
		return nil, err
	}
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
	rec := readSync(c.Dir)
	if c.unchanged(m, data) {
		return &Pushed{Generation: m.Current.Generation, Chunks: len(m.Current.Chunks), Bytes: len(data), Unchanged: true}, nil
	}
	snap := &Snapshot{Generation: nextGeneration(m, rec), Digest: Digest(data), Size: len(data), Files: len(files), Writer: fence.Identity, Transitions: fence.Transitions}
	if err := c.writeChunks(ctx, snap, data); err != nil {
		return nil, err
	}
	c.sign(snap)
	if err := c.checkFence(ctx, fence); err != nil {
		return nil, err
	}
	if err := c.writeManifest(ctx, m, sec, snap); err != nil {
		return nil, err
	}
	c.collect(ctx, snap.Generation, m)
	if err := writeSync(c.Dir, rec.after(snap, paths(files), false)); err != nil {
		return nil, err
	}
	return &Pushed{Generation: snap.Generation, Chunks: len(snap.Chunks), Bytes: len(data)}, nil
}

// unchanged reports whether m's current snapshot already holds data,
// signed by a trusted key (an untrusted one is replaced).
func (c *Cluster) unchanged(m *Manifest, data []byte) bool {
	if m == nil || m.Current == nil || m.Current.Digest != Digest(data) {
		return false
	}
	_, err := c.verify(m.Current)
	return err == nil
}

// nextGeneration is one past the manifest's current generation and the
// newest this machine has seen, so a generation number is never reused
// with other content, even after an older state was restored.
func nextGeneration(m *Manifest, rec syncRecord) int64 {
	gen := rec.floor()
	if m != nil && m.Current != nil {
		gen = max(gen, m.Current.Generation)
	}
	return gen + 1
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

// writeChunks stores data as the chunks of snap's generation and lists
// them in snap.
func (c *Cluster) writeChunks(ctx context.Context, snap *Snapshot, data []byte) error {
	for i := range chunksFor(len(data)) {
		part := data[i*ChunkSize : min((i+1)*ChunkSize, len(data))]
		ch := Chunk{Name: c.chunkName(snap.Generation, i), Digest: Digest(part), Size: len(part)}
		if err := c.putSecret(ctx, c.secret(ch.Name, "chunk", snap.Generation, map[string][]byte{chunkKey: part}), ""); err != nil {
			return err
		}
		snap.Chunks = append(snap.Chunks, ch)
	}
	return nil
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
