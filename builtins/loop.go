package builtins

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"rooda/host/config"
	"rooda/host/git"
	"rooda/host/loop"
	"rooda/host/process"
	"rooda/host/prompt"
	"rooda/host/session"
)

// iterateBuiltin is iterate(), whose parameters include a keyword for
// each setting of the table that has one: a setting added to the table
// is a keyword of iterate() too.
func iterateBuiltin() Builtin {
	return Builtin{
		Name:    "iterate",
		Params:  iterateParams(),
		Returns: "loop_result",
		Doc: "Runs the loop and returns a frozen result: .status (\"success\", \"stopped\", \"max-iters\", \"aborted\", \"stalled\", \"budget\", or \"dry-run\"), .ok, .reason, .iterations, .stats, .last, and what the loop spent, .usage and .cost (the sums of its iterations' it.usage and it.cost; .cost is None as soon as one iteration's it.cost is, not the sum of the known ones).\n\n" +
			"In a dry run nothing runs and the script goes on: .status and .last.outcome are \"dry-run\", .ok True (as for \"success\": a script's if not r.ok: exit(3, …) lets its dry run exit 0), .iterations 0, and .last is a placeholder (number 0, exit_code 0, signal None, output \"\").\n\n" +
			"The command line's settings override the script's, but for --max-iterations, which caps each iterate() (the smaller wins); the run's budgets override both. " +
			"A budget given here (max_cost_usd, max_tokens, max_duration) ends the loop with .status \"budget\" and the script goes on; the same budget given by the user (configuration, environment, command line) and the run's own (--max-duration, --max-total-iterations) end the run, exit 2. An interrupt ends the script.",
		Example: `def keep_going_until_3(it):
    if it.number < 3 and it.outcome == "success":
        return "continue"
    return None

a = fake_agent(outputs = ["<promise>SUCCESS</promise>"])
r = iterate(compose("p", act = [fragment(content = "Work.")]), agent = a, on_iteration = keep_going_until_3)
assert.eq((r.status, r.iterations, r.last.signal), ("success", 3, "SUCCESS"))`,
		fn: iterateFn,
	}
}

// iterateParams are iterate()'s own parameters and the settings'
// keywords. The keywords named here stand where scripts that pass them by
// position have always found them; every other keyword follows, in the
// table's order.
func iterateParams() []Param {
	keywords := map[string]Param{}
	var rest []Param
	for _, k := range config.Keywords() {
		p := Param{k.Name, k.Type, k.Default(), k.Doc}
		keywords[k.Name] = p
		rest = append(rest, p)
	}
	params := []Param{
		{"procedure", "procedure", "", "what to run: compose(…) or procedure(name)"},
		keywords["max_iterations"], keywords["unlimited"],
		{"agent", "agent | str | list | function(number) | function(number, previous)", "None", "the AI command: agent(…), an alias or command line, or a list of them that take turns, one per iteration; an item of the list may be a role, a pair (agent, procedure): that agent is given that procedure's prompt (a builder and a reviewer in one loop, one failure threshold, one record); or a function called before each iteration that returns the iteration's agent (or a pair): f(number), or f(number, previous) to be given the previous iteration of this loop (None before the first) — escalation from a cheap agent to a strong one in one loop"},
		keywords["timeout"], keywords["failure_threshold"], keywords["max_output_buffer"],
		{"context", "str | file | list | function(number) | function(number, previous)", "None", "the CONTEXT section: text, file(\"notes.md\") (relative to the .star file), or a list of them; or a function called before each iteration that returns them: f(number), or f(number, previous) to be given the previous iteration of this loop (as on_iteration sees it; None before the first)"},
		{"on_iteration", "function(it)", "None", "f(it) called after each iteration, where it.outcome is the agent's outcome and it.agent names the agent that ran it; returns None to keep it, or \"continue\", \"success\", \"failure\", \"abort\", \"stop\" (the verdict table of docs/running.md), or a pair (verdict, reason) such as (\"stop\", \"over budget\"): the log, the record and r.reason keep the reason"},
		{"worktree", "worktree", "None", "a worktree(…) of the run: the agent works there (its working directory, whose changes the record shows), as a loop of parallel() does"},
		{"promises", "dict", "None", "custom promise words, each to the kind it signals: {\"COMPLETE\": \"success\", \"BLOCKED\": \"failure\"}. The preamble asks for them instead of SUCCESS (or FAILURE), and the host looks for them as it does for those, an echo of the prompt never counting; a kind given no word keeps its default"},
	}
	for _, p := range rest {
		if !slices.ContainsFunc(params, func(q Param) bool { return q.Name == p.Name }) {
			params = append(params, p)
		}
	}
	return params
}

func iterateFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		proc         *Procedure
		agentV, ctxV starlark.Value
		worktreeV    starlark.Value
		promisesV    *starlark.Dict
		onIteration  starlark.Callable
		own          = map[string]any{"procedure": &proc, "agent": &agentV, "context": &ctxV, "on_iteration": &onIteration, "worktree": &worktreeV, "promises": &promisesV}
		pairs        []any
		settings     []*keywordArg
	)
	for _, p := range iterateParams() {
		if target, ok := own[p.Name]; ok {
			pairs = append(pairs, unpackName(p), target)
			continue
		}
		k, _ := config.KeywordNamed(p.Name)
		arg, err := newKeywordArg(k)
		if err != nil {
			return nil, err
		}
		settings = append(settings, arg)
		pairs = append(pairs, p.Name+arg.kind.optional, arg.target)
	}
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, pairs...); err != nil {
		return nil, err
	}
	spec := session.IterateSpec{Procedure: proc.asConfig(), Pos: where(caller(thread)), Verdict: verdictOf(thread, onIteration)}
	var err error
	if spec.Settings, err = assignments(settings); err != nil {
		return nil, err
	}
	if fn, ok := agentV.(starlark.Callable); ok {
		spec.AgentFunc, spec.AgentFuncName = agentFunc(thread, fn), fn.Name()
	} else if spec.Fakes, spec.Agents, spec.Roles, err = agents(thread, agentV); err != nil {
		return nil, err
	}
	if spec.Promises, err = promisesArg(promisesV, "iterate"); err != nil {
		return nil, err
	}
	if spec.Context, spec.ContextFunc, err = contextArg(thread, ctxV); err != nil {
		return nil, err
	}
	if spec.Worktree, err = worktreeArg(worktreeV, "iterate: worktree"); err != nil {
		return nil, err
	}
	res, err := session.FromThread(thread).Iterate(thread, spec)
	if err != nil {
		return nil, err
	}
	return resultValue(res), nil
}

// unpackName is a parameter's name as UnpackArgs takes it: "??" marks an
// optional one that None leaves unset.
func unpackName(p Param) string {
	if p.Default == "" {
		return p.Name
	}
	return p.Name + "??"
}

// agents converts agent=: one agent, alias or command line, or a list of
// them; in a script test, fake agents. An item of the list may be a pair
// (agent, procedure): a role, that agent's iterations given that
// procedure's prompt. roles is nil when no item has one.
func agents(thread *starlark.Thread, v starlark.Value) (fakes []*session.FakeAgent, out []session.Agent, roles []*config.Procedure, err error) {
	if v == nil {
		return nil, nil, nil, nil
	}
	items := []starlark.Value{v}
	if list, ok := v.(*starlark.List); ok {
		items = slices.Collect(list.Elements())
		if len(items) == 0 {
			return nil, nil, nil, fmt.Errorf("agent is an empty list")
		}
	}
	hasRole := false
	for i, item := range items {
		ch, err := choiceOf(thread, item, i)
		if err != nil {
			return nil, nil, nil, err
		}
		hasRole = hasRole || ch.Role != nil
		roles = append(roles, ch.Role)
		if ch.Fake != nil {
			fakes = append(fakes, ch.Fake)
		} else {
			out = append(out, ch.Agent)
		}
	}
	if len(fakes) > 0 && len(out) > 0 {
		return nil, nil, nil, fmt.Errorf("agent: fake agents and real ones cannot take turns")
	}
	if !hasRole {
		roles = nil
	}
	return fakes, out, roles, nil
}

