package graph

import (
	"sort"
	"strings"

	pub "github.com/pynenc/piceli/plan"
)

// Node is one object to order: its stage and the indexes (into the same
// slice) of the nodes it explicitly depends on.
type Node struct {
	Name      string // printed in errors, e.g. "Deployment/shop/api"
	Stage     Stage
	DependsOn []int
}

// Wave is a group of nodes that may be applied together: every node's
// stage and dependencies are satisfied by earlier waves. It lives in the
// public package plan, whose documents hold waves.
type Wave = pub.Wave

// CycleError reports explicit dependencies that form a cycle.
type CycleError struct {
	Cycle []string // node names, the first repeated at the end
}

func (e *CycleError) Error() string {
	return "dependency cycle: " + strings.Join(e.Cycle, " -> ")
}

// Waves orders nodes into waves: a node comes after every node of an
// earlier stage and after each node it depends on. A dependency inside one
// stage splits that stage into several waves. Nodes keep their input order
// within a wave. A cycle is a *CycleError naming it.
func Waves(nodes []Node) ([]Wave, error) {
	levels, err := levels(nodes)
	if err != nil {
		return nil, err
	}
	return group(nodes, levels), nil
}

// levels assigns each node a level: at least its stage's base, and above
// every dependency's level.
func levels(nodes []Node) ([]int, error) {
	const perStage = 1 << 16
	lv := make([]int, len(nodes))
	state := make([]int8, len(nodes)) // 0 new, 1 visiting, 2 done
	var visit func(i int, path []int) error
	visit = func(i int, path []int) error {
		switch state[i] {
		case 2:
			return nil
		case 1:
			return cycle(nodes, append(path, i))
		}
		state[i] = 1
		lv[i] = nodes[i].Stage.Rank() * perStage
		for _, d := range nodes[i].DependsOn {
			if err := visit(d, append(path, i)); err != nil {
				return err
			}
			lv[i] = max(lv[i], lv[d]+1)
		}
		state[i] = 2
		return nil
	}
	for i := range nodes {
		if err := visit(i, nil); err != nil {
			return nil, err
		}
	}
	return lv, nil
}

func cycle(nodes []Node, path []int) error {
	last := path[len(path)-1]
	start := 0
	for k, i := range path {
		if i == last {
			start = k
			break
		}
	}
	var names []string
	for _, i := range path[start:] {
		names = append(names, nodes[i].Name)
	}
	return &CycleError{Cycle: names}
}

// group collects nodes of equal level into waves, in level order. A wave is
// named after the stage of its first node.
func group(nodes []Node, lv []int) []Wave {
	byLevel := map[int][]int{}
	for i := range nodes {
		byLevel[lv[i]] = append(byLevel[lv[i]], i)
	}
	keys := make([]int, 0, len(byLevel))
	for k := range byLevel {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	waves := make([]Wave, len(keys))
	for w, k := range keys {
		waves[w] = Wave{Stage: nodes[byLevel[k][0]].Stage, Nodes: byLevel[k]}
	}
	return waves
}
