package engine

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"rooda/host/agents"
	"rooda/host/agentstream"
	"rooda/host/config"
	"rooda/host/files"
	"rooda/host/loop"
	"rooda/host/process"
	"rooda/host/prompt"
)

// Request is what the command line, or a script, asks to run.
type Request struct {
	Config *config.Config
	Name   string
	// Procedure, when set, is run instead of the one Name names: a
	// script's compose()d procedure.
	Procedure *config.Procedure
	// Script holds what a script passed to iterate(): settings above the
	// configuration, below the command line.
	Script config.Limits
	// Turns, when a script gives several agents, take turns: iteration N
	// is Turns[(N-1) % len]'s. The command line's --ai-cmd or
	// --ai-cmd-alias replaces their agents, not their roles.
	Turns []Turn
	// Choose, when set, chooses the agent of each iteration from the
	// second on (a script's agent function), which Turns[0] is the
	// first's; it is called before the iteration's prompt is composed.
	// The command line's --ai-cmd or --ai-cmd-alias replaces the agents
	// it chooses, not their roles.
	Choose func(iteration int) (Turn, error)
	// Chooser names Choose for the dry run: the script's function.
	Chooser string
	// Promises are the promise words the preamble names and the loop
	// looks for; the zero value is SUCCESS and FAILURE.
	Promises prompt.Promises
	// Runner, when set, stands in for the agent process (a script test's
	// fake_agent): nothing is started, and there is no binary to check.
	// Besides what it printed, it says what it spent when it is read as
	// text (a CLI's format carries that in its output).
	Runner Runner
	// Context holds the context values, in order: the command line's
	// --context, or a script's texts and files.
	Context []prompt.ContextValue
	// Phases holds --observe, --orient, --decide and --act values by
	// phase; a phase given any replaces the procedure's.
	Phases [len(prompt.Phases)][]string
}

// Turn is one of the agents a script's iterate() rotates through.
type Turn struct {
	// Name is what the log, the record and the script call the agent:
	// its alias, or its command line.
	Name string
	// Line is its command line ("" for a fake agent).
	Line string
	// Output is the format of what it prints (config.Alias.Output).
	Output string
	// Role, when set, is the procedure whose prompt this agent is given
	// instead of the loop's: a builder and a reviewer in one loop.
	Role *config.Procedure
}

// Runner runs iteration's agent in place of a process: a script test's
// fake agent.
type Runner func(ctx context.Context, iteration int, cmd process.Command) (process.Result, loop.Spend, error)

// Plan is a run worked out and checked, ready to execute or to show.
type Plan struct {
	Settings  *config.Settings
	Procedure prompt.Procedure
	Context   []prompt.ContextValue
	// Argv is the agent's command, split; nil if it could not be worked out.
	Argv []string
	// Rotation, when not nil, holds the agents that take turns.
	Rotation [][]string
	// Formats are the formats of what each turn's agent prints (one when
	// there is no rotation): text, or a CLI's JSON stream, decoded.
	Formats []agentstream.Format
	// PriceOf prices the tokens of a model whose CLI reports no cost.
	PriceOf func(model string) (config.Price, bool)
	// Agents name the agent of each turn (one when there is no rotation).
	Agents []string
	// Roles, when not nil, are the prompts of each turn: Procedure, or
	// the turn's role.
	Roles  []prompt.Procedure
	Checks []Check
	// ContextFunc, when set, gives each iteration's context instead of
	// Context: a script's context function.
	ContextFunc func(iteration int) ([]prompt.ContextValue, error)
	// Verdict, when set, may change the loop's verdict on an iteration: a
	// script's on_iteration.
	Verdict func(*loop.Iteration) (loop.Decision, error)
	// Runner stands in for the agent process when set (Request.Runner).
	Runner Runner
	// Promises are the promise words (Request.Promises).
	Promises prompt.Promises
	// Choose and Chooser are Request's: the agent of each iteration from
	// the second on, chosen as it starts (see choose).
	Choose  func(iteration int) (Turn, error)
	Chooser string
	// chosen is the turn Choose gave the iteration going on.
	chosen *chosenTurn
	// roleNames name each turn's role, "" for a turn without one.
	roleNames []string
	// rotation takes out of the turns an agent that cannot log in.
	rotation rotation
	// given are the command line's phases, which replace a chosen role's
	// as they do the loop's; overridden is set when the command line
	// names the agent.
	given      [len(prompt.Phases)][]prompt.Fragment
	overridden bool

	// agentDirs keeps the last agent's directory for the next.
	agentDirs agentDirs

	// stateDirs are, by program, the state directories aliases declare
	// (agents.StateDirs), which a sandbox lets the agent write.
	stateDirs map[string][]string
	// aliasAccounts are the accounts aliases name (aliasAccounts).
	aliasAccounts map[string]string
	// aliasHosts are, by program, the hosts aliases declare
	// (agents.Hosts), for sandbox_hosts' "defaults"; refusals says each
	// host the proxy refused once in the log (hosts.go).
	aliasHosts map[string][]string
	refusals   *refusalLog

	// readAtStart are the context files read by the checks, each value
	// to its block: what a file removed while the run goes on still
	// gives (see keepGone).
	readAtStart map[string]string
	// rehearsing is set while a dry run composes the prompt: a file of
	// the work not there yet (an earlier loop, which a dry run does not
	// run, would write it) is shown as such.
	rehearsing bool

	// warnf says in the run's log what an iteration's sandbox found
	// (confine's done): set by Execute.
	warnf func(format string, args ...any)
	// priced is whether model_prices prices any model, and warnedOf the
	// agents chosen by Choose whose budgets were looked at (budgets.go).
	priced   bool
	warnedOf map[string]bool
	// costUncountedSaid is set when the start says max_cost_usd cannot
	// count what one of the agents spends (loop.Config).
	costUncountedSaid bool
	// errorf says what an iteration's sandbox lost or could not do.
	errorf func(format string, args ...any)
}

