package plan

import (
	"github.com/pynenc/piceli/internal/graph"
	"github.com/pynenc/piceli/internal/object"
)

// dependencies fills each step's DependsOn from its object's declared
// dependencies: a component name stands for that component's workload
// (its Deployment, StatefulSet, Job or CronJob), an origin entry
// (object.DependencyOnOrigin) for the object declared there.
func (m *maker) dependencies(steps []Step) {
	kinds := map[string]string{}
	for _, c := range m.in.Components {
		kinds[c.Name] = c.Kind
	}
	workload := map[string]object.Ref{}
	for _, s := range steps {
		if s.Origin == "component "+s.Ref.Name && kinds[s.Ref.Name] == s.Ref.Kind {
			workload[s.Ref.Name] = s.Ref
		}
	}
	byOrigin := map[string]object.Ref{}
	for _, s := range steps {
		byOrigin[s.Origin] = s.Ref
	}
	for i, o := range m.in.Objects {
		for _, d := range o.DependsOn {
			if ref, ok := dependency(d, workload, byOrigin); ok {
				steps[i].DependsOn = append(steps[i].DependsOn, ref)
			}
		}
	}
}

// dependency resolves one DependsOn entry: a component's workload, or an
// object named by its origin (object.DependencyOnOrigin).
func dependency(entry string, workload, byOrigin map[string]object.Ref) (object.Ref, bool) {
	if origin, ok := object.OriginOfDependency(entry); ok {
		ref, found := byOrigin[origin]
		return ref, found
	}
	ref, ok := workload[entry]
	return ref, ok
}

// nodes turns steps into graph nodes. Deletes go last, in a stage of their
// own after every other wave.
func nodes(steps []Step) []graph.Node {
	index := map[object.Ref]int{}
	for i, s := range steps {
		index[s.Ref] = i
	}
	out := make([]graph.Node, len(steps))
	for i, s := range steps {
		out[i] = graph.Node{Name: s.Ref.String(), Stage: s.Stage}
		if s.Action == Delete {
			out[i].Stage = graph.StagePrune
		}
		for _, d := range s.DependsOn {
			out[i].DependsOn = append(out[i].DependsOn, index[d])
		}
	}
	return out
}
