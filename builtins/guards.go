package builtins

import (
	"go.starlark.net/lib/json"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"rooda/host"
)

// go.starlark.net's str, repr, print and json walk a value on the Go
// stack, json builds its text whole, and list, tuple, zip and enumerate
// make room for every element of a sequence of known length at once.
// These versions have the host check first (host.CheckWalk,
// host.CheckLength), then call the language's own.

// guardedUniverse are the universe's builtins, guarded.
func guardedUniverse() starlark.StringDict {
	d := starlark.StringDict{}
	for _, name := range []string{"str", "repr", "print"} {
		d[name] = walking(universe(name), false)
	}
	// What each element costs besides its slot: nothing for list and
	// tuple; a pair for enumerate; a tuple of one slot per argument for zip.
	d["list"] = sized(universe("list"), func(args starlark.Tuple) int64 { return 0 })
	d["tuple"] = sized(universe("tuple"), func(args starlark.Tuple) int64 { return 0 })
	d["enumerate"] = sized(universe("enumerate"), func(args starlark.Tuple) int64 { return 24 + 2*16 })
	d["zip"] = sized(universe("zip"), func(args starlark.Tuple) int64 { return 24 + int64(len(args))*16 })
	return d
}

func universe(name string) *starlark.Builtin { return starlark.Universe[name].(*starlark.Builtin) }

// jsonModule is go.starlark.net's json module, guarded.
var jsonModule = &starlarkstruct.Module{Name: "json", Members: starlark.StringDict{
	"encode":        walking(member("encode"), true),
	"encode_indent": walking(member("encode_indent"), true),
	"decode":        parsing(member("decode")),
	"indent":        parsing(member("indent")),
}}

func member(name string) *starlark.Builtin {
	return json.Module.Members[name].(*starlark.Builtin)
}

// guarded wraps b: check runs on b's arguments first.
func guarded(b *starlark.Builtin, check func(*host.Runtime, starlark.Tuple) error) *starlark.Builtin {
	return starlark.NewBuiltin(b.Name(), func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if err := check(host.FromThread(thread), args); err != nil {
			return nil, err
		}
		return starlark.Call(thread, b, args, kwargs)
	})
}

// walking guards a builtin that walks its arguments; encoded, one that
// also builds their text.
func walking(b *starlark.Builtin, encoded bool) *starlark.Builtin {
	return guarded(b, func(r *host.Runtime, args starlark.Tuple) error { return r.CheckWalk(b.Name(), args, encoded) })
}

// sized guards a builtin that makes a slot for each element of its
// arguments, the shortest for zip.
func sized(b *starlark.Builtin, perElement func(starlark.Tuple) int64) *starlark.Builtin {
	return guarded(b, func(r *host.Runtime, args starlark.Tuple) error {
		return r.CheckLength(b.Name(), args, perElement(args))
	})
}

// parsing guards a builtin whose first argument is JSON text: text nested
// too deep for its recursive decoder is refused first.
func parsing(b *starlark.Builtin) *starlark.Builtin {
	return guarded(b, func(_ *host.Runtime, args starlark.Tuple) error {
		if len(args) == 0 {
			return nil
		}
		text, _ := starlark.AsString(args[0])
		return host.JSONNesting(b.Name(), text)
	})
}
