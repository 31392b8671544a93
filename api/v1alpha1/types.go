package v1alpha1

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The API's names.
const (
	Group    = "piceli.dev"
	Version  = "v1alpha1"
	Kind     = "Release"
	ListKind = "ReleaseList"
	Resource = "releases"
	Singular = "release"
)

// GroupVersion is piceli.dev/v1alpha1.
var GroupVersion = schema.GroupVersion{Group: Group, Version: Version}

// Release is one release the controller delivers into its namespace.
type Release struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ReleaseSpec   `json:"spec"`
	Status ReleaseStatus `json:"status,omitempty"`
}

// ReleaseList is a list of Releases.
type ReleaseList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Release `json:"items"`
}

// ReleaseSpec says where a release's revisions come from and who approves
// them.
type ReleaseSpec struct {
	// Source is where new revisions are published.
	Source Source `json:"source"`
	// ReleaseName is the release's name, as the published artifact names
	// it; empty means the Release's own name.
	ReleaseName string `json:"releaseName,omitempty"`
	// TargetNamespace is the namespace the release writes to; empty means
	// the Release's own namespace. The controller writes there only when a
	// RoleBinding in it grants the controller the deployer role.
	TargetNamespace string `json:"targetNamespace,omitempty"`
	// Prune lets a plan delete objects an earlier revision created and the
	// current one no longer declares (release.toml's prune).
	Prune bool `json:"prune,omitempty"`
	// StateSigners are the signer lines ("ed25519:BASE64 NAME", as
	// `piceli state key` prints them) of laptops and CI runners whose
	// runs of this release the controller trusts, beside its own key.
	StateSigners []string `json:"stateSigners,omitempty"`
	// Approve is the hash of the plan a person approved
	// (`piceli controller approve`). The controller applies a plan only
	// when this equals its hash, or when Policy approves it; a plan that
	// changes has another hash, so the approval does not carry over.
	Approve string `json:"approve,omitempty"`
	// Policy, when set, approves plans without a person.
	Policy *Policy `json:"policy,omitempty"`
	// Interval is how often the source is checked for a new revision and
	// the release replanned; zero means one minute.
	Interval metav1.Duration `json:"interval,omitempty"`
	// Suspend stops planning and applying until it is cleared.
	Suspend bool `json:"suspend,omitempty"`
	// OnFailure is what a failed run does, as release.toml's on_failure:
	// "stop" (the default) leaves it for the next attempt, "rollback" puts
	// the release's latest revision back, once. A revision whose run
	// failed is retried with backoff at most MaxAttempts times, and one
	// whose checks failed never by itself; `piceli controller sync` or a
	// new revision tries again.
	OnFailure string `json:"onFailure,omitempty"`
	// ReadyTimeout bounds the readiness wait of each wave, as
	// release.toml's ready_timeout; zero means the engine's (5 minutes).
	ReadyTimeout metav1.Duration `json:"readyTimeout,omitempty"`
	// Checks run after every run's last wave, as release.toml's [[checks]]
	// do: a failing one fails the run. The controller runs HTTP and TCP
	// checks through a port-forward to a Service of the release.
	Checks []Check `json:"checks,omitempty"`
	// Drift says how the controller watches the live objects of the
	// applied revision; nil means report every interval.
	Drift *Drift `json:"drift,omitempty"`
	// Pin, when set, holds the Release at a source revision it ran before
	// (`piceli controller rollback`): that revision is planned and applied
	// (approved like any plan), and newer revisions of the source are
	// planned and shown in status.plan but not applied until the pin is
	// removed (`piceli controller unpin`) or a person approves a newer
	// plan by its hash, which removes the pin.
	Pin *Pin `json:"pin,omitempty"`
}

// Pin is the source revision a Release is held at.
type Pin struct {
	// Revision is a source revision the Release ran, as status writes it:
	// REF@ID or ID (a sha256: digest or a 40-hex commit).
	Revision string `json:"revision"`
	// Reason says why, for everyone who reads the Release.
	Reason string `json:"reason,omitempty"`
	// By is who pinned it, as user@host.
	By string `json:"by,omitempty"`
	// At is when.
	At metav1.Time `json:"at,omitempty"`
}

// Drift is how the controller compares the live objects with the revision
// it applied, and what it does about a difference.
type Drift struct {
	// Mode is DriftReport (the default), DriftCorrect or DriftOff.
	Mode string `json:"mode,omitempty"`
	// Interval is how often the live objects are compared; zero means the
	// Release's interval.
	Interval metav1.Duration `json:"interval,omitempty"`
}

