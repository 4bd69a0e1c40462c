package session

import (
	"context"
	"errors"
	"fmt"

	"go.starlark.net/starlark"

	"rooda/host"
	"rooda/host/config"
	"rooda/host/engine"
	"rooda/host/loop"
	"rooda/host/process"
	"rooda/host/prompt"
	"rooda/host/worktree"
)

// IterateSpec is what a script's iterate() asks, in Go's types.
type IterateSpec struct {
	Procedure *config.Procedure
	// Pos is where iterate() was called ("main.star:12"): the source of
	// the script's settings.
	Pos string
	// Settings are the settings of the table the script gave, as text
	// for their parsers, in the order of iterate()'s parameters.
	Settings []config.Assignment
	Agents   []Agent
	Context  []prompt.ContextValue
	// ContextFunc gives each iteration's context, given the previous
	// iteration of this loop (nil before the first); Verdict may change
	// each iteration's outcome. Both are the script's functions and run
	// on the thread's goroutine.
	ContextFunc func(iteration int, previous *loop.Iteration) ([]prompt.ContextValue, error)
	Verdict     func(*loop.Iteration) (loop.Decision, error)
	// Fakes, when set, answer instead of agent processes, taking turns: a
	// script test's fake_agent()s.
	Fakes []*FakeAgent
	// Roles, when set, hold for each agent (of Agents, or of Fakes) the
	// procedure it is given instead of Procedure; nil keeps Procedure.
	Roles []*config.Procedure
	// AgentFunc, when set, chooses the agent of each iteration instead of
	// Agents and Fakes: the script's function, called before each
	// iteration with its number and the previous iteration of this loop
	// (nil before the first), on the thread's goroutine. AgentFuncName
	// names it in the dry run.
	AgentFunc     func(iteration int, previous *loop.Iteration) (Choice, error)
	AgentFuncName string
	// Promises are the promise words the preamble names and the loop
	// looks for; the zero value is SUCCESS and FAILURE.
	Promises prompt.Promises
	// Worktree, when set, is where the loop's agent works: a worktree of
	// the run (iterate(worktree=…)).
	Worktree *worktree.Worktree
}