// choiceOf converts one agent: an agent(), an alias or a command line, a
// fake agent, or a pair (agent, procedure), the i-th of agent=.
func choiceOf(thread *starlark.Thread, item starlark.Value, i int) (session.Choice, error) {
	item, role, err := roleOf(item, i)
	if err != nil {
		return session.Choice{}, err
	}
	ch := session.Choice{Role: role}
	switch x := item.(type) {
	case *FakeAgent:
		ch.Fake = x.f
	case *Agent:
		ch.Agent = x.a
	case starlark.String:
		if ch.Agent, err = session.FromThread(thread).ResolveAgent(string(x), false); err != nil {
			return session.Choice{}, err
		}
	default:
		return session.Choice{}, fmt.Errorf("agent must be an agent(), an alias or a command line, or a pair (agent, procedure), got %s", item.Type())
	}
	return ch, nil
}

// agentFunc converts an agent= that is a function: called before each
// iteration as f(number), or f(number, previous) to be given the previous
// iteration of this loop (None before the first), it returns the
// iteration's agent, or a pair (agent, procedure).
func agentFunc(thread *starlark.Thread, fn starlark.Callable) func(int, *loop.Iteration) (session.Choice, error) {
	withPrevious := takesTwo(fn)
	return func(n int, previous *loop.Iteration) (session.Choice, error) {
		args := starlark.Tuple{starlark.MakeInt(n)}
		if withPrevious {
			args = append(args, iterationValue(previous))
		}
		out, err := starlark.Call(thread, fn, args, nil)
		if err != nil {
			return session.Choice{}, err
		}
		if _, ok := out.(*starlark.List); ok || out == starlark.None {
			return session.Choice{}, fmt.Errorf("agent function %s returned %s for iteration %d: want one agent (an agent(), an alias, a command line) or a pair (agent, procedure)", fn.Name(), shortRepr(out), n)
		}
		ch, err := choiceOf(thread, out, 0)
		if err != nil {
			return session.Choice{}, fmt.Errorf("agent function %s, iteration %d: %w", fn.Name(), n, err)
		}
		return ch, nil
	}
}

// roleOf splits an agent= item that is a pair (agent, procedure) into the
// agent and the procedure of its role.
func roleOf(item starlark.Value, i int) (starlark.Value, *config.Procedure, error) {
	pair, ok := item.(starlark.Tuple)
	if !ok {
		return item, nil, nil
	}
	if len(pair) != 2 {
		return nil, nil, fmt.Errorf("agent[%d]: a role is a pair (agent, procedure), got a tuple of %d", i, len(pair))
	}
	proc, ok := pair[1].(*Procedure)
	if !ok {
		return nil, nil, fmt.Errorf("agent[%d]: a role is a pair (agent, procedure), and its second item is a %s, not a compose(…) or procedure(name)", i, pair[1].Type())
	}
	return pair[0], proc.asConfig(), nil
}

// promisesArg converts promises=: a dict of custom promise words, each to
// the kind it signals, "success" or "failure".
func promisesArg(d *starlark.Dict, who string) (prompt.Promises, error) {
	if d == nil {
		return prompt.Promises{}, nil
	}
	var words [][2]string
	for _, item := range d.Items() {
		word, ok1 := starlark.AsString(item[0])
		kind, ok2 := starlark.AsString(item[1])
		if !ok1 || !ok2 {
			return prompt.Promises{}, fmt.Errorf("%s: promises maps words to \"success\" or \"failure\", got %s: %s", who, item[0].Type(), item[1].Type())
		}
		words = append(words, [2]string{word, kind})
	}
	p, err := prompt.NewPromises(words)
	if err != nil {
		return p, fmt.Errorf("%s: %w", who, err)
	}
	return p, nil
}