// Check is one thing verified before a run: a ✓ or ✗ line of the dry run.
type Check struct {
	OK     bool
	Text   string
	Detail string // more lines, for a failed check
	// Agent marks a check of the agent's command, which composing the
	// prompt does not need.
	Agent bool
	// Warning marks a check that passed with something the run's log
	// must say as it starts (a budget that cannot be counted).
	Warning bool
}

// Prepare resolves the settings of the named procedure, applies the
// command line's phases, and checks the agent, every fragment and every
// context value. Its error is for a request that cannot be planned at all
// (an unknown procedure, a bad --observe value); what the checks find is
// in the Plan, for Err or a dry run to report. The checks read the pipes
// given as context or fragments, which may wait for their writer: when
// ctx ends (Ctrl+C), they stop waiting and the Plan fails, and the caller
// should report the interrupt rather than the failed checks.
func Prepare(ctx context.Context, req Request) (*Plan, error) {
	proc := req.Procedure
	if proc == nil {
		var err error
		if proc, err = req.Config.Procedure(req.Name); err != nil {
			return nil, err
		}
	}
	s := req.Config.ResolveWith(proc, req.Script)
	if s.Procedure.Script.Set {
		return nil, fmt.Errorf("procedure %s is a Starlark script (%s): rooda run %s runs it", req.Name, s.Procedure.Script.V, req.Name)
	}
	given, err := phaseFragments(ctx, req.Phases)
	if err != nil {
		return nil, err
	}
	phases := s.Procedure.Prompt()
	override(&phases, given)
	p := &Plan{Settings: s, Procedure: phases, Context: slices.Clone(req.Context), Runner: req.Runner, PriceOf: req.Config.PriceOf,
		Promises: req.Promises, Choose: req.Choose, Chooser: req.Chooser, given: given}
	p.Formats = []agentstream.Format{formatFor(s.AIOutput, nil)}
	p.stateDirs = agents.StateDirs(req.Config.Aliases)
	p.aliasAccounts = aliasAccounts(req.Config.Aliases)
	p.aliasHosts = agents.Hosts(req.Config.Aliases)
	if p.Runner != nil {
		p.Argv = []string{"fake_agent"}
		p.pass("Fake agent: no process is started")
		p.fakeFormats(req.Turns)
	} else {
		p.checkAgent(req.Config)
	}
	fromAliases := len(req.Turns) == 0 && len(s.AIAliases) > 1
	if fromAliases {
		req.Turns = aliasTurns(req.Config, s.AIAliases)
	}
	// The command line's agent replaces a script's, unless it is the
	// rotation itself.
	overridden := !fromAliases && (config.AICmd.In(&req.Config.Run).Set || config.AICmdAlias.In(&req.Config.Run).Set)
	p.overridden = overridden
	if len(req.Turns) > 1 && p.Runner == nil && !overridden {
		p.checkRotation(req.Turns[1:])
	}
	p.Agents = agentNames(s, req.Turns, overridden)
	p.addRoles(req.Turns, given)
	p.checkFragments()
	p.checkContext(ctx)
	p.checkLimits()
	p.checkBudgets(len(req.Config.Prices) > 0)
	p.checkSandbox()
	return p, nil
}

