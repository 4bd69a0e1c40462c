package builtins

import (
	"fmt"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"rooda/host"
	"rooda/host/prompt"
	"rooda/host/session"
)

var fragmentBuiltin = Builtin{
	Name: "fragment",
	Params: []Param{
		{"path", "str", "None", "a file, relative to the .star file that calls fragment(), or builtin:fragments/<phase>/<name>.md from the embedded library"},
		{"content", "str", "None", "inline text, used as it is"},
		{"params", "dict", "None", "template parameters: with them (even {}), the text is a Go text/template"},
	},
	Returns: "fragment",
	Doc:     "One piece of a phase. Give exactly one of path and content. The file is read, and a template executed, at the call: a missing file or a broken template fails there, naming the file.",
	Example: `f = fragment(content = "Check the {{.what}}.", params = {"what": "tests"})
assert.eq(f.content, "Check the {{.what}}.")
signal = fragment("builtin:fragments/act/emit_signal.md")`,
	fn: fragmentFn,
}

func fragmentFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var path, content string
	var params *starlark.Dict
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "path??", &path, "content??", &content, "params??", &params); err != nil {
		return nil, err
	}
	return newFragment(thread, path, content, params)
}

// newFragment makes a fragment as the calling file means it; the host
// places and checks it.
func newFragment(thread *starlark.Thread, path, content string, params *starlark.Dict) (*Fragment, error) {
	f := prompt.Fragment{Path: path, Content: content}
	if params != nil {
		m, err := dictToGo(params)
		if err != nil {
			return nil, err
		}
		f.Parameters = m
	}
	f, err := host.FromThread(thread).Fragment(caller(thread), f)
	if err != nil {
		return nil, err
	}
	return &Fragment{f}, nil
}

var composeBuiltin = Builtin{
	Name: "compose",
	Params: []Param{
		{"name", "str", "", "the procedure's name, shown in the preamble (Procedure: NAME)"},
		{"observe", "list", "[]", "the observe phase: fragments, or strings as paths (fragment(path=…))"},
		{"orient", "list", "[]", "the orient phase"},
		{"decide", "list", "[]", "the decide phase"},
		{"act", "list", "[]", "the act phase"},
	},
	Returns: "procedure",
	Doc:     "A procedure's prompt, phase by phase. p.render(iteration=1, max_iterations=None, context=[], promises=None) returns the exact prompt an agent would get; p.with_phases(act=[…]) a copy with those phases replaced. The preamble is always the host's.",
	Example: `p = compose(
    "tidy",
    observe = ["builtin:fragments/observe/read_agents_md.md"],
    act = [fragment(content = "Tidy one file."), "builtin:fragments/act/emit_signal.md"],
)
assert.contains(p.render(iteration = 2, max_iterations = 3), "Iteration: 2 of 3")`,
	fn: composeFn,
}

func composeFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	var lists [len(prompt.Phases)]*starlark.List
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name,
		"observe?", &lists[0], "orient?", &lists[1], "decide?", &lists[2], "act?", &lists[3]); err != nil {
		return nil, err
	}
	if strings.TrimSpace(name) == "" {
		return nil, fmt.Errorf("compose: name must not be empty")
	}
	p := &Procedure{name: name}
	for ph, list := range lists {
		frags, err := phaseFragments(thread, prompt.Phase(ph), list)
		if err != nil {
			return nil, err
		}
		p.phases[ph] = frags
	}
	return p, nil
}

// phaseFragments converts a phase's list: fragments, or strings as paths.
func phaseFragments(thread *starlark.Thread, ph prompt.Phase, list *starlark.List) ([]prompt.Fragment, error) {
	if list == nil {
		return nil, nil
	}
	var out []prompt.Fragment
	for i := range list.Len() {
		switch v := list.Index(i).(type) {
		case *Fragment:
			out = append(out, v.f)
		case starlark.String:
			f, err := newFragment(thread, string(v), "", nil)
			if err != nil {
				return nil, fmt.Errorf("%s[%d]: %w", ph, i, err)
			}
			out = append(out, f.f)
		default:
			return nil, fmt.Errorf("%s[%d]: want a fragment or a path, got %s", ph, i, v.Type())
		}
	}
	return out, nil
}

// procedureMethods are the methods of a procedure value.
var procedureMethods = []Builtin{
	{
		Name: "render",
		Params: []Param{
			{"iteration", "int", "1", "the iteration the preamble shows"},
			{"max_iterations", "int", "None", "the limit the preamble shows; None shows (unlimited)"},
			{"context", "str | file | list", "[]", "the CONTEXT section: text, file(…)s to read, or a list of them, as iterate() takes them"},
			{"promises", "dict", "None", "custom promise words the preamble names, as iterate(promises=…) takes them"},
		},
		Returns: "str",
		Doc:     "The exact prompt an agent would get in that iteration: the host's preamble, the context, the phases.",
		fn:      renderFn,
	},
	{
		Name: "with_phases",
		Params: []Param{
			{"observe", "list", "None", "the new observe phase; None keeps it"},
			{"orient", "list", "None", "the new orient phase"},
			{"decide", "list", "None", "the new decide phase"},
			{"act", "list", "None", "the new act phase"},
		},
		Returns: "procedure",
		Doc:     "A copy of the procedure with the phases given replaced, its name and settings kept.",
		fn:      withPhasesFn,
	},
}