// The values of Drift.Mode.
const (
	// DriftReport lists what changed in status (the Drifted condition
	// and status.drift) and writes nothing.
	DriftReport = "report"
	// DriftCorrect reports, then restores what the applied revision
	// declares through a plan the controller approves itself only when
	// it does nothing else: updates and creates of the revision's own
	// objects, taking back fields that others edited (kubectl edit or
	// scale, a PATCH). It never deletes, and never touches a field
	// another manager owns by server-side apply: that drift is reported.
	DriftCorrect = "correct"
	// DriftOff compares nothing.
	DriftOff = "off"
)

// DriftModes are the values of Drift.Mode.
var DriftModes = []string{DriftReport, DriftCorrect, DriftOff}

// Check is one check of a run: exactly one of HTTP and TCP.
type Check struct {
	Name string `json:"name"`
	// Timeout bounds one attempt, as a duration ("10s"); empty means the
	// kind's default.
	Timeout string `json:"timeout,omitempty"`
	// Retries is how many more attempts follow a failed one; nil means
	// the default (2).
	Retries *int32     `json:"retries,omitempty"`
	HTTP    *HTTPCheck `json:"http,omitempty"`
	TCP     *TCPCheck  `json:"tcp,omitempty"`
}

// HTTPCheck requests a path of a Service port and expects a status and,
// optionally, text in the body.
type HTTPCheck struct {
	Service      string `json:"service"`
	Port         int32  `json:"port"`
	Path         string `json:"path,omitempty"`
	ExpectStatus int32  `json:"expectStatus,omitempty"`
	BodyContains string `json:"bodyContains,omitempty"`
}

// TCPCheck connects to a Service port.
type TCPCheck struct {
	Service string `json:"service"`
	Port    int32  `json:"port"`
}

// Source is exactly one of OCI and Git.
type Source struct {
	OCI *OCISource `json:"oci,omitempty"`
	Git *GitSource `json:"git,omitempty"`
}

// OCISource is an artifact written by `piceli publish`. Exactly one of
// Tag, SemVer and Digest selects the revision; every revision is resolved
// to its digest before it is planned.
type OCISource struct {
	// URL is oci://HOST[:PORT]/REPOSITORY.
	URL string `json:"url"`
	// Tag follows one tag, re-resolved every interval.
	Tag string `json:"tag,omitempty"`
	// SemVer follows the highest tag in a semantic version range
	// (for example ">=1.0.0 <2.0.0").
	SemVer string `json:"semver,omitempty"`
	// Digest pins one revision: sha256: and 64 hex digits.
	Digest string `json:"digest,omitempty"`
	// Insecure talks plain HTTP to the registry.
	Insecure bool `json:"insecure,omitempty"`
	// SecretRef names a Secret of type kubernetes.io/dockerconfigjson in
	// the Release's namespace with the registry's credentials.
	SecretRef *corev1.LocalObjectReference `json:"secretRef,omitempty"`
}

// GitSource is a Git repository holding, at Path, a directory of YAML or
// JSON manifests or a published release (an OCI layout written by
// `piceli publish --out`). Exactly one of Branch, Tag and Commit selects
// the revision; every revision is resolved to its commit before it is
// planned.
type GitSource struct {
	// URL is http://, https:// or ssh:// (or user@host:path).
	URL    string `json:"url"`
	Branch string `json:"branch,omitempty"`
	Tag    string `json:"tag,omitempty"`
	// Commit pins one revision: 40 hex digits.
	Commit string `json:"commit,omitempty"`
	// Path is the directory inside the repository; empty means its root.
	Path string `json:"path,omitempty"`
	// SecretRef names a Secret in the Release's namespace with the
	// credentials: username and password (or bearerToken) for HTTP(S);
	// identity (a private key) and known_hosts for SSH. Never logged.
	SecretRef *corev1.LocalObjectReference `json:"secretRef,omitempty"`
}

// Policy approves plans that stay within it, without a person.
type Policy struct {
	// Actions are the plan actions it allows: create, update, adopt,
	// replace, delete. A plan with any other changed step waits for a
	// person.
	Actions []string `json:"actions"`
	// MaxObjects, when above zero, is the most objects a plan may change.
	MaxObjects int32 `json:"maxObjects,omitempty"`
}