// phaseFragments reads the command line's fragments, phase by phase. It
// reads them once for the loop's procedure and every role's: a pipe gives
// its content once.
func phaseFragments(ctx context.Context, phases [len(prompt.Phases)][]string) ([len(prompt.Phases)][]prompt.Fragment, error) {
	var given [len(prompt.Phases)][]prompt.Fragment
	var problems prompt.Problems
	for ph, values := range phases {
		for _, v := range values {
			f, err := prompt.FragmentFromArg(ctx, v)
			if err != nil {
				problems.Add(fmt.Errorf("--%s %q: %w", prompt.Phase(ph), v, err))
				continue
			}
			given[ph] = append(given[ph], f)
		}
	}
	if len(problems) > 0 {
		return given, problems
	}
	return given, nil
}

// override puts the command line's fragments in place of the
// procedure's, in each phase that has some.
func override(proc *prompt.Procedure, given [len(prompt.Phases)][]prompt.Fragment) {
	for ph, fragments := range given {
		if len(fragments) > 0 {
			proc.Phases[ph] = slices.Clone(fragments)
		}
	}
}

func (p *Plan) pass(text string) { p.Checks = append(p.Checks, Check{OK: true, Text: text}) }

// caution is a check that passed with a warning: the run starts, and its
// log says it.
func (p *Plan) caution(text string) {
	p.Checks = append(p.Checks, Check{OK: true, Warning: true, Text: text})
}

func (p *Plan) fail(text string, err error) {
	first, rest, _ := strings.Cut(err.Error(), "\n")
	if text != "" {
		first, rest = text, err.Error()
	}
	p.Checks = append(p.Checks, Check{Text: first, Detail: rest})
}

// failAgent is fail for a check of the agent's command.
func (p *Plan) failAgent(text string, err error) {
	p.fail(text, err)
	p.Checks[len(p.Checks)-1].Agent = true
}

// checkAgent finds the agent's executable, so that a typo or a missing
// install is reported before the first iteration, not at it. With no
// agent chosen, it names the agent CLIs installed, and how to choose each.
func (p *Plan) checkAgent(cfg *config.Config) {
	line, err := p.Settings.AI(cfg.AliasNames())
	if err != nil {
		ways := strings.TrimPrefix(err.Error(), "no AI command configured\n\n")
		p.failAgent("No AI command configured", fmt.Errorf("%s\n\n%s", agents.Advice(cfg.Aliases), ways))
		return
	}
	argv, err := process.Split(line)
	if err != nil {
		p.failAgent("", fmt.Errorf("AI command is not a valid command line: %w", err))
		return
	}
	p.Formats = []agentstream.Format{formatFor(p.Settings.AIOutput, argv)}
	path, err := process.Find(argv[0])
	if err != nil {
		p.failAgent("", err)
		return
	}
	p.Argv = argv
	p.pass("AI command binary exists: " + path)
	if f := p.Formats[0]; p.Settings.AIOutput == "" && f != agentstream.Text {
		p.pass(fmt.Sprintf("Output: read as %s, the JSON stream its command line asks for", f))
	}
}

// agentNames names the agent of each turn: the script's, or else the
// one agent of the configuration or of the command line, which replaces
// them all.
func agentNames(s *config.Settings, turns []Turn, overridden bool) []string {
	if len(turns) > 0 && !overridden {
		names := make([]string, len(turns))
		for i, t := range turns {
			names[i] = t.Name
		}
		return names
	}
	if s.AIAlias != "" {
		return []string{s.AIAlias}
	}
	return []string{s.AICommand.V}
}

// aliasTurns are the turns of an ai_cmd_alias that names several agents.
func aliasTurns(c *config.Config, names []string) []Turn {
	turns := make([]Turn, len(names))
	for i, name := range names {
		alias := c.Aliases[name].V
		turns[i] = Turn{Name: name, Line: alias.Line, Output: alias.Output}
	}
	return turns
}

