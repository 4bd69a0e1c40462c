package cli

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"rooda/host/starfmt/buildifier"
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
			out, err := buildifier.Format(e.doc, []byte(e.code+"\n"))
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
				t.Errorf("%s:%d: not as script fmt writes it (go test ./internal/cli -run %s -update formats it):\n%s", e.doc, e.line, t.Name(), formatted)
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

// longestBlock bounds a paragraph, a bullet or a table row of the docs,
// in words: past it, a reader who scans for one fact reads a wall; a
// list, a table or a sub-heading says the same in pieces.
const longestBlock = 150

// TestDocsReadAsAReference: no paragraph, bullet or table row of README,
// CONTRIBUTING or a docs page (code blocks left out) is over
// longestBlock words.
func TestDocsReadAsAReference(t *testing.T) {
	for _, doc := range documents(t) {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range textBlocks(string(data)) {
			if n := len(strings.Fields(b.text)); n > longestBlock {
				t.Errorf("%s:%d: a block of %d words (at most %d: a list, a table or a sub-heading instead): %.60s…", doc, b.line, n, longestBlock, b.text)
			}
		}
	}
}

// textBlock is a paragraph, a bullet or a table row, and its first line.
type textBlock struct {
	text string
	line int
}

// textBlocks are the blocks of a Markdown page outside its fences: a
// blank line, a heading, a bullet or a table row begins a new one.
func textBlocks(page string) []textBlock {
	var blocks []textBlock
	var cur *textBlock
	end := func() {
		if cur != nil {
			blocks = append(blocks, *cur)
			cur = nil
		}
	}
	inFence := false
	for i, line := range strings.Split(page, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "```"):
			inFence = !inFence
			end()
		case inFence:
		case trimmed == "" || strings.HasPrefix(line, "#"):
			end()
		case strings.HasPrefix(line, "|"):
			end()
			blocks = append(blocks, textBlock{text: line, line: i + 1})
		case bulletStart.MatchString(line):
			end()
			cur = &textBlock{text: line, line: i + 1}
		case cur == nil:
			cur = &textBlock{text: line, line: i + 1}
		default:
			cur.text += " " + line
		}
	}
	end()
	return blocks
}

var bulletStart = regexp.MustCompile(`^\s*([-*]|\d+\.)\s`)