// contextArg converts context=: text or files, or a function called before
// each iteration that returns them.
func contextArg(thread *starlark.Thread, v starlark.Value) ([]prompt.ContextValue, func(int, *loop.Iteration) ([]prompt.ContextValue, error), error) {
	if v == nil {
		return nil, nil, nil
	}
	if fn, ok := v.(starlark.Callable); ok {
		withPrevious := takesTwo(fn)
		return nil, func(n int, previous *loop.Iteration) ([]prompt.ContextValue, error) {
			args := starlark.Tuple{starlark.MakeInt(n)}
			if withPrevious {
				args = append(args, iterationValue(previous))
			}
			out, err := starlark.Call(thread, fn, args, nil)
			if err != nil || out == starlark.None {
				return nil, err
			}
			return contextValues(out, fn.Name()+"'s result")
		}, nil
	}
	values, err := contextValues(v, "context")
	return values, nil, err
}

// takesTwo says whether a context function wants the previous iteration
// too: f(number, previous). A function of one parameter, today's
// f(number), is called as it always was.
func takesTwo(fn starlark.Callable) bool {
	f, ok := fn.(*starlark.Function)
	return ok && f.NumParams() >= 2
}

// verdictOf turns on_iteration into the loop's Verdict: None, a verdict
// word, or a pair (word, reason) whose reason the log and the record
// keep.
func verdictOf(thread *starlark.Thread, fn starlark.Callable) func(*loop.Iteration) (loop.Decision, error) {
	if fn == nil {
		return nil
	}
	return func(it *loop.Iteration) (loop.Decision, error) {
		out, err := starlark.Call(thread, fn, starlark.Tuple{iterationValue(it)}, nil)
		if err != nil {
			return loop.Decision{}, err
		}
		return decisionOf(fn, out)
	}
}

// decisionOf is what on_iteration returned, as the loop takes it.
func decisionOf(fn starlark.Callable, out starlark.Value) (loop.Decision, error) {
	if out == starlark.None {
		return loop.Decision{}, nil
	}
	word, reason := out, starlark.Value(starlark.None)
	if pair, ok := out.(starlark.Tuple); ok {
		if len(pair) != 2 {
			return loop.Decision{}, fmt.Errorf("%s returned a tuple of %d, not a pair (verdict, reason)", verdictCaller(fn), len(pair))
		}
		word, reason = pair[0], pair[1]
	}
	s, _ := starlark.AsString(word)
	o := loop.Outcome(s)
	if !slices.Contains(loop.Verdicts, o) {
		return loop.Decision{}, badVerdict(fn, word, s)
	}
	d := loop.Decision{Outcome: o}
	if reason != starlark.None {
		text, ok := starlark.AsString(reason)
		if !ok {
			return loop.Decision{}, fmt.Errorf("%s returned (%q, %s): a verdict's reason is a string, not a %s", verdictCaller(fn), s, shortRepr(reason), reason.Type())
		}
		d.Reason = text
	}
	return d, nil
}

// verdictCaller names on_iteration in a message, with the function's
// own name when it has another.
func verdictCaller(fn starlark.Callable) string {
	who := "on_iteration"
	if fn.Name() != who {
		who += " (" + fn.Name() + ")"
	}
	return who
}

