package builtins

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"rooda/host"
	"rooda/host/agent"
	"rooda/host/config"
	"rooda/host/engine"
	"rooda/host/loop"
)

var iterateBuiltin = Builtin{
	Name: "iterate",
	Params: []Param{
		{"procedure", "procedure", "", "what to run: compose(…) or procedure(name)"},
		{"max_iterations", "int", "None", "stop after this many iterations (>= 1); None takes the procedure's or the configuration's"},
		{"unlimited", "bool", "False", "no iteration limit"},
		{"agent", "agent | str | list", "None", "the AI command: agent(…), an alias or command line, or a list of them that take turns, one per iteration"},
		{"timeout", "int | float | str", "None", "stop an iteration after this long: seconds (30, 1.5) or a duration (\"90s\")"},
		{"failure_threshold", "int", "None", "abort after this many consecutive failed iterations"},
		{"max_output_buffer", "int | str", "None", "keep the last this many bytes of the agent's output (10485760, \"10MB\"; >= 1024)"},
		{"context", "str | list | function", "None", "the CONTEXT section: text or file paths, or a function f(iteration) called before each iteration that returns them"},
		{"on_iteration", "function", "None", "f(it) called after each iteration; returns None to keep the host's verdict, or \"continue\", \"success\", \"failure\", \"abort\""},
	},
	Returns: "loop_result",
	Doc: "Runs the loop of seed 002 and returns a frozen result: .status (\"success\", \"max-iters\", \"aborted\", or \"dry-run\"), .iterations, .stats, .last. " +
		"The command line's settings override the script's, and the run's budgets override both. An interrupt ends the script.",
	fn: iterateFn,
}

func iterateFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		proc                      *Procedure
		maxIter, threshold        = -1, -1
		unlimited                 bool
		agentV, bufferV, contextV starlark.Value
		timeout                   duration
		onIteration               starlark.Callable
	)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "procedure", &proc, "max_iterations??", &maxIter,
		"unlimited?", &unlimited, "agent??", &agentV, "timeout??", &timeout, "failure_threshold??", &threshold,
		"max_output_buffer??", &bufferV, "context??", &contextV, "on_iteration??", &onIteration); err != nil {
		return nil, err
	}
	r := host.FromThread(thread)
	req := engine.Request{Config: r.Config(), Procedure: proc.asConfig()}
	src := config.Source{Tier: config.Script, Name: where(caller(thread))}
	set := func(key, text string) error {
		if err := req.Script.Set(key, text, src); err != nil {
			return fmt.Errorf("iterate: %s %v", key, err)
		}
		return nil
	}
	settings := []struct {
		given bool
		key   string
		text  string
	}{
		{maxIter != -1, "default_max_iterations", strconv.Itoa(maxIter)},
		{unlimited, "iteration_mode", config.ModeUnlimited},
		{timeout.given, "iteration_timeout", timeout.d.String()},
		{threshold != -1, "failure_threshold", strconv.Itoa(threshold)},
		{bufferV != nil, "max_output_buffer", sizeText(bufferV)},
	}
	for _, s := range settings {
		if s.given {
			if err := set(s.key, s.text); err != nil {
				return nil, err
			}
		}
	}
	if maxIter != -1 && unlimited {
		return nil, fmt.Errorf("iterate: max_iterations and unlimited=True cannot be used together")
	}
	if err := setAgents(thread, &req, agentV, src); err != nil {
		return nil, err
	}
	contextFunc, err := setContext(thread, &req, contextV)
	if err != nil {
		return nil, err
	}
	res, err := r.Iterate(thread, req, contextFunc, judge(thread, onIteration))
	if err != nil {
		return nil, err
	}
	return resultValue(res), nil
}

// setAgents puts the script's agent, or agents that take turns, in the
// request.
func setAgents(thread *starlark.Thread, req *engine.Request, v starlark.Value, src config.Source) error {
	if v == nil {
		return nil
	}
	var agents []host.Agent
	list, isList := v.(*starlark.List)
	items := []starlark.Value{v}
	if isList {
		items = nil
		for e := range list.Elements() {
			items = append(items, e)
		}
	}
	for _, item := range items {
		a, err := agentOf(thread, item)
		if err != nil {
			return err
		}
		agents = append(agents, a)
	}
	if len(agents) == 0 {
		return fmt.Errorf("iterate: agent is an empty list")
	}
	first := agents[0]
	if first.Alias != "" {
		req.Script.Set("ai_cmd_alias", first.Alias, src)
	} else if err := req.Script.Set("ai_cmd", first.Line, src); err != nil {
		return fmt.Errorf("iterate: agent %v", err)
	}
	for _, a := range agents {
		req.Agents = append(req.Agents, a.Line)
	}
	return nil
}

func agentOf(thread *starlark.Thread, v starlark.Value) (host.Agent, error) {
	switch x := v.(type) {
	case *Agent:
		return x.a, nil
	case starlark.String:
		return host.FromThread(thread).ResolveAgent(string(x), false)
	}
	return host.Agent{}, fmt.Errorf("iterate: agent must be an agent(), an alias or a command line, got %s", v.Type())
}