// The condition types of ReleaseStatus.Conditions.
const (
	// ConditionReady: the source's latest revision is applied and its
	// checks passed.
	ConditionReady = "Ready"
	// ConditionReconciling: a revision is being fetched, planned or
	// applied.
	ConditionReconciling = "Reconciling"
	// ConditionStalled: the controller cannot go on without a change to
	// the Release, the source or the cluster; the message says which.
	ConditionStalled = "Stalled"
	// ConditionApprovalRequired: a plan waits for its hash in
	// spec.approve.
	ConditionApprovalRequired = "ApprovalRequired"
	// ConditionChecksPassed: the checks of the last run passed.
	ConditionChecksPassed = "ChecksPassed"
	// ConditionDrifted: live objects of the applied revision differ from
	// what it declares (status.drift lists them).
	ConditionDrifted = "Drifted"
	// ConditionPinned: spec.pin holds the Release at a revision; the
	// message names it and the newer plan that waits.
	ConditionPinned = "Pinned"
)

// The values of ReleaseStatus.State: one word for the printer column.
const (
	StateApprovalRequired = "ApprovalRequired"
	StateApplying         = "Applying"
	StateReady            = "Ready"
	// StateDrifted: the source's latest revision is applied, and live
	// objects no longer match it (the Drifted condition says how).
	StateDrifted   = "Drifted"
	StateFailed    = "Failed"
	StateStalled   = "Stalled"
	StateSuspended = "Suspended"
)

// States are the values of ReleaseStatus.State.
var States = []string{StateApprovalRequired, StateApplying, StateReady, StateDrifted, StateFailed, StateStalled, StateSuspended}

// ReleaseStatus is what the controller last saw and did.
type ReleaseStatus struct {
	ObservedGeneration int64              `json:"observedGeneration,omitempty"`
	Conditions         []metav1.Condition `json:"conditions,omitempty"`
	// State is one word summing up the conditions (the State column).
	State string `json:"state,omitempty"`
	// SourceRevision is the source's latest revision: a digest
	// (sha256:...) or a commit, with the tag or branch it came from.
	SourceRevision string `json:"sourceRevision,omitempty"`
	// Plan is the plan of the source's latest revision against the
	// cluster, waiting for approval or applied.
	Plan *PlanSummary `json:"plan,omitempty"`
	// AppliedRevision is the source revision of the last finished run.
	AppliedRevision string `json:"appliedRevision,omitempty"`
	// AppliedPlan is the hash of the plan of the last finished run.
	AppliedPlan string `json:"appliedPlan,omitempty"`
	// Checks are the results of the last run's checks.
	Checks []CheckResult `json:"checks,omitempty"`
	// Runs are the newest runs the controller made, newest first, at
	// most ten.
	Runs []RunSummary `json:"runs,omitempty"`
	// Signer is the controller's state signer line: add it to the
	// state_signers of release.toml so laptops trust its runs.
	Signer string `json:"signer,omitempty"`
	// Failure is the source revision whose runs failed, while it is the
	// latest: how often, why, and when it is tried again.
	Failure *FailureStatus `json:"failure,omitempty"`
	// Synced is the last piceli.dev/sync annotation the controller acted
	// on (`piceli controller sync`).
	Synced string `json:"synced,omitempty"`
	// Drift is what the last comparison of the live objects with the
	// applied revision found, while it found a difference or corrected one;
	// nil when the live objects match.
	Drift *DriftStatus `json:"drift,omitempty"`
	// Pin is spec.pin as the controller last acted on it, with the newer
	// revision it holds back.
	Pin *PinStatus `json:"pin,omitempty"`
	// Stopped is the run `piceli controller stop` ended: the controller
	// does not resume it by itself; the next approved plan runs.
	Stopped *StoppedRun `json:"stopped,omitempty"`
}

// PinStatus is a pin in force.
type PinStatus struct {
	Pin `json:",inline"`
	// LatestRevision is the source's latest revision, held back while it
	// is not the pinned one.
	LatestRevision string `json:"latestRevision,omitempty"`
	// LatestPlan is the hash of that revision's plan: approving it
	// (`piceli controller approve`) applies it and removes the pin.
	LatestPlan string `json:"latestPlan,omitempty"`
}

// StoppedRun is a run stopped on purpose, and the plan it ran.
type StoppedRun struct {
	Run            string      `json:"run"`
	Plan           string      `json:"plan"`
	SourceRevision string      `json:"sourceRevision,omitempty"`
	At             metav1.Time `json:"at,omitempty"`
}

// DriftStatus is what one comparison of the live objects with the applied
// revision found.
type DriftStatus struct {
	// Since is when the controller first found this drift: a comparison
	// that finds the same writes nothing.
	Since metav1.Time `json:"since"`
	// Revision is the applied source revision they were compared with.
	Revision string `json:"revision,omitempty"`
	// Objects are the objects that differ, at most 100.
	Objects []DriftedObject `json:"objects,omitempty"`
	// More counts the differing objects left out of Objects.
	More int32 `json:"more,omitempty"`
	// Corrected is the run that restored this drift (correct mode);
	// empty while it is only reported.
	Corrected string `json:"corrected,omitempty"`
	// Uncorrected says why correct mode left the drift as it is.
	Uncorrected string `json:"uncorrected,omitempty"`
}