// badVerdict explains a value on_iteration returned that is no verdict.
func badVerdict(fn starlark.Callable, out starlark.Value, s string) error {
	msg := fmt.Sprintf("%s returned %s, which is no verdict", verdictCaller(fn), shortRepr(out))
	if _, ok := out.(starlark.String); ok {
		if near := loop.NearestVerdict(s); near != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", near)
		}
	}
	return errors.New(msg + `: return None to keep the host's verdict, "continue" to go on, "success" to end the loop as done, "failure" to count a failed iteration, "abort" to stop the loop as failed, or "stop" to end it without a failure; or a pair (verdict, reason)`)
}

// shortRepr is a value as a message shows it: its repr, cut to a line.
func shortRepr(v starlark.Value) string {
	s := []rune(v.String())
	if len(s) > 60 {
		return string(s[:57]) + "..."
	}
	return string(s)
}

// iterationValue is what on_iteration sees: a frozen struct.
func iterationValue(it *loop.Iteration) starlark.Value {
	if it == nil {
		return starlark.None
	}
	return frozen("iteration", iterationFields(it))
}

// dryRunIteration is a dry run's stand-in for the last iteration, which
// it did not run: number 0, outcome "dry-run", exit code 0, no signal, no
// output. The code after iterate() runs on it as on a real one.
func dryRunIteration() starlark.Value {
	fields := iterationFields(&loop.Iteration{})
	fields["outcome"] = starlark.String(loop.DryRun)
	return frozen("iteration", fields)
}

func iterationFields(it *loop.Iteration) starlark.StringDict {
	signal := starlark.Value(starlark.None)
	switch {
	case it.Signals.Failure:
		signal = starlark.String("FAILURE")
	case it.Signals.Success:
		signal = starlark.String("SUCCESS")
	}
	// The agent's cause outlives a verdict that made the iteration
	// anything else (a stop); a failure only the procedure declared is
	// its own, "procedure".
	cause := orNone(string(cmp.Or(it.AgentCause, it.Cause)))
	return starlark.StringDict{
		"number":               starlark.MakeInt(it.Number),
		"signal":               signal,
		"exit_code":            starlark.MakeInt(it.Result.ExitCode),
		"timed_out":            starlark.Bool(it.Result.TimedOut),
		"truncated":            starlark.Bool(it.Result.Dropped > 0),
		"duration":             starlark.Float(it.Duration.Seconds()),
		"output":               starlark.String(it.Result.Output),
		"text":                 starlark.String(it.Said()),
		"prompt":               starlark.String(it.Prompt),
		"procedure":            starlark.String(it.Procedure),
		"role":                 orNone(it.Role),
		"consecutive_failures": starlark.MakeInt(it.ConsecutiveFailures),
		"agent":                starlark.String(it.Agent),
		"outcome":              starlark.String(it.Outcome),
		"usage":                usageValue(it.Spent),
		"cost":                 costValue(it.Spent),
		"changed":              changedValue(it.Changes),
		"files_changed":        filesChanged(it.Changes),
		"cause":                cause,
		"reason":               orNone(it.Reason),
	}
}

// usageValue is it.usage, or a loop's r.usage: the tokens the agents
// used, as their CLIs reported them, or None for agents whose output
// rooda reads as text.
func usageValue(s loop.Spend) starlark.Value {
	if s.Tokens.IsZero() {
		return starlark.None
	}
	u := s.Tokens
	return frozen("usage", starlark.StringDict{
		"input":       starlark.MakeInt64(u.Input),
		"output":      starlark.MakeInt64(u.Output),
		"cache_read":  starlark.MakeInt64(u.CacheRead),
		"cache_write": starlark.MakeInt64(u.CacheWrite),
		"total":       starlark.MakeInt64(s.TotalTokens()),
	})
}

// costValue is it.cost: the dollars spent, or None when nobody knows
// (text output, or a model model_prices does not price).
func costValue(s loop.Spend) starlark.Value {
	if !s.Costed {
		return starlark.None
	}
	return starlark.Float(s.CostUSD)
}