// Iterate runs one loop a script asked for, through the same engine as a
// YAML procedure. The host's rules come first: the command line's
// settings beat the script's, the run-wide iteration budget caps every
// loop, an interrupt or the duration budget ends the script, and in a dry
// run the loop is reported, not run.
func (s *Session) Iterate(thread *starlark.Thread, spec IterateSpec) (loop.Result, error) {
	if thread.Local(iteratingKey) != nil {
		// A loop inside a loop's callback would escape the budgets and
		// interleave two loops' agents.
		return loop.Result{}, errors.New("iterate() cannot be called while a loop runs (from on_iteration, a context function or an agent function)")
	}
	var callbackErr error
	previous := &previousIteration{}
	var chooser *choosing
	if spec.AgentFunc != nil {
		chooser = &choosing{fn: spec.AgentFunc, previous: previous, keep: &callbackErr, test: s.opts.Test}
		thread.SetLocal(iteratingKey, true)
		err := chooser.first(&spec)
		thread.SetLocal(iteratingKey, nil)
		if err != nil {
			return loop.Result{}, err
		}
	}
	if s.opts.Test && len(spec.Fakes) == 0 {
		return loop.Result{}, errors.New("a script test starts no real agent: give iterate() agent=fake_agent(…)")
	}
	req, err := s.request(spec, chooser)
	if err != nil {
		return loop.Result{}, err
	}
	ctx := host.Context(thread)
	plan, err := engine.Prepare(ctx, req)
	switch {
	case ctx.Err() != nil:
		// The checks stopped waiting for a pipe at the interrupt: what
		// they report is the interrupt's doing.
		return loop.Result{}, host.StopCause(ctx)
	case err != nil:
		return loop.Result{}, err
	}
	s.capByCommandLine(plan, req)
	plan.ContextFunc, plan.Verdict = keepingErrors(spec.ContextFunc, previous, &callbackErr), verdictKeepingErrors(spec.Verdict, &callbackErr)
	// Fake agents start no process, so a dry run (a REPL's) lets them
	// answer: trying a test out at the prompt needs their prompts.
	if s.opts.DryRun && len(spec.Fakes) == 0 {
		s.ended(thread, loop.Result{Status: loop.DryRun})
		if s.opts.Describe != nil {
			return loop.Result{Status: loop.DryRun}, plan.Describe(s.opts.Describe, spec.Pos)
		}
		// A loop not ready is counted, and the script goes on, so that
		// every loop shows with every problem (rehearsal.go).
		err := plan.DryRun(s.opts.Stdout, s.opts.Command)
		if err != nil && !errors.Is(err, engine.ErrDryRunFailed) {
			return loop.Result{}, err
		}
		s.rehearsed(plan.Procedure.Name, spec.Pos, err)
		fmt.Fprintln(s.opts.Stdout)
		return loop.Result{Status: loop.DryRun}, nil
	}
	if err := plan.Err(); err != nil {
		return loop.Result{}, fmt.Errorf("cannot run %s:\n%w", plan.Procedure.Name, err)
	}
	dir := ""
	if spec.Worktree != nil {
		dir = spec.Worktree.Path
	}
	key, err := s.startLoop(thread, "iterate", spec.Pos, plan.Procedure.Name, append(plan.Settings.Values(), loopFacts(plan, dir)...))
	if err != nil {
		return loop.Result{}, err
	}
	capped, reserved, err := s.capIterations(plan)
	if err != nil {
		return loop.Result{}, err
	}
	name := ""
	if b, ok := thread.Local(loopKey).(*branch); ok {
		if recorded, ok := s.recordedLoopName(key); ok {
			// Resumed, it keeps the name it had: of two loops of one
			// name, which was told apart was the order they started in.
			name = b.keepName(recorded)
		} else {
			name = b.loopName(plan.Procedure.Name, spec.Worktree)
		}
	}
	out := s.output(plan, name, dir, key)
	if spec.Worktree != nil {
		s.sayLostWork(key, spec.Worktree, plan.Procedure.Name)
	}
	spending := s.startSpending()
	out.SpentElsewhere = spending.elsewhere
	thread.SetLocal(iteratingKey, true)
	res := s.execute(ctx, plan, out, collector{s.rt}, previous, spending)
	thread.SetLocal(iteratingKey, nil)
	s.count(res, reserved, spending)
	switch {
	case ctx.Err() != nil:
		return res, host.StopCause(ctx)
	case callbackErr != nil:
		// The script's own error stops it, with the callback's backtrace.
		return res, callbackErr
	case errors.As(res.Err, new(*loop.TurnError)), errors.As(res.Err, new(*loop.ResumeError)):
		// The agent its function chose cannot run: the script's mistake;
		// or the journal cannot answer as the run went: the resume stops.
		return res, res.Err
	case capped && res.Status == loop.MaxIters:
		return res, s.iterationBudget()
	case res.Status == loop.OverBudget && !ownBudget(plan, res.Err):
		// The user's budgets are the run's: the script ends with the loop.
		return res, runBudget(res.Err)
	}
	s.ended(thread, res)
	return res, nil
}

// request turns the script's settings into a tier of their own, between
// the configuration and the command line, checked by the configuration's
// rules.
func (s *Session) request(spec IterateSpec, chooser *choosing) (engine.Request, error) {
	req := engine.Request{Config: s.opts.Config, Procedure: spec.Procedure, Context: spec.Context, Promises: spec.Promises}
	if fakes := spec.Fakes; len(fakes) > 0 {
		req.Runner = func(ctx context.Context, n int, cmd process.Command) (process.Result, loop.Spend, error) {
			if chooser != nil {
				return chooser.current.Run(ctx, cmd, s.opts.Clock)
			}
			return fakes[(n-1)%len(fakes)].Run(ctx, cmd, s.opts.Clock)
		}
	}
	src := config.Source{Tier: config.Script, Name: spec.Pos}
	if err := req.Script.Assign(spec.Settings, src); err != nil {
		return req, err
	}
	if len(spec.Agents) > 0 {
		first := spec.Agents[0]
		key, text := "ai_cmd", first.Line
		if first.Alias != "" {
			key, text = "ai_cmd_alias", first.Alias
		}
		if err := req.Script.Set(key, text, src); err != nil {
			return req, fmt.Errorf("agent %w", err)
		}
	}
	req.Turns = turns(spec)
	if chooser != nil {
		req.Choose, req.Chooser = chooser.next, spec.AgentFuncName
		if len(spec.Fakes) > 0 {
			req.Turns[0].Name = chooser.fakeName(spec.Fakes[0])
		}
	}
	return req, nil
}

