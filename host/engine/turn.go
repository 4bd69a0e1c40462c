package engine

import (
	"rooda/host/agentstream"
	"rooda/host/loop"
	"rooda/host/process"
	"rooda/host/prompt"
)

// chosenTurn is the agent a script's function chose for one iteration,
// worked out as a rotation's turns are before the run.
type chosenTurn struct {
	n      int
	name   string
	argv   []string
	format agentstream.Format
	// role is the prompt of the agent's role; nil for the loop's.
	role *prompt.Procedure
}

// chosenFor is the turn chosen for iteration n, or nil when its agent is
// the plan's own (the first iteration, a rotation, no function).
func (p *Plan) chosenFor(n int) *chosenTurn {
	if p.chosen != nil && p.chosen.n == n {
		return p.chosen
	}
	return nil
}

// turn says who runs iteration n, before its prompt is composed: the
// agent of its turn in a rotation, or from the second iteration on the
// one the script's function chooses, with its role.
func (p *Plan) turn(n int) (loop.Turn, error) {
	if p.Choose != nil && n > 1 {
		if err := p.choose(n); err != nil {
			return loop.Turn{}, err
		}
		t := loop.Turn{Agent: p.chosen.name}
		if p.chosen.role != nil {
			t.Role = p.chosen.role.Name
		}
		return t, nil
	}
	t := loop.Turn{Agent: p.agentOf(n)}
	if len(p.roleNames) > 0 {
		t.Role = of(p, p.roleNames, n)
	}
	return t, nil
}

// choose asks the script's function for iteration n's agent and checks
// it as a rotation's agents are checked before the run: a command line
// rooda can split, whose program exists. The command line's agent, when
// it names one, replaces the agent chosen, not its role.
func (p *Plan) choose(n int) error {
	t, err := p.Choose(n)
	if err != nil {
		return err
	}
	if err := p.outError(t.Name); err != nil {
		return err
	}
	c := &chosenTurn{n: n, name: t.Name, argv: p.Argv, format: p.Formats[0]}
	if t.Role != nil {
		phases := t.Role.Prompt()
		override(&phases, p.given)
		c.role = &phases
	}
	switch {
	case p.overridden:
		c.name = p.Agents[0]
	case p.Runner != nil:
		c.format = formatFor(t.Output, nil)
	default:
		argv, err := process.Split(t.Line)
		if err != nil {
			return err
		}
		if _, err := process.Find(argv[0]); err != nil {
			return err
		}
		c.argv, c.format = argv, formatFor(t.Output, argv)
		p.warnChosen(c.name, c.format)
	}
	p.chosen = c
	return nil
}
