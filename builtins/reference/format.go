package reference

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Markdown writes the reference as one Markdown document.
func Markdown(entries []Entry) string {
	var b strings.Builder
	b.WriteString("# rooda's Starlark API\n\n")
	b.WriteString("Generated from the builtins registry by `rooda script doc --format md`; do not edit.\n\n")
	b.WriteString("Each example runs as it is shown: one fenced `python repl` is statements for `rooda script repl` (typed at its prompt, or piped into it); one that begins `# NAME_test.star` is a script test, run with `rooda script test NAME_test.star`.\n")
	section := ""
	for _, e := range entries {
		if e.Section != section {
			section = e.Section
			fmt.Fprintf(&b, "\n## %s\n", section)
		}
		b.WriteString("\n" + Section(e))
	}
	return b.String()
}

// Section writes one entry: its signature, what it does, its parameters
// (a type's fields) and its example.
func Section(e Entry) string {
	var b strings.Builder
	if e.Kind == "type" {
		fmt.Fprintf(&b, "### %s\n\n%s\n", e.Name, e.Doc)
		if len(e.Fields) > 0 {
			b.WriteString("\n| field | type | |\n| --- | --- | --- |\n")
			for _, f := range e.Fields {
				fmt.Fprintf(&b, "| `.%s` | %s | %s |\n", f.Name, cell(f.Type), cell(f.Doc))
			}
		}
		return b.String()
	}
	if e.Kind == "parameter" || e.Kind == "field" {
		return member(e)
	}
	// The signature is a declaration, not a program: the docs' example
	// runner (internal/cli/docs_e2e_test.go) skips a block marked no-run.
	fmt.Fprintf(&b, "### %s\n\n```python no-run: a signature\n%s", e.Name, e.Signature())
	switch {
	case e.Returns != "":
		fmt.Fprintf(&b, " -> %s", e.Returns)
	case e.Type != "":
		fmt.Fprintf(&b, ": %s", e.Type)
	}
	b.WriteString("\n```\n\n" + e.Doc + "\n")
	if len(e.Params) > 0 {
		b.WriteString("\n| parameter | type | default | |\n| --- | --- | --- | --- |\n")
		for _, p := range e.Params {
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", p.Name, cell(p.Type), cell(orDash(p.Default, p.Name)), cell(p.Doc))
		}
	}
	switch name := e.ExampleTest(); {
	case e.Example == "":
	case name != "":
		b.WriteString("\nExample, a script test:\n\n```python\n" + e.Example + "\n```\n")
	default:
		b.WriteString("\nExample, in the REPL:\n\n```python repl\n" + e.Example + "\n```\n")
	}
	return b.String()
}

// exampleTest is an example's first line when it names a script test.
var exampleTest = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^# (\w+_test\.star) `) })

// ExampleTest is the file name of an example that is a script test (its
// first line "# NAME_test.star …"), else "": such an example is
// statements for the REPL.
func (e Entry) ExampleTest() string {
	if m := exampleTest().FindStringSubmatch(e.Example); m != nil {
		return m[1]
	}
	return ""
}

// member writes a parameter or a field: whose it is, its type, its
// default, what it is.
func member(e Entry) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s\n\n", e.Name)
	if e.Kind == "field" {
		fmt.Fprintf(&b, "A field of %s: %s.\n", e.Section, e.Type)
	} else {
		p := e.Params[0]
		fmt.Fprintf(&b, "A parameter of %s(): %s, %s.\n", e.Section, orAny(e.Type), defaultText(p))
	}
	if e.Doc != "" {
		b.WriteString("\n" + e.Doc + "\n")
	}
	return b.String()
}

func orAny(t string) string {
	if t == "" {
		return "any"
	}
	return t
}

// defaultText says a parameter's default, or that it has none.
func defaultText(p Param) string {
	switch d := orDash(p.Default, p.Name); d {
	case "required":
		return "required"
	case "":
		return "optional"
	default:
		return "default " + d
	}
}

func orDash(dflt, name string) string {
	if dflt == "" && !strings.HasPrefix(name, "*") {
		return "required"
	}
	return dflt
}

func cell(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

// JSON writes the reference as a JSON array.
func JSON(entries []Entry) (string, error) {
	data, err := json.MarshalIndent(entries, "", "  ")
	return string(data) + "\n", err
}
