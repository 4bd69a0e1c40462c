package builtins

import (
	"fmt"

	"go.starlark.net/starlark"

	"rooda/host"
	"rooda/host/prompt"
)

var fileBuiltin = Builtin{
	Name: "file",
	Params: []Param{
		{"path", "str", "", "a file beside the script: relative to the .star file that calls file(), as fragment()'s path is; with work = True, a file of the working directory"},
		{"work", "bool", "False", "a file of the work, relative to the working directory, where agents and run() work: looked for only when a prompt is composed, so it may name what an earlier loop writes (PLAN.md)"},
	},
	Returns: "file",
	Doc: "A file for the CONTEXT section, read before each prompt, under \"Source: PATH\": context = [file(\"notes.md\"), \"inline text\"]. " +
		"A file beside the script, which ships with it, must exist at the call, so a typo fails there (and at rooda script check), never reaching the prompt as its name. " +
		"file(\"PLAN.md\", work = True) is a file of the work, which an earlier loop may write: it must be there when the prompt is composed. " +
		"A plain string in context is always text, never a file (docs/scripts.md, Paths).",
	Example: `# file_test.star — run with: rooda script test file_test.star
def test_file():
    this = file("file_test.star")  # a file beside the script: this one
    assert.fails(lambda: file("no-such-notes.md"), "no-such-notes.md")
    plan = file("PLAN.md", work = True)  # not there yet: an earlier loop would write it
    p = compose("p", act = [fragment(content = "Work.")])
    prompt = p.render(context = [this, "Inline text.", "file_test.star"])
    assert.contains(prompt, "this = file(")
    assert.contains(prompt, "Inline text.\n\nfile_test.star")  # a plain string is text`,
	fn: fileFn,
}

func fileFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var path string
	var work bool
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "path", &path, "work?", &work); err != nil {
		return nil, err
	}
	if work {
		resolved, err := host.WorkPath(path)
		if err != nil {
			return nil, err
		}
		return &ContextFile{path: resolved, work: true}, nil
	}
	resolved, err := host.FromThread(thread).ContextFile(caller(thread), path)
	if err != nil {
		return nil, err
	}
	return &ContextFile{path: resolved}, nil
}

// ContextFile is a file() value: a file beside the script, which existed
// when the script named it, its path as the working directory sees it;
// or a file of the work, read when it is used.
type ContextFile struct {
	path string
	work bool
}

func (x *ContextFile) String() string {
	if x.work {
		return fmt.Sprintf("file(%q, work = True)", x.path)
	}
	return fmt.Sprintf("file(%q)", x.path)
}
func (x *ContextFile) Type() string          { return "file" }
func (x *ContextFile) Freeze()               {}
func (x *ContextFile) Truth() starlark.Bool  { return true }
func (x *ContextFile) Hash() (uint32, error) { return starlark.String(x.String()).Hash() }

// Attr gives .path and .work, so that a script can show or pass it on.
func (x *ContextFile) Attr(name string) (starlark.Value, error) {
	switch name {
	case "path":
		return starlark.String(x.path), nil
	case "work":
		return starlark.Bool(x.work), nil
	}
	return nil, nil
}

func (x *ContextFile) AttrNames() []string { return []string{"path", "work"} }

// value is the file as the prompt takes it.
func (x *ContextFile) value() prompt.ContextValue {
	if x.work {
		return prompt.ContextValue{Value: x.path, Kind: prompt.WorkFile}
	}
	return prompt.ContextValue{Value: x.path, Kind: prompt.File}
}

// contextValues converts a context: a str, a file(), or a list of them.
// A plain string is text, whatever it says.
func contextValues(v starlark.Value, what string) ([]prompt.ContextValue, error) {
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
	out := make([]prompt.ContextValue, 0, len(items))
	for _, item := range items {
		if f, ok := item.(*ContextFile); ok {
			out = append(out, f.value())
			continue
		}
		s, ok := starlark.AsString(item)
		if !ok {
			return nil, fmt.Errorf("%s must hold strings or file()s, got %s", what, item.Type())
		}
		out = append(out, prompt.ContextValue{Value: s, Kind: prompt.Text})
	}
	return out, nil
}
