package builtins

import (
	"fmt"
	"os"
	"runtime/debug"

	"go.starlark.net/lib/json"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
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
	fn      func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error)
}

// Registry lists the API's functions, in the order the reference gives
// them.
func Registry() []Builtin {
	return []Builtin{
		fragmentBuiltin, composeBuiltin, procedureBuiltin, agentBuiltin,
		iterateBuiltin, runBuiltin, getenvBuiltin,
	}
}

// Predeclared is what every module of a run sees: the registry's
// functions, made safe, and the values of this run.
func Predeclared(args []string, dryRun bool) starlark.StringDict {
	d := starlark.StringDict{}
	for _, b := range Registry() {
		d[b.Name] = starlark.NewBuiltin(b.Name, safe(b.Name, b.fn))
	}
	list := make([]starlark.Value, len(args))
	for i, a := range args {
		list[i] = starlark.String(a)
	}
	argv := starlark.Tuple(list)
	d["args"] = argv
	d["dry_run"] = starlark.Bool(dryRun)
	d["json"] = json.Module
	d["struct"] = starlark.NewBuiltin("struct", starlarkstruct.Make)
	return d
}

// safe turns a panic in a builtin into an error naming it, and a Go nil
// into None: a bug in rooda must not crash a run or confuse the
// interpreter.
func safe(name string, fn func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error)) func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
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
