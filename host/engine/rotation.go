package engine

import (
	"fmt"
	"slices"
	"sync"
)

// A loop of several agents goes on past one that cannot log in or cannot
// start (issue 39): that agent is taken out of the rotation for the rest
// of the loop, and the turns go round the others. Iteration n's turn is
// its slot in the rotation, fixed as the iteration starts, so a resumed
// run, whose replayed iterations take the same agents out in the same
// order, gives each iteration the agent it had.
type rotation struct {
	mu sync.Mutex
	// out are the agents taken out, by name, with the iteration that
	// took each out.
	out map[string]int
	// slots[n-1] is iteration n's slot.
	slots []int
}

// slot is iteration n's turn among the plan's turns: the next one after
// iteration n-1's whose agent is not out.
func (p *Plan) slot(n int) int {
	r := &p.rotation
	r.mu.Lock()
	defer r.mu.Unlock()
	for len(r.slots) < n {
		next := 0
		if k := len(r.slots); k > 0 {
			next = r.slots[k-1] + 1
		}
		r.slots = append(r.slots, p.nextIn(next))
	}
	return r.slots[n-1]
}

// nextIn is the first slot from from, going round, whose agent is in.
func (p *Plan) nextIn(from int) int {
	turns := p.turns()
	for i := range turns {
		s := (from + i) % turns
		if _, out := p.rotation.out[p.agentIn(s)]; !out {
			return s
		}
	}
	return from % turns // every agent is out: the loop has ended
}

// turns is how many turns the rotation has: 1 without one.
func (p *Plan) turns() int {
	return max(1, len(p.Agents), len(p.Rotation), len(p.Formats), len(p.Roles), len(p.roleNames))
}

// agentIn names the agent of slot s.
func (p *Plan) agentIn(s int) string {
	if len(p.Agents) == 0 {
		return "the agent"
	}
	return p.Agents[s%len(p.Agents)]
}

// of is the entry of list for iteration n's slot.
func of[T any](p *Plan, list []T, n int) T {
	return list[p.slot(n)%len(list)]
}

// takeOut takes agent out of the rotation, in iteration n, and returns
// the agents left in it; nil when the loop has no rotation to go on
// with (one agent), and for a script's agent function, which chooses
// among agents rooda does not know, the agent alone is taken out and
// left is every other (the function is told of the one out if it
// chooses it again).
func (p *Plan) takeOut(agent string, n int) (left []string) {
	if p.Choose == nil && len(distinct(p.Agents)) < 2 {
		return nil
	}
	r := &p.rotation
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.out == nil {
		r.out = map[string]int{}
	}
	if _, out := r.out[agent]; !out {
		r.out[agent] = n
	}
	if p.Choose != nil {
		return []string{"the agents the script's function chooses"}
	}
	for _, a := range distinct(p.Agents) {
		if _, out := r.out[a]; !out {
			left = append(left, a)
		}
	}
	return left
}

// outError is the error of a chosen agent already taken out; nil for
// one in the rotation.
func (p *Plan) outError(agent string) error {
	p.rotation.mu.Lock()
	defer p.rotation.mu.Unlock()
	if n, out := p.rotation.out[agent]; out {
		return fmt.Errorf("the function chose %s, which was taken out of the rotation in iteration %d (it cannot log in or cannot start)", agent, n)
	}
	return nil
}

// distinct are names without repeats, in their order.
func distinct(names []string) []string {
	var seen []string
	for _, n := range names {
		if !slices.Contains(seen, n) {
			seen = append(seen, n)
		}
	}
	return seen
}
