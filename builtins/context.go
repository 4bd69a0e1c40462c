package builtins

import (
	"fmt"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"rooda/host"
)

var fileBuiltin = Builtin{
	Name:    "file",
	Params:  []Param{{"path", "str", "", "a file, relative to the .star file that calls file(), as fragment()'s path is"}},
	Returns: "file",
	Doc: "A file for the CONTEXT section: context = [file(\"notes.md\"), \"inline text\"]. The file must exist at the call, so a typo fails there (and at rooda script check), never reaching the prompt as its name; its content is read before each prompt, under \"Source: PATH\". " +
		"A plain string is text, or a file when it names one relative to the .star file; a plain single word that looks like a path (notes.md, docs/plan) and names nothing is an error.",
	Example: `this = file("example_test.star")  # the file this example is run from, relative to it
assert.fails(lambda: file("no-such-notes.md"), "no-such-notes.md")
p = compose("p", act = [fragment(content = "Work.")])
prompt = p.render(context = [this, "Inline text."])
assert.contains(prompt, "Source: ")
assert.contains(prompt, "this = file(")
assert.contains(prompt, "Inline text.")`,
	fn: fileFn,
}

func fileFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var path string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "path", &path); err != nil {
		return nil, err
	}
	resolved, err := host.FromThread(thread).ContextFile(caller(thread), path)
	if err != nil {
		return nil, err
	}
	return &ContextFile{path: resolved}, nil
}

// ContextFile is a file() value: a context file that existed when the
// script named it, its path as the working directory sees it.
type ContextFile struct{ path string }

func (x *ContextFile) String() string        { return fmt.Sprintf("file(%q)", x.path) }
func (x *ContextFile) Type() string          { return "file" }
func (x *ContextFile) Freeze()               {}
func (x *ContextFile) Truth() starlark.Bool  { return true }
func (x *ContextFile) Hash() (uint32, error) { return starlark.String(x.path).Hash() }

// Attr gives .path, so that a script can show or pass it on.
func (x *ContextFile) Attr(name string) (starlark.Value, error) {
	if name == "path" {
		return starlark.String(x.path), nil
	}
	return nil, nil
}

func (x *ContextFile) AttrNames() []string { return []string{"path"} }

// contextValues converts a context: a str, a file(), or a list of them,
// plain strings taken as the .star file at pos means them (see
// host.Runtime.ContextString).
func contextValues(thread *starlark.Thread, pos syntax.Position, v starlark.Value, what string) ([]string, error) {
	items := []starlark.Value{v}
	if _, isFile := v.(*ContextFile); !isFile {
		if _, isString := starlark.AsString(v); !isString {
			iter, ok := v.(starlark.Iterable)
			if !ok || v.Type() == "dict" {
				return nil, fmt.Errorf("%s must be a string, a file() or a list of them, got %s", what, v.Type())
			}
			items = nil
			for e := range starlark.Elements(iter) {
				items = append(items, e)
			}
		}
	}
	out := make([]string, 0, len(items))
	for _, item := range items {
		value, err := contextValue(thread, pos, item, what)
		if err != nil {
			return nil, err
		}
		out = append(out, value)
	}
	return out, nil
}

func contextValue(thread *starlark.Thread, pos syntax.Position, v starlark.Value, what string) (string, error) {
	if f, ok := v.(*ContextFile); ok {
		return f.path, nil
	}
	s, ok := starlark.AsString(v)
	if !ok {
		return "", fmt.Errorf("%s must hold strings or file()s, got %s", what, v.Type())
	}
	return host.FromThread(thread).ContextString(pos, s)
}
