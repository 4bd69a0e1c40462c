package builtins

import (
	"fmt"

	"go.starlark.net/lib/json"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"rooda/host"
)

// go.starlark.net's str, repr, print and json walk a value on the Go
// stack, and json builds its text whole: a value nested millions of
// levels deep would overflow the stack (a fatal error), and a huge one
// would be encoded past the memory budget in one step. These versions
// have the host measure the value first.

// guardedUniverse are the universe's builtins that walk their arguments,
// each refusing one too deep to walk.
func guardedUniverse() starlark.StringDict {
	d := starlark.StringDict{}
	for _, name := range []string{"str", "repr", "print"} {
		d[name] = walking(universe(name), nil)
	}
	for _, name := range []string{"list", "tuple"} {
		d[name] = sized(universe(name))
	}
	return d
}

func universe(name string) *starlark.Builtin { return starlark.Universe[name].(*starlark.Builtin) }

// sized wraps list or tuple, which make room for all the elements of a
// sequence whose length is known before filling it: list(range(10**9))
// asks for 16 GB at once. One the memory budget has no room for is
// refused first.
func sized(b *starlark.Builtin) *starlark.Builtin {
	return starlark.NewBuiltin(b.Name(), func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if len(args) == 1 {
			if n := starlark.Len(args[0]); n > 0 {
				if err := host.FromThread(thread).CheckRoom(fmt.Sprintf("%s(): a %s of %d elements", b.Name(), b.Name(), n), int64(n)*elementSize); err != nil {
					return nil, err
				}
			}
		}
		return starlark.Call(thread, b, args, kwargs)
	})
}

// elementSize is what one element of a list or tuple takes: an interface
// value, two words.
const elementSize = 16

// jsonModule is go.starlark.net's json module with the same guards, and
// an encoding refused when the memory budget has no room for it.
var jsonModule = &starlarkstruct.Module{Name: "json", Members: starlark.StringDict{
	"encode":        walking(member("encode"), checkRoom),
	"encode_indent": walking(member("encode_indent"), checkRoom),
	"decode":        parsing(member("decode")),
	"indent":        parsing(member("indent")),
}}

func member(name string) *starlark.Builtin {
	return json.Module.Members[name].(*starlark.Builtin)
}

// walking wraps b: each argument is measured before b walks it, and
// room, when set, checks what that size would take.
func walking(b *starlark.Builtin, room func(*starlark.Thread, string, int64) error) *starlark.Builtin {
	return starlark.NewBuiltin(b.Name(), func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		for _, arg := range args {
			size, err := host.Measure(arg)
			if err == nil && room != nil {
				if err := room(thread, b.Name(), size); err != nil {
					return nil, err
				}
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %v", b.Name(), err)
			}
		}
		return starlark.Call(thread, b, args, kwargs)
	})
}

func checkRoom(thread *starlark.Thread, name string, size int64) error {
	return host.FromThread(thread).CheckRoom("json."+name+"(): the JSON text", size)
}

// parsing wraps b, whose first argument is JSON text: text nested too
// deep for its recursive decoder is refused first.
func parsing(b *starlark.Builtin) *starlark.Builtin {
	return starlark.NewBuiltin(b.Name(), func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if len(args) > 0 {
			if text, ok := starlark.AsString(args[0]); ok {
				if err := host.JSONNesting(text); err != nil {
					return nil, fmt.Errorf("%s: %v", b.Name(), err)
				}
			}
		}
		return starlark.Call(thread, b, args, kwargs)
	})
}