// loopCost is a loop's r.cost: None when one of its iterations' it.cost
// is (loop.Result.Cost), never the sum of the known ones alone.
func loopCost(res loop.Result) starlark.Value {
	usd, known := res.Cost()
	if !known {
		return starlark.None
	}
	return starlark.Float(usd)
}

// changedValue is it.changed: whether the iteration changed the git
// workspace, or None where rooda cannot tell (not a git repository).
func changedValue(c *git.Changes) starlark.Value {
	if c == nil || !c.InRepo {
		return starlark.None
	}
	return starlark.Bool(c.Changed())
}

// filesChanged is it.files_changed: the files the iteration changed, a
// frozen list, empty where rooda cannot tell.
func filesChanged(c *git.Changes) starlark.Value {
	var files []starlark.Value
	if c != nil {
		for _, f := range c.Files {
			files = append(files, starlark.String(f))
		}
	}
	list := starlark.NewList(files)
	list.Freeze()
	return list
}

// resultValue is what iterate() returns: a frozen struct.
func resultValue(res loop.Result) starlark.Value {
	s := res.Stats
	last := iterationValue(res.Last)
	if res.Status == loop.DryRun {
		last = dryRunIteration()
	}
	return frozen("loop_result", starlark.StringDict{
		"status":     starlark.String(res.Status),
		"reason":     reasonValue(res.Reason),
		"iterations": starlark.MakeInt(res.Iterations),
		"last":       last,
		"dry_run":    starlark.Bool(res.Status == loop.DryRun),
		// A dry run's loop counts as done, so that a script's own exit
		// code logic takes the path of success there, not of failure.
		"ok":    starlark.Bool(res.Status == loop.Success || res.Status == loop.DryRun),
		"usage": usageValue(res.Spent),
		"cost":  loopCost(res),
		"stats": frozen("stats", starlark.StringDict{
			"count":  starlark.MakeInt(s.Count),
			"total":  starlark.Float(s.Total.Seconds()),
			"min":    starlark.Float(s.Min.Seconds()),
			"max":    starlark.Float(s.Max.Seconds()),
			"mean":   starlark.Float(s.Mean().Seconds()),
			"stddev": starlark.Float(s.StdDev().Seconds()),
		}),
	})
}

// reasonValue is r.reason: why the procedure's verdict ended the loop,
// or None.
func reasonValue(reason string) starlark.Value {
	if reason == "" {
		return starlark.None
	}
	return starlark.String(reason)
}

func frozen(name string, d starlark.StringDict) starlark.Value {
	v := starlarkstruct.FromStringDict(starlark.String(name), d)
	v.Freeze()
	return v
}

// duration unpacks 30, 1.5 or "30s".
type duration struct {
	d     time.Duration
	given bool
}

func (d *duration) Unpack(v starlark.Value) error {
	switch x := v.(type) {
	case starlark.Int, starlark.Float:
		f, _ := starlark.AsFloat(x)
		// Below a millisecond a timeout means nothing; beyond 100 years it
		// overflows; NaN and Inf are no durations at all.
		if math.IsNaN(f) || f < 0.001 || f > 100*365*24*3600 {
			return fmt.Errorf("want a duration from 0.001 seconds to 100 years, got %s", v)
		}
		d.d = time.Duration(f * float64(time.Second))
	case starlark.String:
		parsed, err := time.ParseDuration(string(x))
		if err != nil || parsed < time.Millisecond {
			return fmt.Errorf("want a duration like \"30s\" or \"5m\", got %s", v)
		}
		d.d = parsed
	default:
		return fmt.Errorf("want seconds (30, 1.5) or a duration (\"30s\"), got %s", v.Type())
	}
	d.given = true
	return nil
}