// setContext reads context=: text or paths, or a function called before
// each iteration.
func setContext(thread *starlark.Thread, req *engine.Request, v starlark.Value) (func(int) ([]string, error), error) {
	if v == nil {
		return nil, nil
	}
	if fn, ok := v.(starlark.Callable); ok {
		return func(n int) ([]string, error) {
			out, err := starlark.Call(thread, fn, starlark.Tuple{starlark.MakeInt(n)}, nil)
			if err != nil {
				return nil, err
			}
			if out == starlark.None {
				return nil, nil
			}
			return stringList(out, "the context function's result")
		}, nil
	}
	values, err := stringList(v, "iterate: context")
	req.Context = values
	return nil, err
}

// judge turns on_iteration into the loop's Judge.
func judge(thread *starlark.Thread, fn starlark.Callable) func(*loop.Iteration) (loop.Outcome, error) {
	if fn == nil {
		return nil
	}
	return func(it *loop.Iteration) (loop.Outcome, error) {
		out, err := starlark.Call(thread, fn, starlark.Tuple{iterationValue(it)}, nil)
		if err != nil {
			return "", err
		}
		if out == starlark.None {
			return "", nil
		}
		if s, ok := starlark.AsString(out); ok {
			if o, ok := verdicts[s]; ok {
				return o, nil
			}
		}
		return "", fmt.Errorf("%s returned %s; want None, \"continue\", \"success\", \"failure\" or \"abort\"", fn.Name(), out.String())
	}
}

var verdicts = map[string]loop.Outcome{"continue": loop.Continued, "success": loop.Done, "failure": loop.Failed, "abort": loop.Abort}

// outcomeNames are the loop's verdicts as a script names them.
var outcomeNames = map[loop.Outcome]string{loop.Continued: "continue", loop.Done: "success", loop.Failed: "failure", loop.Abort: "abort", loop.Stopped: "interrupted"}

// iterationValue is what on_iteration sees: a frozen struct.
func iterationValue(it *loop.Iteration) starlark.Value {
	if it == nil {
		return starlark.None
	}
	signal := starlark.Value(starlark.None)
	switch {
	case it.Signals.Failure:
		signal = starlark.String("FAILURE")
	case it.Signals.Success:
		signal = starlark.String("SUCCESS")
	}
	return frozen("iteration", starlark.StringDict{
		"number":               starlark.MakeInt(it.Number),
		"signal":               signal,
		"exit_code":            starlark.MakeInt(it.Result.ExitCode),
		"timed_out":            starlark.Bool(it.Result.TimedOut),
		"truncated":            starlark.Bool(it.Result.Dropped > 0),
		"duration":             starlark.Float(it.Duration.Seconds()),
		"output":               starlark.String(it.Result.Output),
		"consecutive_failures": starlark.MakeInt(it.ConsecutiveFailures),
		"outcome":              starlark.String(outcomeNames[it.Outcome]),
	})
}

// resultValue is what iterate() returns: a frozen struct.
func resultValue(res loop.Result) starlark.Value {
	s := res.Stats
	return frozen("loop_result", starlark.StringDict{
		"status":     starlark.String(res.Status),
		"iterations": starlark.MakeInt(res.Iterations),
		"last":       iterationValue(res.Last),
		"dry_run":    starlark.Bool(res.Status == host.DryRunStatus),
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

func frozen(name string, d starlark.StringDict) starlark.Value {
	v := starlarkstruct.FromStringDict(starlark.String(name), d)
	v.Freeze()
	return v
}

// sizeText is a max_output_buffer value as text, for the configuration's
// parser.
func sizeText(v starlark.Value) string {
	if v == nil {
		return ""
	}
	if s, ok := starlark.AsString(v); ok {
		return s
	}
	return v.String()
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
		if f <= 0 {
			return fmt.Errorf("want a duration > 0, got %s", v)
		}
		d.d = time.Duration(f * float64(time.Second))
	case starlark.String:
		parsed, err := time.ParseDuration(string(x))
		if err != nil || parsed <= 0 {
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
		{"cmd", "str", "", "a command line, split as a shell would but run without one"},
		{"timeout", "int | float | str", "60", "stop the command and everything it started after this long"},
	},
	Returns: "command_result",
	Doc:     "Runs a bounded command, for checks between iterations (\"go test ./...\"), and returns .exit_code, .output (stdout and stderr, the last 1 MiB), .duration, .timed_out. In a dry run nothing runs: .dry_run is True and .exit_code 0.",
	fn:      runFn,
}

func runFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var line string
	timeout := duration{d: time.Minute}
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "cmd", &line, "timeout?", &timeout); err != nil {
		return nil, err
	}
	res, ran, err := host.FromThread(thread).Command(thread, line, timeout.d)
	if err != nil {
		return nil, err
	}
	return commandValue(res, ran), nil
}

func commandValue(res agent.Result, ran bool) starlark.Value {
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
	fn:      getenvFn,
}

func getenvFn(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	var dflt starlark.Value = starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "default?", &dflt); err != nil {
		return nil, err
	}
	if v, ok := os.LookupEnv(name); ok {
		return starlark.String(v), nil
	}
	return dflt, nil
}
