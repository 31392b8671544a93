package release

import (
	"context"
	"time"

	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/plan"
)

// DriftSchema versions the document Drift returns.
const DriftSchema = "piceli.drift/v1"

// DriftReport is what differs between the cluster and the objects of the
// release's latest revision: what someone changed since the release
// applied them.
type DriftReport struct {
	Schema    string `json:"schema"` // DriftSchema
	Release   string `json:"release"`
	Namespace string `json:"namespace"`
	// Revision is the latest revision, whose objects were compared; 0
	// when the release has none yet (and nothing was compared).
	Revision  int       `json:"revision"`
	CheckedAt time.Time `json:"checkedAt"`
	// Objects are the objects that differ; none when the cluster is what
	// the revision left.
	Objects []plan.DriftedObject `json:"objects"`
}

// Drifted says whether anything differs.
func (d *DriftReport) Drifted() bool { return len(d.Objects) > 0 }

// Drift compares the objects of the release's latest revision with the
// cluster: it plans them as a rollback to that revision would (Secret
// values from the store versions it used), taking back what others
// edited (PlanOptions.Reclaim is implied), and lists every object the
// plan would change, with the fields and the managers that changed them
// (plan.Plan.Drift). Objects the release's records say are as it wrote
// them are not dry-run. Nothing is stored and nothing is written; the
// dry-runs need the rights a plan needs.
func (r *Release) Drift(ctx context.Context, opts PlanOptions) (*DriftReport, error) {
	s, err := r.open(ctx)
	if err != nil {
		return nil, err
	}
	defer s.client.CloseIdle()
	rep := &DriftReport{Schema: DriftSchema, Release: r.Name(), Namespace: r.spec.Target.Namespace, CheckedAt: time.Now().UTC(), Objects: []plan.DriftedObject{}}
	latest, err := history.Latest(r.StateDir())
	if err != nil || latest == nil {
		return rep, err
	}
	if rep.Revision, err = s.useRevision(latest.Number); err != nil {
		return nil, refuse(err)
	}
	if err := s.makePlan(ctx, planning{allowReplace: opts.AllowReplace, reclaim: true, parallel: opts.Parallel}); err != nil {
		return nil, err
	}
	rep.Objects = append(rep.Objects, s.plan.Drift()...)
	return rep, nil
}
