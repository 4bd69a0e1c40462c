package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The Starlark examples of README.md and docs/*.md are programs: each is
// run by the real binary, so a doc that drifts from the code fails here.
//
// An example is a block fenced ```python or ```starlark. The rest of its
// info string may hold:
//
//	no-run: REASON     a declaration or a fragment, not a program: not run
//	with=PATH,PATH     files the example reads, made beside it before it runs
//
// An example whose first line is "# NAME.star …" is written under that
// name, beside the document's other named examples, so a test shown after
// a script can load it. One that uses assert, fake_agent or skip is a
// script test: run by `rooda script test`, its code made the body of a
// test_example function when it defines no test of its own. Any other is
// run by `rooda script run --dry-run` with the fake agent, so no agent
// starts.

// docExample is one fenced example of a document.
type docExample struct {
	doc, name, code string
	line            int
	with            []string
	skip            string // the reason it is not run; "" runs it
}

var (
	fence     = regexp.MustCompile("^(\\s*)```(.*)$")
	namedStar = regexp.MustCompile(`^#\s*([\w./-]+\.star)\b`)
	usesTests = regexp.MustCompile(`\bassert\.|\bfake_agent\(|\bskip\(`)
)

// docExamples reads the Starlark examples of one Markdown file.
func docExamples(t *testing.T, doc string) []docExample {
	t.Helper()
	data, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	var out []docExample
	var cur *docExample
	var indent string
	for i, line := range strings.Split(string(data), "\n") {
		m := fence.FindStringSubmatch(line)
		switch {
		case m != nil && cur == nil && indent == "":
			lang, rest, _ := strings.Cut(strings.TrimSpace(m[2]), " ")
			indent = m[1] + "x" // inside a fence, whatever its language
			if lang == "python" || lang == "starlark" {
				cur = &docExample{doc: doc, line: i + 1}
				parseInfo(t, cur, rest)
			}
		case m != nil && indent != "" && m[2] == "":
			if cur != nil {
				cur.code = strings.TrimPrefix(cur.code, "\n")
				if n := namedStar.FindStringSubmatch(cur.code); n != nil {
					cur.name = n[1]
				}
				out = append(out, *cur)
			}
			cur, indent = nil, ""
		case cur != nil:
			cur.code += "\n" + strings.TrimPrefix(line, strings.TrimSuffix(indent, "x"))
		}
	}
	return out
}

// parseInfo reads the words after a fence's language.
func parseInfo(t *testing.T, e *docExample, info string) {
	if reason, ok := strings.CutPrefix(info, "no-run:"); ok {
		if e.skip = strings.TrimSpace(reason); e.skip == "" {
			t.Errorf("%s:%d: no-run: needs a reason", e.doc, e.line)
		}
		return
	}
	for _, word := range strings.Fields(info) {
		if files, ok := strings.CutPrefix(word, "with="); ok {
			e.with = strings.Split(files, ",")
		} else {
			t.Errorf("%s:%d: unknown word %q after the fence (no-run: REASON or with=PATH,…)", e.doc, e.line, word)
		}
	}
}

// script is the file the example is run as, relative to dir, and the
// arguments that run it.
func (e docExample) script(t *testing.T, dir string) (string, []string) {
	test := strings.HasSuffix(e.name, "_test.star") || usesTests.MatchString(e.code)
	name := e.name
	if name == "" {
		// Alone in a directory, under a name that makes it a test when it
		// is one.
		name = filepath.Join("line"+strconv.Itoa(e.line), "example.star")
		if test {
			name = filepath.Join("line"+strconv.Itoa(e.line), "example_test.star")
		}
	}
	code := e.code
	if test && !strings.Contains(code, "def test_") {
		code = asTest(code)
	}
	writeFile(t, filepath.Join(dir, name), code)
	for _, f := range e.with {
		writeFile(t, filepath.Join(filepath.Dir(filepath.Join(dir, name)), f), "Text the example reads.\n")
	}
	if test {
		return name, []string{"script", "test", name}
	}
	return name, []string{"script", "run", name, "--dry-run", "--no-record"}
}

// asTest makes an example's statements the body of test_example; its
// load statements stay at the top, where Starlark wants them.
func asTest(code string) string {
	var loads, body []string
	for _, line := range strings.Split(code, "\n") {
		if strings.HasPrefix(line, "load(") {
			loads = append(loads, line)
		} else {
			body = append(body, "    "+line)
		}
	}
	return strings.Join(loads, "\n") + "\ndef test_example():\n" + strings.Join(body, "\n") + "\n"
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDocExamplesRun runs every Starlark example of README.md and docs/.
func TestDocExamplesRun(t *testing.T) {
	docs, _ := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	docs = append([]string{filepath.Join("..", "..", "README.md")}, docs...)
	ran := map[string]int{}
	for _, doc := range docs {
		w := newWorkspace(t)
		for _, e := range docExamples(t, doc) {
			if e.skip != "" {
				continue
			}
			name, args := e.script(t, w.dir)
			ran[filepath.Base(doc)]++
			t.Run(filepath.Base(doc)+":"+strconv.Itoa(e.line), func(t *testing.T) {
				cmd := exec.Command(binary(t), append(args, "--ai-cmd", w.aiCmd())...)
				if args[1] == "test" {
					cmd = exec.Command(binary(t), args...)
				}
				cmd.Dir, cmd.Env = w.dir, w.env
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("%s:%d: the example (run as %s) failed: %v\n%s\n--- the example:\n%s", doc, e.line, name, err, out, e.code)
				}
			})
		}
	}
	// The documents hold examples: an extraction that finds none proves
	// nothing.
	if ran["README.md"] < 2 || ran["builtins.md"] < 8 {
		t.Errorf("too few examples found and run: %v", ran)
	}
}
