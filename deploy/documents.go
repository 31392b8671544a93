package deploy

// DeploySchema versions a ResultDoc and a StateDoc: one deploy, as Run
// ended it or as Show reads it back.
const DeploySchema = "piceli.deploy/v1"

// ResultDoc is how a deploy Run ended, as one versioned document.
type ResultDoc struct {
	Schema    string `json:"schema"` // DeploySchema
	ID        string `json:"id"`
	Status    Status `json:"status"`
	Plan      string `json:"plan"`      // the plan hash, once planned or approved
	Revision  int    `json:"revision"`  // the release revision made, once finished
	Telemetry string `json:"telemetry"` // TelemetryReport.String
	Deploy    *State `json:"deploy"`
}

// Doc returns r as a ResultDoc.
func (r *Result) Doc() ResultDoc {
	return ResultDoc{Schema: DeploySchema, ID: r.ID, Status: r.Status, Plan: r.Plan,
		Revision: r.Revision, Telemetry: r.Telemetry.String(), Deploy: r.State}
}

// StateDoc is one deploy as Show reads it back, as a versioned document.
type StateDoc struct {
	Schema string `json:"schema"` // DeploySchema
	Deploy *State `json:"deploy"`
}

// NewStateDoc returns st as a StateDoc.
func NewStateDoc(st *State) StateDoc { return StateDoc{Schema: DeploySchema, Deploy: st} }

// HistorySchema versions a HistoryDoc.
const HistorySchema = "piceli.deploy-history/v1"

// HistoryDoc is every deploy of a release, as History returns them, as
// one versioned document.
type HistoryDoc struct {
	Schema  string   `json:"schema"` // HistorySchema
	Deploys []*State `json:"deploys"`
}

// NewHistoryDoc returns all as a HistoryDoc.
func NewHistoryDoc(all []*State) HistoryDoc { return HistoryDoc{Schema: HistorySchema, Deploys: all} }
