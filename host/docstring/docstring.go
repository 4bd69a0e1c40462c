// Package docstring reads the docstrings of rooda's Starlark libraries:
// their text, the "Args:" section with each argument's type, the type
// "Returns:" begins with, and the grammar of those types. script doc
// renders what it reads, script stub types the stubs with it and script
// lint checks a library against it: a docstring that lints clean is one
// the reference shows as written.
package docstring

import (
	"strings"
)

// Doc is a docstring taken apart.
type Doc struct {
	// Text is the docstring but its Args: and Returns: sections,
	// dedented.
	Text string
	// Args are the arguments its "Args:" section documents, in order.
	Args []Arg
	// Returns is the type its "Returns:" section begins with:
	// "function(it): …" returns "function(it)".
	Returns string
	// ReturnsLine is the line of the docstring Returns is read from,
	// counted as Arg.Line is (-1 when there is none).
	ReturnsLine int
	// ArgumentsLine is the line of an "Arguments:" heading, which reads
	// as text, not as Args: (-1 when there is none).
	ArgumentsLine int
}

// Arg is one argument of an Args: section: "name (type): description",
// the description going on over the lines indented deeper than the name.
type Arg struct {
	// Name is the name as written: *args and **kwargs keep their stars,
	// as Python's style guides and buildifier want them.
	Name string
	// Type is the text between the parentheses, "" when none is given.
	Type string
	Desc string
	// Line is the line of the docstring the argument starts on, 0 the
	// first, counted in the string as written.
	Line int
}

// Arg is the argument documented for the parameter name, stars or not.
func (d Doc) Arg(name string) (Arg, bool) {
	name = strings.TrimLeft(name, "*")
	for _, a := range d.Args {
		if strings.TrimLeft(a.Name, "*") == name {
			return a, true
		}
	}
	return Arg{}, false
}

// Parse splits a Python-style docstring, as the string literal holds it,
// into its text, its Args: and its Returns:.
func Parse(raw string) Doc {
	// Lines are counted in raw: a finding points into the file.
	first := strings.Count(raw[:len(raw)-len(strings.TrimLeft(raw, " \t\r\n"))], "\n")
	lines := strings.Split(strings.TrimSpace(raw), "\n")
	indent := -1
	for _, l := range lines[1:] {
		if t := strings.TrimLeft(l, " \t"); t != "" && (indent < 0 || len(l)-len(t) < indent) {
			indent = len(l) - len(t)
		}
	}
	var text []string
	d := Doc{ArgumentsLine: -1, ReturnsLine: -1}
	inArgs, inReturns := false, false
	// An argument's description may wrap: a line indented deeper than the
	// argument's name goes on the description of the one before.
	argIndent := -1
	for i, l := range lines {
		if i > 0 && indent > 0 && len(l) >= indent {
			l = l[indent:]
		}
		depth := len(l) - len(strings.TrimLeft(l, " \t"))
		switch {
		case strings.TrimSpace(l) == "Args:":
			inArgs, argIndent = true, -1
		case strings.TrimSpace(l) == "Returns:":
			inReturns = true
		case inReturns && depth > 0:
			if d.ReturnsLine < 0 {
				d.Returns, _, _ = strings.Cut(strings.TrimSpace(l), ":")
				d.ReturnsLine = first + i
			}
		case inArgs && len(d.Args) > 0 && argIndent >= 0 && depth > argIndent:
			last := &d.Args[len(d.Args)-1]
			last.Desc = strings.TrimSpace(last.Desc + " " + strings.TrimSpace(l))
		case (inArgs || inReturns) && strings.TrimSpace(l) == "":
			// The section ends; the blank line before it already parts
			// the text.
			inArgs, inReturns = false, false
		case inArgs && depth > 0:
			d.Args = append(d.Args, argument(strings.TrimSpace(l), first+i))
			argIndent = depth
		default:
			if strings.TrimSpace(l) == "Arguments:" {
				d.ArgumentsLine = first + i
			}
			inArgs, inReturns = false, false
			text = append(text, l)
		}
	}
	d.Text = strings.TrimSpace(strings.Join(text, "\n"))
	return d
}

// argument reads the line "name (type): description" of an Args:
// section. The type ends at the parenthesis before the first colon
// after it: "function(it)" has parentheses of its own.
func argument(line string, at int) Arg {
	head, desc, _ := strings.Cut(line, ":")
	a := Arg{Name: head, Desc: strings.TrimSpace(desc), Line: at}
	if name, typ, ok := strings.Cut(head, " ("); ok && strings.HasSuffix(typ, ")") {
		a.Name, a.Type = name, strings.TrimSpace(strings.TrimSuffix(typ, ")"))
	}
	return a
}
