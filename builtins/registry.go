package builtins

import (
	"fmt"
	"os"
	"runtime/debug"

	starlarkmath "go.starlark.net/lib/math"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"rooda/host"
	"rooda/host/config"
)

// Param is one parameter of a builtin, as its reference documents it.
type Param struct {
	Name    string
	Type    string
	Default string // "" when the parameter is required
	Doc     string
}

// Builtin is one function of the API.
type Builtin struct {
	Name    string
	Params  []Param
	Returns string
	Doc     string
	// Example is a short script that uses the builtin; the reference shows
	// it and a test runs it (script-test names such as fake_agent work).
	Example string
	fn      builtinFn
	// bind, when set in place of fn, makes the function of a run with
	// the script's arguments: flags().
	bind func(args []string) builtinFn
}

// builtinFn is what a builtin does, as go.starlark.net calls it.
type builtinFn = func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error)

// function is the builtin's function in a run whose script has args.
func (b Builtin) function(args []string) builtinFn {
	if b.bind != nil {
		return b.bind(args)
	}
	return b.fn
}

// Registry lists the API's functions, in the order the reference gives
// them.
func Registry() []Builtin {
	return []Builtin{
		fragmentBuiltin, composeBuiltin, procedureBuiltin, agentBuiltin,
		fileBuiltin, readBuiltin, existsBuiltin, iterateBuiltin(), runBuiltin, getenvBuiltin,
		worktreeBuiltin, parallelBuiltin, gitMergeBuiltin, flagsBuiltin,
		exitBuiltin, nowBuiltin,
	}
}

// Methods lists the methods of each type of value the API returns, by
// type name.
func Methods() map[string][]Builtin { return map[string][]Builtin{"procedure": procedureMethods} }

// Value is a predeclared name that is not one of the registry's functions.
type Value struct {
	Name string
	Type string
	Doc  string
	make func(args []string, dryRun bool) starlark.Value
}

// Values lists the predeclared values, in the order the reference gives
// them.
func Values() []Value {
	return []Value{
		{"args", "tuple of str", "the script's arguments: what follows -- on the command line", func(args []string, _ bool) starlark.Value {
			t := make(starlark.Tuple, len(args))
			for i, a := range args {
				t[i] = starlark.String(a)
			}
			return t
		}},
		{"dry_run", "bool", "whether this run only reports what it would do (--dry-run)", func(_ []string, dry bool) starlark.Value { return starlark.Bool(dry) }},
		{"json", "module", "json.encode, json.decode, json.indent, json.encode_indent", func([]string, bool) starlark.Value { return jsonModule }},
		{"math", "module", "math.round, math.floor, math.ceil, math.pow, math.sqrt, math.log, … (go.starlark.net's math module): what the dialect lacks for numbers, round() and ** among them", func([]string, bool) starlark.Value { return starlarkmath.Module }},
		{"struct", "function", "struct(**fields): an immutable record", func([]string, bool) starlark.Value { return starlark.NewBuiltin("struct", starlarkstruct.Make) }},
		// The host sets it per module; False is what a loaded module sees.
		{"__main__", "bool", "True in the script rooda runs, False in the modules it loads and in test files, so that a script can be a library too: if __main__: main()", func([]string, bool) starlark.Value { return starlark.False }},
	}
}

// Predeclared is what every module of a run sees: the registry's
// functions, made safe, and the values of this run.
func Predeclared(args []string, dryRun bool) starlark.StringDict {
	d := starlark.StringDict{}
	for _, b := range Registry() {
		d[b.Name] = starlark.NewBuiltin(b.Name, safe(b.Name, b.function(args)))
	}
	for _, v := range Values() {
		d[v.Name] = v.make(args, dryRun)
	}
	for name, b := range guardedUniverse() {
		d[name] = b
	}
	return d
}

// Signatures are the parameters of every function a script or a script
// test can call by a predeclared name, for the static checks of
// rooda script check: the registry's, the test helpers' and assert's.
// The literals given to them are read by the run's rules, the names of
// agents and procedures against cfg; nil leaves those out.
func Signatures(cfg *config.Config) map[string][]host.Param {
	out := map[string][]host.Param{}
	for _, b := range append(Registry(), TestRegistry()...) {
		out[b.Name] = b.signature()
		for i := range out[b.Name] {
			literalRules(cfg, b.Name, &out[b.Name][i])
		}
	}
	for _, b := range AssertFunctions() {
		out["assert."+b.Name] = b.signature()
	}
	return out
}

func (b Builtin) signature() []host.Param {
	params := make([]host.Param, len(b.Params))
	for i, p := range b.Params {
		params[i] = host.Param{Name: p.Name, Type: p.Type, Optional: p.Default != ""}
	}
	return params
}

// safe turns a panic in a builtin into an error naming it, and a Go nil
// into None: a bug in rooda must not crash a run or confuse the
// interpreter.
func safe(name string, fn builtinFn) builtinFn {
	return func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (v starlark.Value, err error) {
		defer func() {
			if r := recover(); r != nil {
				v, err = nil, fmt.Errorf("internal error in %s: %v (please report it)", name, r)
				if os.Getenv("ROODA_DEBUG") != "" {
					err = fmt.Errorf("%w\n%s", err, debug.Stack())
				}
			}
			if err == nil && v == nil {
				v = starlark.None
			}
		}()
		return fn(thread, b, args, kwargs)
	}
}
