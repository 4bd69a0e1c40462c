// Package reference writes the Starlark API's reference from the
// builtins registry and the standard library's docstrings: Markdown for
// people (docs/builtins.md, rooda script doc), JSON for tools, and a
// .pyi stub for editors' completion.
package reference

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"rooda/builtins"
	"rooda/host/docstring"
)

// Entry is one documented name.
type Entry struct {
	Name    string  `json:"name"`
	Kind    string  `json:"kind"` // function, method, type, value, test, library
	Section string  `json:"section"`
	Params  []Param `json:"params,omitempty"`
	Returns string  `json:"returns,omitempty"`
	Type    string  `json:"type,omitempty"`
	Doc     string  `json:"doc"`
	Example string  `json:"example,omitempty"`
	// Fields are a type's attributes: a Param each, without a default.
	Fields []Param `json:"fields,omitempty"`
	// Module is a library function's module, "@rooda//termination.star".
	Module string `json:"-"`
}

// Param is one parameter of an entry.
type Param struct {
	Name    string `json:"name"`
	Type    string `json:"type,omitempty"`
	Default string `json:"default,omitempty"`
	Doc     string `json:"doc,omitempty"`
}

// Signature is how a call is written: "iterate(procedure, max_iterations=None)".
func (e Entry) Signature() string {
	if e.Kind == "value" || e.Kind == "type" {
		return e.Name
	}
	var parts []string
	for _, p := range e.Params {
		if p.Default == "" {
			parts = append(parts, p.Name)
		} else {
			parts = append(parts, p.Name+"="+p.Default)
		}
	}
	return fmt.Sprintf("%s(%s)", e.Name, strings.Join(parts, ", "))
}

// Entries is the whole reference, in the order it is read: the
// functions, the methods, the types of the values they give, the values, what script tests add, and the
// standard library, whose functions are given as loaded modules.
func Entries(stdlib map[string]starlark.StringDict) []Entry {
	var out []Entry
	for _, b := range builtins.Registry() {
		out = append(out, fromBuiltin(b, "", "function", "Functions"))
	}
	for _, typ := range slices.Sorted(maps.Keys(builtins.Methods())) {
		for _, b := range builtins.Methods()[typ] {
			out = append(out, fromBuiltin(b, typ+".", "method", "Methods of "+typ))
		}
	}
	for _, typ := range builtins.Types() {
		out = append(out, fromType(typ))
	}
	for _, v := range builtins.Values() {
		out = append(out, Entry{Name: v.Name, Kind: "value", Section: "Values", Type: v.Type, Doc: v.Doc})
	}
	for _, b := range builtins.TestRegistry() {
		out = append(out, fromBuiltin(b, "", "test", "In script tests"))
	}
	for _, b := range builtins.AssertFunctions() {
		out = append(out, fromBuiltin(b, "assert.", "test", "In script tests"))
	}
	for _, module := range slices.Sorted(maps.Keys(stdlib)) {
		out = append(out, library(module, stdlib[module])...)
	}
	return out
}

func fromBuiltin(b builtins.Builtin, prefix, kind, section string) Entry {
	e := Entry{Name: prefix + b.Name, Kind: kind, Section: section, Returns: b.Returns, Doc: b.Doc, Example: b.Example}
	for _, p := range b.Params {
		e.Params = append(e.Params, Param(p))
	}
	return e
}

func fromType(typ builtins.Type) Entry {
	e := Entry{Name: typ.Name, Kind: "type", Section: "Types", Doc: typ.Doc}
	for _, f := range typ.Fields {
		e.Fields = append(e.Fields, Param{Name: f.Name, Type: f.Type, Doc: f.Doc})
	}
	return e
}