// DriftedObject is one object whose live state differs from the applied
// revision.
type DriftedObject struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	// Action is what restoring it takes: "update", or "create" for an
	// object someone deleted.
	Action string         `json:"action"`
	Fields []DriftedField `json:"fields,omitempty"`
}

// DriftedField is one declared field whose live value differs (its path,
// never a value).
type DriftedField struct {
	Path string `json:"path"`
	// Manager is the field manager that changed it, when the object's
	// managedFields tell.
	Manager string `json:"manager,omitempty"`
	// Applied says Manager owns the field by server-side apply, as the
	// release does: correct mode never takes it.
	Applied bool `json:"applied,omitempty"`
}

// MaxAttempts is how many runs of one source revision fail before the
// controller stops trying it by itself (Stalled).
const MaxAttempts = 5

// SyncAnnotation, when its value changes, makes the controller try the
// latest revision again, even one it gave up on (`piceli controller sync`).
const SyncAnnotation = "piceli.dev/sync"

// FailureStatus is the failed runs of one source revision.
type FailureStatus struct {
	SourceRevision string `json:"sourceRevision"`
	Attempts       int32  `json:"attempts"`
	// ChecksFailed says the last run's checks failed: such a revision is
	// never retried by itself.
	ChecksFailed bool        `json:"checksFailed,omitempty"`
	Message      string      `json:"message,omitempty"`
	NextAttempt  metav1.Time `json:"nextAttempt,omitempty"`
}

// PlanSummary is a plan without its manifests: what a person approves.
type PlanSummary struct {
	Hash           string      `json:"hash"`
	SourceRevision string      `json:"sourceRevision"`
	PlannedAt      metav1.Time `json:"plannedAt"`
	// Counts are the steps by action (create, update, no-op, ...).
	Counts map[string]int32 `json:"counts,omitempty"`
	// Changes are the steps that change something, at most 100.
	Changes []Change `json:"changes,omitempty"`
	// More counts the changing steps left out of Changes.
	More int32 `json:"more,omitempty"`
	// ApprovedBy says who approved it: "spec.approve" or "policy";
	// empty while it waits.
	ApprovedBy string `json:"approvedBy,omitempty"`
	// PolicyRefused says why the Policy did not approve it.
	PolicyRefused string `json:"policyRefused,omitempty"`
}

// Change is one object a plan changes, with the paths of its changed
// fields (never a value: a Secret's data shows only its path).
type Change struct {
	Action    string   `json:"action"`
	Kind      string   `json:"kind"`
	Namespace string   `json:"namespace,omitempty"`
	Name      string   `json:"name"`
	Fields    []string `json:"fields,omitempty"`
}

// CheckResult is one check of a run.
type CheckResult struct {
	Name    string `json:"name"`
	Passed  bool   `json:"passed"`
	Message string `json:"message,omitempty"`
}

// RunSummary is one run the controller made.
type RunSummary struct {
	ID             string       `json:"id"`
	Revision       int32        `json:"revision,omitempty"`
	Phase          string       `json:"phase"`
	Plan           string       `json:"plan"`
	SourceRevision string       `json:"sourceRevision"`
	Started        metav1.Time  `json:"started"`
	Finished       *metav1.Time `json:"finished,omitempty"`
	Message        string       `json:"message,omitempty"`
}

// Summary is the drift in one line, by object and field, with who changed
// each field when known: "Deployment/web spec.replicas (by kubectl-edit);
// ConfigMap/settings deleted".
func (d *DriftStatus) Summary() string {
	var parts []string
	for _, o := range d.Objects {
		ref := o.Kind + "/" + o.Name
		if o.Action == "create" {
			parts = append(parts, ref+" deleted")
			continue
		}
		var fields []string
		for _, f := range o.Fields {
			switch {
			case f.Applied:
				fields = append(fields, f.Path+" (applied by "+f.Manager+")")
			case f.Manager != "":
				fields = append(fields, f.Path+" (by "+f.Manager+")")
			default:
				fields = append(fields, f.Path)
			}
		}
		parts = append(parts, ref+" "+strings.Join(fields, ", "))
	}
	s := strings.Join(parts, "; ")
	if d.More > 0 {
		s += fmt.Sprintf("; and %d more objects", d.More)
	}
	return s
}
