package session

import (
	"errors"
	"fmt"

	"rooda/host/config"
	"rooda/host/engine"
	"rooda/host/loop"
)

// Choice is the agent a script's agent function chose for one iteration:
// a real agent or, in a script test, a fake one, with its role.
type Choice struct {
	Agent Agent
	Fake  *FakeAgent
	// Role, when set, is the procedure whose prompt the agent is given.
	Role *config.Procedure
}

// choosing is a loop whose agent a script's function chooses before each
// iteration, given its number and the previous iteration of the loop:
// escalation from a cheap agent to a strong one in one loop.
type choosing struct {
	fn       func(iteration int, previous *loop.Iteration) (Choice, error)
	previous *previousIteration
	// keep receives the function's errors, for the script: its own
	// traceback, not the loop's words for it.
	keep *error
	test bool
	// fakes are the fake agents chosen so far, in the order they were
	// first chosen: they are named by it. current is the one whose turn
	// it is.
	fakes   []*FakeAgent
	current *FakeAgent
}

// first chooses the first iteration's agent, before the loop is planned,
// and puts it in spec as if the script had named it: its checks and the
// dry run are those of any agent.
func (c *choosing) first(spec *IterateSpec) error {
	ch, err := c.fn(1, nil)
	if err != nil {
		return err
	}
	if err := c.allowed(ch); err != nil {
		return err
	}
	if ch.Fake != nil {
		spec.Fakes = []*FakeAgent{c.chose(ch.Fake)}
	} else {
		spec.Agents = []Agent{ch.Agent}
	}
	if ch.Role != nil {
		spec.Roles = []*config.Procedure{ch.Role}
	}
	return nil
}

// next chooses iteration n's agent, as the iteration starts.
func (c *choosing) next(n int) (engine.Turn, error) {
	ch, err := c.fn(n, c.previous.it)
	if err == nil {
		err = c.allowed(ch)
	}
	if err != nil {
		*c.keep = err
		return engine.Turn{}, err
	}
	if ch.Fake != nil {
		c.chose(ch.Fake)
		return engine.Turn{Name: c.fakeName(ch.Fake), Output: string(ch.Fake.Format), Role: ch.Role}, nil
	}
	return engine.Turn{Name: ch.Agent.Name(), Line: ch.Agent.Line, Output: ch.Agent.Output, Role: ch.Role}, nil
}

// allowed refuses a choice a loop cannot take: a real agent in a script
// test, or fake agents and real ones in one loop.
func (c *choosing) allowed(ch Choice) error {
	switch {
	case c.test && ch.Fake == nil:
		return errors.New("a script test starts no real agent: the agent function must return a fake_agent(…)")
	case len(c.fakes) > 0 && ch.Fake == nil:
		return errors.New("the agent function returned a real agent after a fake one: fake agents and real ones cannot take turns")
	}
	return nil
}

// chose makes f the fake agent whose turn it is, and returns it.
func (c *choosing) chose(f *FakeAgent) *FakeAgent {
	if c.fakeName(f) == "" {
		c.fakes = append(c.fakes, f)
	}
	c.current = f
	return f
}

// fakeName names a chosen fake agent by its name, else by the order in
// which it was first chosen: "fake_agent 1", "fake_agent 2"; "" for one
// not chosen yet.
func (c *choosing) fakeName(f *FakeAgent) string {
	for i, g := range c.fakes {
		switch {
		case g == f && f.Name != "":
			return f.Name
		case g == f:
			return fmt.Sprintf("fake_agent %d", i+1)
		}
	}
	return ""
}
