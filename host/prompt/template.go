package prompt

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"regexp"
	"strings"
	"text/template"
	"text/template/parse"
)

// templateName is the name Go's messages carry; it is stripped from them,
// since the user knows the fragment by its path and index.
const templateName = "fragment"

// Go's messages start with "template: fragment:LINE[:COL]: " and, when
// executing, "executing "fragment" at <…>: ". The rest is the cause.
var goTemplatePrefix = regexp.MustCompile(`^template: ` + templateName + `:(\d+)(?::\d+)?: (?:executing "` + templateName + `" at <.*?>: )?`)

// templateError is a text/template error told in the seed's words: the
// cause, and the line when the text has more than one.
type templateError struct {
	cause string
	line  string // "" when the text has a single line, where a line number tells nothing
}

func newTemplateError(err error, text string) *templateError {
	msg := err.Error()
	m := goTemplatePrefix.FindStringSubmatch(msg)
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
var controlLine = regexp.MustCompile(`(?m)^[ \t]*((?:\{\{\s*(?:if|else|end|range|with|define|block|break|continue)\b[^{}\n]*\}\}[ \t]*)+)\n`)

// hideControlLines makes a line that holds only control actions leave no
// line in the output, as seed 000's Example 5 shows: the {{range}} and
// {{end}} lines of a list produce the list and nothing else. It moves the
// line's newline inside its last action, where Go ignores it, so line
// numbers in error messages stay true.
func hideControlLines(text string) string {
	return controlLine.ReplaceAllStringFunc(text, func(line string) string {
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
func forEachField(node parse.Node, fn func(string)) {
	switch n := node.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, c := range n.Nodes {
			forEachField(c, fn)
		}
	case *parse.ActionNode:
		forEachField(n.Pipe, fn)
	case *parse.PipeNode:
		if n == nil {
			return
		}
		for _, c := range n.Cmds {
			forEachField(c, fn)
		}
	case *parse.CommandNode:
		for _, a := range n.Args {
			forEachField(a, fn)
		}
	case *parse.ChainNode:
		forEachField(n.Node, fn)
	case *parse.FieldNode:
		fn(n.Ident[0])
	case *parse.VariableNode:
		if len(n.Ident) > 1 && n.Ident[0] == "$" {
			fn(n.Ident[1])
		}
	case *parse.IfNode:
		forEachBranch(&n.BranchNode, fn)
	case *parse.RangeNode:
		forEachBranch(&n.BranchNode, fn)
	case *parse.WithNode:
		forEachBranch(&n.BranchNode, fn)
	case *parse.TemplateNode:
		forEachField(n.Pipe, fn)
	}
}

func forEachBranch(n *parse.BranchNode, fn func(string)) {
	forEachField(n.Pipe, fn)
	forEachField(n.List, fn)
	forEachField(n.ElseList, fn)
}
