package main

import (
	"os"
	"strings"
	"testing"

	"rooda/host/starfmt"
	"rooda/internal/golden"
)

// TestDocExamplesAreFormatted: every Starlark example of the docs that
// runs is as rooda script fmt writes it, the layout users copy; -update
// formats them in place (docs/builtins.md's come from the registry:
// they are formatted there).
func TestDocExamplesAreFormatted(t *testing.T) {
	for _, doc := range documents(t) {
		var mended []docExample
		for _, e := range docExamples(t, doc) {
			if !e.starlark() || e.skip != "" {
				continue
			}
			out, err := starfmt.Format(e.doc, []byte(e.code+"\n"))
			if err != nil {
				t.Errorf("%s:%d: %v", e.doc, e.line, err)
				continue
			}
			if formatted := strings.TrimSuffix(string(out), "\n"); formatted != e.code {
				if golden.Updating() && !strings.HasSuffix(doc, "builtins.md") {
					e.code = formatted
					mended = append(mended, e)
					continue
				}
				t.Errorf("%s:%d: not as script fmt writes it (go test ./cmd/rooda -run %s -update formats it):\n%s", e.doc, e.line, t.Name(), formatted)
			}
		}
		if len(mended) > 0 {
			mendExamples(t, doc, mended)
		}
	}
}

// mendExamples puts each example's code in place of its fence's lines
// in doc, at the fence's indentation.
func mendExamples(t *testing.T, doc string, mended []docExample) {
	data, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	// From the last, so that the lines before keep their numbers.
	for i := len(mended) - 1; i >= 0; i-- {
		e := mended[i]
		open := e.line - 1
		indent := lines[open][:len(lines[open])-len(strings.TrimLeft(lines[open], " \t"))]
		end := open + 1
		for !strings.HasPrefix(strings.TrimSpace(lines[end]), "```") {
			end++
		}
		var code []string
		for _, l := range strings.Split(e.code, "\n") {
			if l != "" {
				l = indent + l
			}
			code = append(code, l)
		}
		lines = append(lines[:open+1], append(code, lines[end:]...)...)
	}
	if err := os.WriteFile(doc, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}
