package builtins

import (
	"fmt"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"rooda/host/scriptargs"
	"rooda/host/session"
)

var flagsBuiltin = Builtin{
	Name: "flags",
	Params: []Param{
		{"**defaults", "str | int | float | bool | None", "", "each argument's name and default: the value given on the command line must be of the default's type (None: a str, or None when not given)"},
	},
	Returns: "struct",
	Doc: "The script's typed arguments: flags(n = 3, agent = \"claude\", dry = False) reads -- --n=5 --agent codex --dry (or --n 5; --dry-run for dry_run) and returns a struct with each value, of its default's type, or the default. " +
		"A flag the script does not take, or a value of the wrong type, is an error that names it and lists the flags. Arguments that are not flags stay in args. rooda info shows the flags.",
	Example: `opts = flags(n = 3, agent = "claude", dry = False)
assert.eq((opts.n, opts.agent, opts.dry), (3, "claude", False))`,
	bind: func(args []string) builtinFn {
		return func(thread *starlark.Thread, b *starlark.Builtin, positional starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			return flagsFn(thread, args, positional, kwargs)
		}
	},
}

func flagsFn(thread *starlark.Thread, args []string, positional starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(positional) > 0 {
		return nil, fmt.Errorf("flags: give each argument by name with its default: flags(n = 3, agent = \"claude\")")
	}
	var defs []scriptargs.Flag
	values := starlark.StringDict{}
	for _, kv := range kwargs {
		name := string(kv[0].(starlark.String))
		f, err := flagOf(name, kv[1])
		if err != nil {
			return nil, err
		}
		defs = append(defs, f)
		values[name] = kv[1]
	}
	given, err := scriptargs.Parse(args, defs)
	if err != nil {
		return nil, err
	}
	for name, v := range given {
		values[name] = starlarkValue(v)
	}
	session.FromThread(thread).DescribeArguments(caller(thread).String(), defs)
	return starlarkstruct.FromStringDict(starlark.String("flags"), values), nil
}

// flagOf is the flag a keyword of flags() declares, of its default's
// type.
func flagOf(name string, dflt starlark.Value) (scriptargs.Flag, error) {
	f := scriptargs.Flag{Name: name}
	switch v := dflt.(type) {
	case starlark.String:
		f.Kind, f.Default = scriptargs.String, string(v)
	case starlark.Int:
		f.Kind, f.Default = scriptargs.Int, v.String()
	case starlark.Float:
		f.Kind, f.Default = scriptargs.Float, v.String()
	case starlark.Bool:
		f.Kind, f.Default = scriptargs.Bool, v.String()
	case starlark.NoneType:
		f.Kind = scriptargs.String
	default:
		return f, fmt.Errorf("flags: %s's default must be a str, an int, a float, a bool or None, got %s", name, dflt.Type())
	}
	return f, nil
}

func starlarkValue(v any) starlark.Value {
	switch x := v.(type) {
	case int64:
		return starlark.MakeInt64(x)
	case float64:
		return starlark.Float(x)
	case bool:
		return starlark.Bool(x)
	case string:
		return starlark.String(x)
	}
	return starlark.None
}
