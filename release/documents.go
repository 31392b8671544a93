package release

// The versioned documents "-o json" prints for results that are not
// documents themselves: each wraps one result beside its schema, keeping
// the shape the CLI has always printed.

// HistorySchema versions a HistoryDoc.
const HistorySchema = "piceli.history/v1"

// HistoryDoc is a release's revisions, as History returns them, as one
// versioned document.
type HistoryDoc struct {
	Schema    string     `json:"schema"` // HistorySchema
	Revisions []Revision `json:"revisions"`
}

// NewHistoryDoc returns revs as a HistoryDoc.
func NewHistoryDoc(revs []Revision) HistoryDoc {
	return HistoryDoc{Schema: HistorySchema, Revisions: revs}
}

// StateInfoSchema versions a StateInfoDoc.
const StateInfoSchema = "piceli.state/v1"

// StateInfoDoc is what State.Show found, as one versioned document.
type StateInfoDoc struct {
	Schema string     `json:"schema"` // StateInfoSchema
	State  *StateInfo `json:"state"`
}

// NewStateInfoDoc returns info as a StateInfoDoc.
func NewStateInfoDoc(info *StateInfo) StateInfoDoc {
	return StateInfoDoc{Schema: StateInfoSchema, State: info}
}

// StateKeySchema versions a StateKeyDoc.
const StateKeySchema = "piceli.state-key/v1"

// StateKeyDoc is this machine's state signing key (its public half and
// file, never the private key) as one versioned document.
type StateKeyDoc struct {
	Schema string    `json:"schema"` // StateKeySchema
	Key    *StateKey `json:"key"`
}

// NewStateKeyDoc returns k as a StateKeyDoc.
func NewStateKeyDoc(k *StateKey) StateKeyDoc {
	return StateKeyDoc{Schema: StateKeySchema, Key: k}
}

// GCSchema versions a GCDoc.
const GCSchema = "piceli.gc/v1"

// GCDoc is what GC pruned, or would prune, as one versioned document.
type GCDoc struct {
	Schema string    `json:"schema"` // GCSchema
	Report *GCReport `json:"report"`
}

// NewGCDoc returns rep as a GCDoc.
func NewGCDoc(rep *GCReport) GCDoc {
	return GCDoc{Schema: GCSchema, Report: rep}
}

// StopRequestSchema versions a StopRequestDoc.
const StopRequestSchema = "piceli.stop-request/v1"

// StopRequestDoc is the request Stop left for a running run, as one
// versioned document.
type StopRequestDoc struct {
	Schema  string       `json:"schema"` // StopRequestSchema
	Request *StopRequest `json:"request"`
}

// NewStopRequestDoc returns req as a StopRequestDoc.
func NewStopRequestDoc(req *StopRequest) StopRequestDoc {
	return StopRequestDoc{Schema: StopRequestSchema, Request: req}
}

// ChecksSchema versions a ChecksDoc.
const ChecksSchema = "piceli.checks/v1"

// ChecksDoc is the results of a release's checks, as one versioned
// document: Passed is true when every check passed (or none is declared).
type ChecksDoc struct {
	Schema  string        `json:"schema"` // ChecksSchema
	Release string        `json:"release"`
	Passed  bool          `json:"passed"`
	Checks  []CheckResult `json:"checks"`
}

// NewChecksDoc returns the results of release name's checks as a
// ChecksDoc.
func NewChecksDoc(name string, results []CheckResult) ChecksDoc {
	doc := ChecksDoc{Schema: ChecksSchema, Release: name, Passed: true, Checks: results}
	if doc.Checks == nil {
		doc.Checks = []CheckResult{}
	}
	for _, c := range results {
		doc.Passed = doc.Passed && c.Passed
	}
	return doc
}

// AccessEventSchema versions an AccessEventDoc.
const AccessEventSchema = "piceli.access/v1"

// AccessEventDoc is an AccessEvent as one versioned document: "access -o
// json" prints one per line. Empty fields are left out.
type AccessEventDoc struct {
	Schema    string          `json:"schema"` // AccessEventSchema
	Event     AccessEventKind `json:"event"`
	Namespace string          `json:"namespace"`
	Service   string          `json:"service"`
	Port      int32           `json:"port,omitempty"`
	PortName  string          `json:"portName,omitempty"`
	Local     string          `json:"local,omitempty"` // ADDRESS:PORT on loopback
	Pod       string          `json:"pod,omitempty"`
	Previous  string          `json:"previous,omitempty"`
	Reason    string          `json:"reason,omitempty"`
}

// Doc returns e as an AccessEventDoc.
func (e AccessEvent) Doc() AccessEventDoc {
	d := AccessEventDoc{Schema: AccessEventSchema, Event: e.Kind, Namespace: e.Namespace, Service: e.Service,
		Port: e.Port, PortName: e.PortName, Pod: e.Pod, Previous: e.Previous, Reason: e.Reason}
	if e.Local.IsValid() {
		d.Local = e.Local.String()
	}
	return d
}
