package prompt

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"regexp"
	"strings"
	"sync"
	"text/template"
	"text/template/parse"
)

// templateName is the name Go's messages carry; it is stripped from them,
// since the user knows the fragment by its path and index.
const templateName = "fragment"

// Go's messages start with "template: fragment:LINE[:COL]: " and, when
// executing, "executing "fragment" at <…>: ". The rest is the cause.
var goTemplatePrefix = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^template: ` + templateName + `:(\d+)(?::\d+)?: (?:executing "` + templateName + `" at <.*?>: )?`)
})

// templateError is a text/template error told in the seed's words: the
// cause, and the line when the text has more than one.
type templateError struct {
	cause string
	line  string // "" when the text has a single line, where a line number tells nothing
}

func newTemplateError(err error, text string) *templateError {
	msg := err.Error()
	m := goTemplatePrefix().FindStringSubmatch(msg)
	if m == nil {
		return &templateError{cause: msg}
	}
	te := &templateError{cause: msg[len(m[0]):]}
	if strings.Contains(strings.TrimSpace(text), "\n") {
		te.line = m[1]
	}
	return te
}

func (e *templateError) Error() string { return e.cause }

// parseTemplate parses a fragment's text as a Go template, after
// hideControlLines.
func parseTemplate(text string) (*template.Template, error) {
	t, err := template.New(templateName).Parse(hideControlLines(text))
	if err != nil {
		return nil, newTemplateError(err, text)
	}
	return t, nil
}

// execute runs t with params as its data. A parameter the template names
// but params lacks (or holds as null) reads as nothing, as seed 000 says
// ("Hello {{.name}}" with no name gives "Hello "), rather than Go's
// "<no value>".
func execute(t *template.Template, text string, params map[string]any) (string, error) {
	var b strings.Builder
	err := t.Execute(&limitedWriter{w: &b, left: maxRenderedBytes}, withAbsent(t, params))
	if errors.Is(err, errTooLong) {
		return "", &templateError{cause: errTooLong.Error()}
	}
	if err != nil {
		return "", newTemplateError(err, text)
	}
	return b.String(), nil
}

// maxRenderedBytes bounds what one fragment's template may produce, so a
// runaway {{range}} fails at validation instead of exhausting memory.
const maxRenderedBytes = 1 << 20

var errTooLong = fmt.Errorf("output exceeds %d bytes", maxRenderedBytes)

type limitedWriter struct {
	w    io.Writer
	left int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if len(p) > l.left {
		return 0, errTooLong
	}
	l.left -= len(p)
	return l.w.Write(p)
}

// controlLine matches a line holding nothing but control actions
// ({{if}}, {{else}}, {{end}}, {{range}}, {{with}}, …), with its indentation.
var controlLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^[ \t]*((?:\{\{\s*(?:if|else|end|range|with|define|block|break|continue)\b[^{}\n]*\}\}[ \t]*)+)\n`)
})

// hideControlLines makes a line that holds only control actions leave no
// line in the output, as seed 000's Example 5 shows: the {{range}} and
// {{end}} lines of a list produce the list and nothing else. It moves the
// line's newline inside its last action, where Go ignores it, so line
// numbers in error messages stay true.
func hideControlLines(text string) string {
	return controlLine().ReplaceAllStringFunc(text, func(line string) string {
		actions := strings.TrimSpace(line)
		return actions[:len(actions)-2] + "\n}}"
	})
}

// absent stands for a missing parameter: it prints as nothing, is false in
// {{if}}, and {{range}} over it runs its {{else}}.
type absent []any

func (absent) String() string { return "" }

// withAbsent returns params with every top-level name the template uses
// and params lacks (or holds as null) set to absent.
func withAbsent(t *template.Template, params map[string]any) map[string]any {
	data := maps.Clone(params)
	if data == nil {
		data = map[string]any{}
	}
	for _, tt := range t.Templates() {
		if tt.Tree == nil {
			continue
		}
		forEachField(tt.Root, func(name string) {
			if data[name] == nil {
				data[name] = absent{}
			}
		})
	}
	return data
}