var runBuiltin = Builtin{
	Name: "run",
	Params: []Param{
		{"cmd", "str | list of str", "", "a shell command line, run by sh -c as checks: are (pipes, redirections and $VARS work); or a list, the program and its arguments, run as they are without a shell"},
		{"timeout", "int | float | str", "60", "stop the command and everything it started after this long"},
		{"dir", "worktree", "None", "run it in this worktree(…); None is the working directory"},
		{"safe", "bool", "False", "the command only reads (cat tasks.txt, git ls-files): a dry run runs it too, so that what the script does with its output (how many loops) shows"},
	},
	Returns: "command_result",
	Doc: "Runs a bounded command in the working directory, for checks between iterations (\"go test ./... | tail -20\"), and returns .exit_code, .output (stdout and stderr, the last 1 MiB), .duration, .timed_out, .dry_run. A string goes through sh -c; a list, such as [\"git\", \"commit\", \"-m\", message], reaches the program word for word, with nothing for a shell to expand. " +
		"In a dry run only a command marked safe = True runs (not in a worktree, which a dry run does not make); another gives a placeholder, .dry_run True, .exit_code 0, .output \"\", which the end of the dry run names.",
	Example: `# run_test.star — run with: rooda script test run_test.star
def test_run():
    r = run("printf 'a\\nb\\n' | wc -l", timeout = 30)
    assert.eq((r.exit_code, r.output.strip()), (0, "2"))
    r = run(["echo", "$HOME | not a pipe"])
    assert.eq(r.output, "$HOME | not a pipe\n")`,
	fn: runFn,
}

func runFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var cmd, dirV starlark.Value
	timeout := duration{d: time.Minute}
	spec := session.CommandSpec{Pos: where(caller(thread))}
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "cmd", &cmd, "timeout?", &timeout, "dir??", &dirV, "safe?", &spec.Safe); err != nil {
		return nil, err
	}
	var err error
	if spec.Line, spec.Argv, err = commandOf(cmd); err != nil {
		return nil, err
	}
	wt, err := worktreeArg(dirV, "run: dir")
	if err != nil {
		return nil, err
	}
	if wt != nil {
		spec.Dir = wt.Path
	}
	spec.Timeout = timeout.d
	res, ran, err := session.FromThread(thread).Command(thread, spec)
	if err != nil {
		return nil, err
	}
	return commandValue(res, ran), nil
}

// commandOf is run()'s cmd: a shell's command line, or a list of words.
func commandOf(v starlark.Value) (line string, argv []string, err error) {
	if s, ok := starlark.AsString(v); ok {
		if strings.TrimSpace(s) == "" {
			return "", nil, fmt.Errorf("run: cmd is empty")
		}
		return s, nil, nil
	}
	list, ok := v.(*starlark.List)
	if !ok {
		return "", nil, fmt.Errorf("run: cmd must be a command line (str) or a list of words, got %s", v.Type())
	}
	if argv, err = stringList(list, "run: cmd"); err == nil && len(argv) == 0 {
		err = fmt.Errorf("run: cmd is an empty list")
	}
	return "", argv, err
}

func commandValue(res process.Result, ran bool) starlark.Value {
	return frozen("command_result", starlark.StringDict{
		"exit_code": starlark.MakeInt(res.ExitCode),
		"output":    starlark.String(res.Output),
		"duration":  starlark.Float(res.Duration.Seconds()),
		"timed_out": starlark.Bool(res.TimedOut),
		"dry_run":   starlark.Bool(!ran),
	})
}

var getenvBuiltin = Builtin{
	Name: "getenv",
	Params: []Param{
		{"name", "str", "", "an environment variable"},
		{"default", "any", "None", "what to return when it is not set"},
	},
	Returns: "str | default",
	Doc:     "Reads the environment; scripts cannot change it.",
	Example: `model = getenv("MY_MODEL", "haiku")`,
	fn:      getenvFn,
}

func getenvFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	var dflt starlark.Value = starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "default?", &dflt); err != nil {
		return nil, err
	}
	v, ok, err := session.FromThread(thread).Getenv(thread, where(caller(thread)), name)
	if err != nil || !ok {
		return dflt, err
	}
	return starlark.String(v), nil
}