// addRoles gives each turn its prompt when some turn has a role of its
// own; the command line's phases replace theirs as they do the loop's.
func (p *Plan) addRoles(turns []Turn, given [len(prompt.Phases)][]prompt.Fragment) {
	if !slices.ContainsFunc(turns, func(t Turn) bool { return t.Role != nil }) {
		return
	}
	for _, t := range turns {
		if t.Role == nil {
			p.Roles = append(p.Roles, p.Procedure)
			p.roleNames = append(p.roleNames, "")
			continue
		}
		phases := t.Role.Prompt()
		override(&phases, given)
		p.Roles = append(p.Roles, phases)
		p.roleNames = append(p.roleNames, phases.Name)
	}
}

// procedureOf is the procedure whose prompt iteration n is given.
func (p *Plan) procedureOf(n int) prompt.Procedure {
	if c := p.chosenFor(n); c != nil {
		if c.role != nil {
			return *c.role
		}
		return p.Procedure
	}
	if len(p.Roles) == 0 {
		return p.Procedure
	}
	return of(p, p.Roles, n)
}

// formatFor is the format of an agent's output: the one its alias
// names, else the one its command line asks its CLI for (argv nil for
// none, as a fake agent has: text).
func formatFor(output string, argv []string) agentstream.Format {
	if output != "" {
		return agentstream.Format(output)
	}
	return agentstream.FormatOfCommand(argv)
}

// fakeFormats are the formats fake agents print, turn by turn: each
// writes as its CLI would, read back as that CLI is.
func (p *Plan) fakeFormats(turns []Turn) {
	if len(turns) == 0 {
		return
	}
	p.Formats = nil
	for _, t := range turns {
		p.Formats = append(p.Formats, formatFor(t.Output, nil))
	}
}

// formatOf is the format of what iteration n's agent prints.
func (p *Plan) formatOf(n int) agentstream.Format {
	if c := p.chosenFor(n); c != nil {
		return c.format
	}
	return of(p, p.Formats, n)
}

// checkRotation checks the agents that take turns after the first, which
// checkAgent has checked.
func (p *Plan) checkRotation(turns []Turn) {
	p.Rotation = [][]string{p.Argv}
	for _, t := range turns {
		argv, err := process.Split(t.Line)
		if err == nil {
			var path string
			if path, err = process.Find(argv[0]); err == nil {
				p.Rotation = append(p.Rotation, argv)
				p.Formats = append(p.Formats, formatFor(t.Output, argv))
				p.pass("AI command binary exists: " + path)
				continue
			}
		}
		p.failAgent("", err)
	}
}

// checkFragments checks the fragments of the loop's procedure and of
// its roles' procedures, each once: the loop's procedure is often a role
// too (the builder's).
func (p *Plan) checkFragments() {
	procs := []prompt.Procedure{p.Procedure}
	for _, r := range p.Roles {
		if !slices.ContainsFunc(procs, func(q prompt.Procedure) bool { return q.Name == r.Name }) {
			procs = append(procs, r)
		}
	}
	for _, proc := range procs {
		p.checkFragmentsOf(proc, len(procs) > 1)
	}
}

// checkFragmentsOf checks one procedure's fragments, naming the
// procedure when there are several (roles).
func (p *Plan) checkFragmentsOf(proc prompt.Procedure, named bool) {
	for _, c := range prompt.CheckFragments(proc) {
		what := fmt.Sprintf("%s fragment %d (%s)", c.Phase, c.Index, c.Label())
		if named {
			what = proc.Name + ": " + what
		}
		switch {
		case c.Err != nil:
			p.fail("", fmt.Errorf("%s: %w", what, c.Err))
		case c.Fragment.Parameters != nil:
			p.pass("Template renders: " + what)
		case c.Fragment.Path != "":
			p.pass("Prompt file exists: " + c.Fragment.Path)
		default:
			p.pass("Inline content: " + what)
		}
	}
}