// forEachField calls fn with the first name of every field reference in
// the tree (.name and $.name); nested fields need no default, since Go
// reports them against their parent.
func forEachField(node parse.Node, fn func(string)) { eachField(node, true, fn) }

// eachField is forEachField; with dot false, .name is not a parameter
// (inside a with or a range, where dot is something else) and only
// $.name counts.
func eachField(node parse.Node, dot bool, fn func(string)) {
	switch n := node.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, c := range n.Nodes {
			eachField(c, dot, fn)
		}
	case *parse.ActionNode:
		eachField(n.Pipe, dot, fn)
	case *parse.PipeNode:
		if n == nil {
			return
		}
		for _, c := range n.Cmds {
			eachField(c, dot, fn)
		}
	case *parse.CommandNode:
		for _, a := range n.Args {
			eachField(a, dot, fn)
		}
	case *parse.ChainNode:
		eachField(n.Node, dot, fn)
	case *parse.FieldNode:
		if dot {
			fn(n.Ident[0])
		}
	case *parse.VariableNode:
		if len(n.Ident) > 1 && n.Ident[0] == "$" {
			fn(n.Ident[1])
		}
	case *parse.IfNode:
		eachBranch(&n.BranchNode, dot, fn)
	case *parse.RangeNode:
		eachBranch(&n.BranchNode, dot, fn)
	case *parse.WithNode:
		eachBranch(&n.BranchNode, dot, fn)
	case *parse.TemplateNode:
		eachField(n.Pipe, dot, fn)
	}
}

func eachBranch(n *parse.BranchNode, dot bool, fn func(string)) {
	eachField(n.Pipe, dot, fn)
	eachField(n.List, dot, fn)
	eachField(n.ElseList, dot, fn)
}

// unknownParameters returns, in the order the text names them, the
// parameters the template prints but params lack: {{.Taks}} where the
// fragment gives Task, a typo that would otherwise print nothing. A name
// the template tests ({{if .extra}}, {{with .extra}}, {{range .extra}}) is
// optional, as seed 000 allows, and is not reported wherever it appears.
func unknownParameters(t *template.Template, params map[string]any) []string {
	printed, tested := map[string]bool{}, map[string]bool{}
	var order []string
	for _, tt := range t.Templates() {
		if tt.Tree == nil {
			continue
		}
		walkTopLevel(tt.Root, func(name string, test bool) {
			if test {
				tested[name] = true
			} else if !printed[name] {
				printed[name] = true
				order = append(order, name)
			}
		})
	}
	var unknown []string
	for _, name := range order {
		if _, given := params[name]; !given && !tested[name] {
			unknown = append(unknown, name)
		}
	}
	return unknown
}

// walkTopLevel calls fn with every name the tree takes from the
// parameters, and whether it is the condition of an if, with or range.
// Inside the body of a with or a range, dot is something else: only
// $.name names a parameter there.
func walkTopLevel(node parse.Node, fn func(name string, test bool)) {
	switch n := node.(type) {
	case *parse.ListNode:
		if n != nil {
			for _, c := range n.Nodes {
				walkTopLevel(c, fn)
			}
		}
	case *parse.IfNode:
		forEachField(n.Pipe, func(name string) { fn(name, true) })
		walkTopLevel(n.List, fn)
		walkTopLevel(n.ElseList, fn)
	case *parse.RangeNode:
		walkRebound(&n.BranchNode, fn)
	case *parse.WithNode:
		walkRebound(&n.BranchNode, fn)
	default:
		forEachField(node, func(name string) { fn(name, false) })
	}
}

// walkRebound walks a with or a range: its condition is a test, its body
// sees parameters only as $.name, its else branch keeps dot.
func walkRebound(n *parse.BranchNode, fn func(name string, test bool)) {
	forEachField(n.Pipe, func(name string) { fn(name, true) })
	eachField(n.List, false, func(name string) { fn(name, false) })
	walkTopLevel(n.ElseList, fn)
}