// renderFn is p.render(iteration=1, max_iterations=None, context=[],
// promises=None).
func renderFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	p := b.Receiver().(*Procedure)
	iteration, max := 1, 0
	var context starlark.Value = starlark.NewList(nil)
	var promisesV *starlark.Dict
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "iteration?", &iteration, "max_iterations??", &max, "context?", &context, "promises??", &promisesV); err != nil {
		return nil, err
	}
	promises, err := promisesArg(promisesV, "render")
	if err != nil {
		return nil, err
	}
	if iteration < 1 || max < 0 {
		return nil, fmt.Errorf("render: iteration must be >= 1 and max_iterations >= 1 (or None), got %d and %d", iteration, max)
	}
	values, err := contextValues(context, "context")
	if err != nil {
		return nil, err
	}
	text, err := prompt.ComposeWith(p.prompt(), prompt.Iteration{Number: iteration, Max: max}, prompt.Sections{Context: values, Promises: promises})
	if err != nil {
		return nil, err
	}
	return starlark.String(text), nil
}

// withPhasesFn is p.with_phases(observe=…, …): a copy with the phases
// given replaced.
func withPhasesFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	p := b.Receiver().(*Procedure)
	var lists [len(prompt.Phases)]*starlark.List
	if err := starlark.UnpackArgs(b.Name(), args, kwargs,
		"observe??", &lists[0], "orient??", &lists[1], "decide??", &lists[2], "act??", &lists[3]); err != nil {
		return nil, err
	}
	out := *p
	for ph, list := range lists {
		if list == nil {
			continue
		}
		frags, err := phaseFragments(thread, prompt.Phase(ph), list)
		if err != nil {
			return nil, err
		}
		out.phases[ph] = frags
	}
	return &out, nil
}

var procedureBuiltin = Builtin{
	Name:    "procedure",
	Params:  []Param{{"name", "str", "", "a procedure of the merged configuration: built in, global or workspace"}},
	Returns: "procedure",
	Doc:     "A configured procedure as a value a script can run or extend: iterate(procedure(\"build\")), or procedure(\"build\").with_phases(act=[…]). Its settings (default_max_iterations, ai_cmd_alias, …) apply unless the script or the command line says otherwise.",
	Example: `build = procedure("build")
quick = build.with_phases(act = [fragment(content = "Make the smallest change that works.")])
assert.contains(quick.render(), "Make the smallest change")`,
	fn: procedureFn,
}

func procedureFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name); err != nil {
		return nil, err
	}
	p, err := session.FromThread(thread).Config().Procedure(name)
	if err != nil {
		return nil, err
	}
	if p.Script.Set {
		return nil, fmt.Errorf("procedure %s is itself a script (%s): load() what you need from it instead", name, p.Script.V)
	}
	if err := prompt.Validate(p.Prompt()); err != nil {
		return nil, err
	}
	return &Procedure{name: name, phases: p.Prompt().Phases, config: p}, nil
}

var agentBuiltin = Builtin{
	Name: "agent",
	Params: []Param{
		{"alias_or_cmd", "str", "None", "an alias (claude, codex, … or one of ai_cmd_aliases), or else a command line"},
		{"cmd", "str", "None", "a command line, never taken for an alias"},
		{"name", "str", "None", "what the log, the record, it.agent and so the prompts it is handed to call it; by default its alias, else its command line"},
	},
	Returns: "agent",
	Doc:     "An AI command for iterate(agent=…). The command line's --ai-cmd and --ai-cmd-alias override it.",
	Example: `claude = agent("claude")
mine = agent(cmd = "my-agent --fast --model big", name = "strong")`,
	fn: agentFn,
}

func agentFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var nameOrCmd, cmd, name string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "alias_or_cmd??", &nameOrCmd, "cmd??", &cmd, "name??", &name); err != nil {
		return nil, err
	}
	if (nameOrCmd == "") == (cmd == "") {
		return nil, fmt.Errorf("agent: give an alias or a command line, or cmd=…, one of them")
	}
	if name != "" && strings.TrimSpace(name) != name || strings.ContainsAny(name, "\n\r") {
		return nil, fmt.Errorf("agent: name %q is shown on log lines: give it without line breaks or surrounding spaces", name)
	}
	a, err := session.FromThread(thread).ResolveAgent(nameOrCmd+cmd, cmd != "")
	if err != nil {
		return nil, err
	}
	a.Label = name
	return &Agent{a}, nil
}

// caller is the position of the Starlark code that called the builtin.
func caller(thread *starlark.Thread) syntax.Position { return thread.CallFrame(1).Pos }

// where is a position as "file:line", for provenance.
func where(pos syntax.Position) string { return fmt.Sprintf("%s:%d", pos.Filename(), pos.Line) }
