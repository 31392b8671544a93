package spec

import (
	"time"

	"github.com/pynenc/piceli/internal/signer"
)

// DefaultStateDir is where a release keeps its plans and journal when
// release.state_dir is not set; it is relative to the spec's directory.
const DefaultStateDir = ".piceli-release"

// Where a release keeps its state (release.state).
const (
	StateLocal   = "local"
	StateCluster = "cluster"
)

// The failure policies of [release] on_failure.
const (
	OnFailureStop       = "stop"
	OnFailureCompensate = "compensate"
	OnFailureRollback   = "rollback"
)

// The readiness policies of [release] wait: the default for objects that
// do not say otherwise with the piceli.dev/wait annotation.
const (
	WaitReady = "ready" // wait for each object to be ready before the next wave
	WaitNone  = "none"  // apply in order, wait only for objects annotated "true"
)

// Spec is a validated release.toml. Every path in it is absolute.
type Spec struct {
	Path    string // the spec file, absolute
	Dir     string // the directory holding the spec file
	Target  Target
	Release Release
	Images  map[string]string // image key -> reference, never nil
	// Builds are the [images] taken from a build: image key -> the image
	// of the build.toml beside the spec. A key is in Images or
	// here, not both; nil when there are none. The release resolves them
	// to digests.
	Builds map[string]ImageBuild
	Values map[string]string // value key -> value, never nil
	Checks []Check
	// Deploy says how `piceli deploy` delivers the built images.
	Deploy Deploy
	// Telemetry says where `piceli deploy` sends its trace and result.
	Telemetry Telemetry
	// Environment is the environment of [environments] this spec was
	// resolved for (ParseEnv); empty when the file declares none.
	// Target, Release, Values and Images are already the environment's.
	Environment string
	// Environments are the names the file declares, sorted; nil when none.
	Environments []string
	// Charts and Kustomizations are rendered into the release's objects
	// beside its composition's (charts.go).
	Charts         []Chart
	Kustomizations []Kustomization
}

// ImageBuild is an [images] entry written { build = "NAME" }: the image
// NAME of the build.toml beside the spec, referenced by the digest its
// layout holds. Registry, when set, replaces the layout's registry host in
// the reference (for images pushed to a registry the nodes pull from).
type ImageBuild struct {
	Image    string
	Registry string
}

// Target names the cluster a release goes to. Piceli never falls back to
// $KUBECONFIG, ~/.kube/config or a kubeconfig's current-context.
type Target struct {
	Kubeconfig string // absolute path of the kubeconfig file; not checked for existence
	Context    string // a context in that file
	Namespace  string // a DNS-1123 label
	// Namespaces are the other namespaces the release may write objects
	// to: DNS-1123 labels, sorted, without duplicates or Namespace. The
	// target namespace is always allowed; a plan that writes to any other
	// namespace is refused. Cluster-scoped objects are in none.
	Namespaces []string
}

// Release describes the release itself.
type Release struct {
	Name         string // a DNS-1123 label
	Owner        string // defaults to Name
	FieldManager string // defaults to "piceli-" + Name
	Composition  Composition
	StateDir     string // absolute; defaults to DefaultStateDir beside the spec
	// State is where the release's state is kept: StateLocal (the default
	// when the key is absent, so specs written before it keep working)
	// keeps it in StateDir alone; StateCluster keeps it in the target
	// cluster and StateDir becomes a cache that may be deleted at any time.
	State string
	// StateNamespace is the namespace holding the state of a StateCluster
	// release; empty means the target namespace. It is a DNS-1123 label.
	StateNamespace string
	// StateSigners are the public keys whose signatures on shared state
	// snapshots are trusted, as [release] state_signers lists them: each
	// machine or runner that writes the state signs with its own key.
	// Required, not empty, with StateCluster; allowed with StateLocal (for
	// "state migrate cluster").
	StateSigners        []signer.Signer
	AllowUnpinnedImages bool // accept [images] that are not pinned by digest
	// RequirePinnedImages refuses a plan in which a container or init
	// container image of any object is not pinned by digest; without it
	// such images are only warned about. It excludes AllowUnpinnedImages.
	RequirePinnedImages bool
	// Prune lets a plan delete objects this release created earlier and no
	// longer declares. Namespaces, PVCs, PVs and Secrets are still kept
	// unless the live object is annotated piceli.dev/prune: "allow".
	Prune bool
	// OnFailure is what a failed apply does: OnFailureStop (the default)
	// leaves it resumable, OnFailureCompensate undoes its completed steps,
	// OnFailureRollback leaves it failed and rolls the release back to its
	// latest revision. A failing check fails the run like a failing wave.
	OnFailure string
	// ReadyTimeout bounds the readiness wait of each apply wave; zero means
	// the engine's default (5 minutes).
	ReadyTimeout time.Duration
	// Wait is the readiness policy of objects without a piceli.dev/wait
	// annotation: WaitReady (the default) or WaitNone. The annotation of
	// an object always beats it.
	Wait string
}

// CompositionKind says how a composition is loaded.
type CompositionKind string

// The kinds of composition.
const (
	// CompositionGo is a Go function compiled and run by Piceli.
	CompositionGo CompositionKind = "go"
	// CompositionFiles is a YAML/JSON file or a directory of them.
	CompositionFiles CompositionKind = "files"
)

// Composition is where a release's objects come from: for CompositionGo,
// File is the absolute path of a .go file and Func a function in it; for
// CompositionFiles, File is an absolute file or directory path and Func is
// empty.
type Composition struct {
	Kind CompositionKind
	File string
	Func string
}