// checkContext reads every context value. A pipe's, such as -c <(cmd),
// is kept as read: a pipe gives its content once. A file of the work is
// only looked for: it is read when each prompt is composed, and may be
// written by then.
func (p *Plan) checkContext(ctx context.Context) {
	for i, v := range p.Context {
		if v.Kind == prompt.WorkFile {
			p.pass(workFileCheck(v.Value))
			continue
		}
		block, fromFile, err := prompt.ContextBlock(ctx, v)
		switch {
		case err != nil:
			p.fail("", fmt.Errorf("context %d: %w", i+1, err))
		case fromFile:
			if files.IsPipe(v.Value) {
				p.Context[i] = prompt.ContextValue{Value: block, Kind: prompt.Text}
			} else {
				if p.readAtStart == nil {
					p.readAtStart = map[string]string{}
				}
				p.readAtStart[v.Value] = block
			}
			p.pass("Context file exists: " + v.Value)
		default:
			p.pass(fmt.Sprintf("Context %d: inline text (%d bytes)", i+1, len(v.Value)))
		}
	}
}

// workFileCheck is the dry run's line of a file of the work: whether it
// is there now, which says nothing of when the loop starts.
func workFileCheck(path string) string {
	if _, err := os.Stat(path); err != nil {
		return "Context file of the work, not there yet: " + path + " (read as each iteration starts; an earlier loop may write it)"
	}
	return "Context file of the work: " + path + " (read as each iteration starts)"
}

// checkLimits refuses a minimum no run could reach.
func (p *Plan) checkLimits() {
	min, max := config.MinIterations.In(p.Settings), p.Settings.MaxIterations
	if min.Set && max.V > 0 && min.V > max.V {
		p.fail("", fmt.Errorf("min_iterations %d (%s) is above max_iterations %d (%s): no SUCCESS could end the loop", min.V, min.Source, max.V, max.Source))
	}
}

// Err is nil when every check passed, and otherwise tells every failed
// one, so a run fails before it starts with everything that is wrong.
func (p *Plan) Err() error {
	var problems prompt.Problems
	for _, c := range p.Checks {
		if !c.OK {
			problems.Add(fmt.Errorf("%s", strings.TrimRight(c.Text+"\n"+c.Detail, "\n")))
		}
	}
	if len(problems) > 0 {
		return problems
	}
	return nil
}

// Prompt composes the exact prompt of an iteration.
func (p *Plan) Prompt(it prompt.Iteration) (string, error) {
	text, _, err := p.compose(it, prompt.Sections{})
	return text, err
}

// compose is the prompt of an iteration with the sections the run adds,
// and the context files that are gone since the run started.
func (p *Plan) compose(it prompt.Iteration, extra prompt.Sections) (string, []string, error) {
	context := p.Context
	if p.ContextFunc != nil {
		var err error
		if context, err = p.ContextFunc(it.Number); err != nil {
			return "", nil, err
		}
	}
	context, gone := p.keepGone(context)
	if p.rehearsing {
		context = notThereYet(context)
	}
	extra.Context, extra.Promises = context, p.Promises
	text, err := prompt.ComposeWith(p.procedureOf(it.Number), it, extra)
	return text, gone, err
}

// notThereYet shows, in a dry run's prompt, each file of the work that is
// not there yet as such: an earlier loop, which the dry run did not run,
// may write it.
func notThereYet(context []prompt.ContextValue) []prompt.ContextValue {
	out, copied := context, false
	for i, v := range context {
		if _, err := os.Stat(v.Value); v.Kind != prompt.WorkFile || err == nil {
			continue
		}
		if !copied {
			out, copied = slices.Clone(context), true // the plan's stays as it is
		}
		out[i] = prompt.ContextValue{Value: "Source: " + v.Value + "\n\n(not there yet: read as the iteration starts)", Kind: prompt.Text}
	}
	return out
}

// keepGone gives, for a context file the checks read that is gone now
// (an agent removed or renamed it as part of its work), the text it held
// when the run started, saying so, instead of failing the run; it
// returns the values given so.
func (p *Plan) keepGone(context []prompt.ContextValue) ([]prompt.ContextValue, []string) {
	var gone []string
	kept := context
	for i, v := range context {
		block, read := p.readAtStart[v.Value]
		checked := v.Kind == prompt.Given || v.Kind == prompt.File
		if _, err := os.Stat(v.Value); !read || !checked || err == nil {
			continue
		}
		if len(gone) == 0 {
			kept = slices.Clone(context)
		}
		kept[i] = prompt.ContextValue{Value: block + "\n\n(" + v.Value + " is gone since the run started; this is what it held then.)", Kind: prompt.Text}
		gone = append(gone, v.Value)
	}
	return kept, gone
}