// turns are the agents of an iterate() that take turns, with their names,
// the formats of what they print and their roles: in a rotation of claude
// and gemini each one's JSON is read as its own.
func turns(spec IterateSpec) []engine.Turn {
	var out []engine.Turn
	for _, a := range spec.Agents {
		out = append(out, engine.Turn{Name: a.Name(), Line: a.Line, Output: a.Output})
	}
	for i, f := range spec.Fakes {
		name := "fake_agent"
		if len(spec.Fakes) > 1 {
			name = fmt.Sprintf("fake_agent %d", i+1)
		}
		if f.Name != "" {
			name = f.Name
		}
		out = append(out, engine.Turn{Name: name, Output: string(f.Format)})
	}
	for i, role := range spec.Roles {
		if i < len(out) {
			out[i].Role = role
		}
	}
	return out
}

// keepingErrors wraps a script's context function: it keeps the function's
// error for the script, and takes an empty result (a command that printed
// nothing) for no context.
func keepingErrors(fn func(int, *loop.Iteration) ([]prompt.ContextValue, error), previous *previousIteration, keep *error) func(int) ([]prompt.ContextValue, error) {
	if fn == nil {
		return nil
	}
	return func(n int) ([]prompt.ContextValue, error) {
		values, err := fn(n, previous.it)
		if err != nil {
			*keep = err
			return nil, err
		}
		var kept []prompt.ContextValue
		for _, v := range values {
			if v.Value != "" {
				kept = append(kept, v)
			}
		}
		return kept, nil
	}
}

// previousIteration keeps the loop's last finished iteration, for the
// context function: what happened carries into the next prompt without a
// closure over a mutable dict.
type previousIteration struct{ it *loop.Iteration }

func (p *previousIteration) IterationStarted(loop.Request)        {}
func (p *previousIteration) IterationFinished(it *loop.Iteration) { p.it = it }

// verdictKeepingErrors wraps a script's on_iteration, keeping its error for the script.
func verdictKeepingErrors(fn func(*loop.Iteration) (loop.Decision, error), keep *error) func(*loop.Iteration) (loop.Decision, error) {
	if fn == nil {
		return nil
	}
	return func(it *loop.Iteration) (loop.Decision, error) {
		o, err := fn(it)
		if err != nil {
			*keep = err
		}
		return o, err
	}
}

// capByCommandLine makes --max-iterations a cap on each iterate(), not a
// replacement: a script's structural max_iterations=1 (a review that must
// run once) stays 1 under -n 3. The smaller of the command line's count
// and what the script, its procedure or the configuration give wins.
func (s *Session) capByCommandLine(plan *engine.Plan, req engine.Request) {
	cli := config.DefaultMaxIterations.In(&s.opts.Config.Run)
	if !cli.Set || config.IterationMode.In(&s.opts.Config.Run).Set {
		return
	}
	without := *s.opts.Config
	without.Run = without.Run.Without(config.DefaultMaxIterations.Key)
	below := without.ResolveWith(plan.Settings.Procedure, req.Script).MaxIterations
	if below.V > 0 && below.V < cli.V {
		plan.Settings.MaxIterations = below
	}
}

// collector lets the runtime collect what each iteration left (see
// host.Runtime.Collect).
type collector struct{ rt *host.Runtime }

func (c collector) IterationStarted(loop.Request)     {}
func (c collector) IterationFinished(*loop.Iteration) { c.rt.Collect() }