// library documents the functions a module exports, from their
// docstrings: the first paragraph says what it does.
func library(module string, globals starlark.StringDict) []Entry {
	var out []Entry
	for _, name := range slices.Sorted(maps.Keys(globals)) {
		fn, ok := globals[name].(*starlark.Function)
		if !ok || strings.HasPrefix(name, "_") {
			continue
		}
		d := docstring.Parse(fn.Doc())
		e := Entry{Name: name, Kind: "library", Section: "load(\"" + module + "\", …)", Module: module, Doc: d.Text, Returns: d.Returns}
		for i := range fn.NumParams() {
			p, _ := fn.Param(i)
			param := Param{Name: p}
			if value := fn.ParamDefault(i); value != nil {
				param.Default = value.String()
			}
			switch {
			case fn.HasKwargs() && i == fn.NumParams()-1:
				param.Name = "**" + p
			case fn.HasVarargs() && i == fn.NumParams()-1-boolInt(fn.HasKwargs()):
				param.Name = "*" + p
			}
			e.Params = append(e.Params, documented(d, param))
		}
		out = append(out, e)
	}
	return out
}

// documented fills in p's description and type from the docstring d,
// "any" when it gives none.
func documented(d docstring.Doc, p Param) Param {
	a, _ := d.Arg(p.Name)
	p.Doc, p.Type = a.Desc, cmp.Or(a.Type, "any")
	return p
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Find is every entry named name ("iterate", "procedure.render",
// "assert.eq", "min_iterations", "iteration"): two where a function and
// the type it returns share a name (procedure, fake_agent). A name that
// no entry has may be one of a parameter or a field: "iterate.timeout",
// "iteration.outcome", "until_command.cmd".
func Find(entries []Entry, name string) []Entry {
	var found []Entry
	for _, e := range entries {
		if e.Name == name {
			found = append(found, e)
		}
	}
	if len(found) > 0 {
		return found
	}
	for _, m := range members(entries) {
		if m.Name == name {
			found = append(found, m)
		}
	}
	return found
}

// members are the parameters and fields of entries as entries of their
// own, named owner.name: what script doc iterate.timeout shows.
func members(entries []Entry) []Entry {
	var out []Entry
	for _, e := range entries {
		for _, p := range e.Params {
			name := strings.TrimLeft(p.Name, "*")
			if name == "" {
				continue
			}
			out = append(out, Entry{Name: e.Name + "." + name, Kind: "parameter", Section: e.Name, Type: p.Type, Params: []Param{p}, Doc: p.Doc})
		}
		for _, f := range e.Fields {
			out = append(out, Entry{Name: e.Name + "." + f.Name, Kind: "field", Section: e.Name, Type: f.Type, Doc: f.Doc})
		}
	}
	return out
}

// Sections writes entries one after the other, as Section does each.
func Sections(entries []Entry) string {
	parts := make([]string, len(entries))
	for i, e := range entries {
		parts[i] = Section(e)
	}
	return strings.Join(parts, "\n")
}

// Names are the entries' names, and their parameters' and fields', for
// suggestions.
func Names(entries []Entry) []string {
	var names []string
	for _, e := range append(slices.Clone(entries), members(entries)...) {
		names = append(names, e.Name)
	}
	return names
}

// Help is a REPL's help(): help() lists every name, help(x) prints the
// reference of x, named by a string or given as the value itself.
func Help(entries []Entry, out io.Writer) *starlark.Builtin {
	return starlark.NewBuiltin("help", func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var what starlark.Value = starlark.None
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, "symbol?", &what); err != nil {
			return nil, err
		}
		if what == starlark.None {
			fmt.Fprintf(out, "%s\nhelp(\"name\") tells more.\n", strings.Join(Names(entries), "  "))
			return starlark.None, nil
		}
		name := nameOf(what)
		found := Find(entries, name)
		if len(found) == 0 {
			return nil, fmt.Errorf("no %q in the reference; help() lists every name", name)
		}
		fmt.Fprint(out, Sections(found))
		return starlark.None, nil
	})
}

// nameOf is the reference name of a value help() is given: a string
// names it; a builtin is itself, a bound method "type.method", a module
// its name.
func nameOf(v starlark.Value) string {
	switch x := v.(type) {
	case starlark.String:
		return string(x)
	case *starlark.Builtin:
		if recv := x.Receiver(); recv != nil {
			return recv.Type() + "." + x.Name()
		}
		return x.Name()
	case *starlarkstruct.Module:
		return x.Name
	case starlark.Callable:
		return x.Name()
	}
	return v.String()
}
