package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The examples of README.md, CONTRIBUTING.md and docs/*.md are programs:
// each is run by the real binary, so a doc that drifts from the code fails
// here.
//
// A Starlark example is a block fenced ```python or ```starlark; a shell
// example one fenced ```sh (or bash, shell). The rest of its info string
// may hold:
//
//	no-run: REASON     not runnable here (a declaration, a real account):
//	                   not run, and the reason is required
//	with=PATH,PATH     files the example reads, made beside it before it runs
//
// A ```yaml block whose first line is "# FILE" is that file: it is
// written into the page's workspace before the page's shell examples run.
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
	doc, lang, name, code string
	line                  int
	with                  []string
	skip                  string // the reason it is not run; "" runs it
}

var (
	fence     = regexp.MustCompile("^(\\s*)```(.*)$")
	namedStar = regexp.MustCompile(`^#\s*([\w./-]+\.star)\b`)
	namedFile = regexp.MustCompile(`^#\s*([\w./-]+)\s*\n`)
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
			switch lang {
			case "python", "starlark", "sh", "bash", "shell", "yaml":
				cur = &docExample{doc: doc, lang: lang, line: i + 1}
				parseInfo(t, cur, rest)
			}
		case m != nil && indent != "" && m[2] == "":
			if cur != nil {
				cur.code = strings.TrimPrefix(cur.code, "\n")
				if n := namedStar.FindStringSubmatch(cur.code); n != nil && cur.starlark() {
					cur.name = n[1]
				}
				if n := namedFile.FindStringSubmatch(cur.code); n != nil && cur.lang == "yaml" {
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

// starlark reports whether the example is a Starlark program.
func (e docExample) starlark() bool { return e.lang == "python" || e.lang == "starlark" }

// shell reports whether the example is a shell example.
func (e docExample) shell() bool { return e.lang == "sh" || e.lang == "bash" || e.lang == "shell" }

// documents are the pages whose examples must run.
func documents(t *testing.T) []string {
	docs, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil || len(docs) == 0 {
		t.Fatalf("docs/*.md: %v", err)
	}
	return append([]string{filepath.Join("..", "..", "README.md"), filepath.Join("..", "..", "CONTRIBUTING.md")}, docs...)
}

// TestDocExamplesRun runs every Starlark and shell example of README.md,
// CONTRIBUTING.md and docs/, a workspace per page: first the Starlark
// examples, then the files its YAML blocks name, then its shell examples
// in order, each with bash -e, so that one can use what an earlier one
// made.
func TestDocExamplesRun(t *testing.T) {
	ran := map[string]int{}
	for _, doc := range documents(t) {
		examples := docExamples(t, doc)
		w := newWorkspace(t)
		for _, e := range examples {
			if e.skip != "" || !e.starlark() {
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
		ran[filepath.Base(doc)+" sh"] += runShellExamples(t, doc, examples)
	}
	// The documents hold examples: an extraction that finds none proves
	// nothing.
	if ran["README.md"] < 2 || ran["builtins.md"] < 8 || ran["README.md sh"] < 1 || ran["records.md sh"] < 1 {
		t.Errorf("too few examples found and run: %v", ran)
	}
}

// exampleTimeout bounds one shell example: each runs the fake agent for
// a few iterations at most.
const exampleTimeout = time.Minute

// runShellExamples runs a page's shell examples in a fresh workspace of
// their own, and returns how many ran. The workspace is a git repository
// with the page's Starlark examples and the files its YAML blocks name,
// where one run of the build procedure has been recorded; the agent, in
// the global configuration, is the fake agent, which works one
// iteration and signals SUCCESS in the second; the names of the real
// CLIs on PATH are the fake agent too, so that what looks for them finds
// one.
func runShellExamples(t *testing.T, doc string, examples []docExample) int {
	var shell []docExample
	for _, e := range examples {
		if e.shell() && e.skip == "" {
			shell = append(shell, e)
		}
	}
	if len(shell) == 0 {
		return 0
	}
	w := newWorkspace(t, step{"output": "working on it"}, step{"output": successSignal})
	w.gitInit()
	for _, e := range examples {
		switch {
		case e.starlark() && e.skip == "":
			e.script(t, w.dir)
		case e.lang == "yaml" && e.name != "":
			writeFile(t, filepath.Join(w.dir, e.name), e.code)
		}
	}
	bin := filepath.Join(w.dir, ".bin")
	for _, cli := range []string{"claude", "codex", "gemini", "opencode", "copilot"} {
		writeFile(t, filepath.Join(bin, cli), "#!/bin/sh\nexec "+w.aiCmd()+"\n")
		must(t, os.Chmod(filepath.Join(bin, cli), 0o755))
	}
	global := filepath.Join(w.dir, ".global")
	writeFile(t, filepath.Join(global, "rooda-config.yml"), "loop:\n  ai_cmd: "+w.aiCmd()+"\n")
	w.env = append(w.env, "PATH="+binaries(t)+string(os.PathListSeparator)+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"ROODA_CONFIG_HOME="+global, "HOME="+filepath.Join(w.dir, ".home"))
	if o := w.rooda("build"); o.code != 0 {
		t.Fatalf("the recorded run the examples look at: exit %d\n%s", o.code, o.stderr)
	}
	for _, e := range shell {
		for _, f := range e.with {
			writeFile(t, filepath.Join(w.dir, f), "Text the example reads.\n")
		}
		t.Run(filepath.Base(doc)+":"+strconv.Itoa(e.line), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), exampleTimeout)
			defer cancel()
			cmd := exec.CommandContext(ctx, "bash", "-e", "-c", e.code)
			cmd.Dir, cmd.Env = w.dir, w.env
			// An example that does not end (a server) is stopped with all
			// it started, and fails.
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s:%d: the example failed: %v\n%s\n--- the example:\n%s", doc, e.line, err, out, e.code)
			}
		})
	}
	return len(shell)
}

// readmeLimit is the most the README may weigh: an entry point read in
// minutes, the rest in docs/.
const readmeLimit = 20 << 10

// TestReadmeIsAnEntryPoint: the README stays short, and its quick start,
// run verbatim with bash -e on a machine with no agent CLI on PATH and a
// fresh HOME, ends in a run that succeeded and a record of it.
func TestReadmeIsAnEntryPoint(t *testing.T) {
	readme := readText(t, filepath.Join("..", "..", "README.md"))
	if len(readme) > readmeLimit {
		t.Errorf("README.md weighs %d bytes, more than %d", len(readme), readmeLimit)
	}
	var quick *docExample
	for _, e := range docExamples(t, filepath.Join("..", "..", "README.md")) {
		if e.shell() && e.skip == "" && strings.Contains(readme[:strings.Index(readme, e.code)], "## Quick start") {
			quick = &e
			break
		}
	}
	if quick == nil || strings.Count(quick.code, "\n") > 10 {
		t.Fatalf("the README has no quick start of at most ten lines: %+v", quick)
	}
	// PATH holds rooda and the system's programs, and no agent CLI.
	bin := t.TempDir()
	must(t, os.Symlink(binary(t), filepath.Join(bin, "rooda")))
	path := bin + string(os.PathListSeparator) + "/usr/bin" + string(os.PathListSeparator) + "/bin"
	for _, cli := range []string{"claude", "codex", "gemini", "opencode", "copilot", "amp", "kiro-cli", "cursor-agent"} {
		if found, err := exec.LookPath(filepath.Join("/usr/bin", cli)); err == nil {
			t.Skipf("NOT TESTED: %s is installed (%s): the quick start is for a machine without one", cli, found)
		}
	}
	tmp := t.TempDir()
	cmd := exec.Command("bash", "-e", "-c", quick.code)
	cmd.Env = []string{"PATH=" + path, "HOME=" + t.TempDir(), "TMPDIR=" + tmp, "LANG=C.UTF-8"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the quick start failed: %v\n%s", err, out)
	}
	for _, want := range []string{"Success: the agent signaled SUCCESS in iteration 1/", "Status: success\n", "Exit code: 0\n"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the quick start's output lacks %q:\n%s", want, out)
		}
	}
	runs, _ := filepath.Glob(filepath.Join(tmp, "*", ".rooda", "runs", "*", "iterations", "0001", "prompt.txt"))
	if len(runs) != 1 {
		t.Errorf("records of the quick start's run: %v, want one", runs)
	}
}

// outside matches what a user-facing text must not name: the
// specification's seeds, the project's issues, the design brief and
// other paths outside the repository.
var outside = regexp.MustCompile(`(?i)\bseeds? ?0\d\d\b|\bseed \d\b|\bissues? #?\d+\b|\.\./shared\b|shared/DESIGN|/work/`)

// TestUserTextsStayInTheRepository: README.md, CONTRIBUTING.md, docs/,
// every command's help (the man page holds them all, and rooda --help),
// and the builtins' reference name no seed, no issue and no path outside
// the repository; every link of the pages leads to a file of the
// repository or to the web.
func TestUserTextsStayInTheRepository(t *testing.T) {
	texts := map[string]string{}
	for _, doc := range documents(t) {
		texts[doc] = readText(t, doc)
	}
	for _, args := range [][]string{{"--help"}, {"man"}, {"script", "doc"}, {"script", "doc", "--format", "stub"}} {
		stdout, stderr, code := exe(t, args...)
		if code != 0 {
			t.Fatalf("rooda %v: exit %d\n%s", args, code, stderr)
		}
		texts["rooda "+strings.Join(args, " ")] = stdout
	}
	for name, text := range texts {
		for _, m := range outside.FindAllString(text, -1) {
			t.Errorf("%s names %q", name, m)
		}
	}
	link := regexp.MustCompile(`\]\(([^)#\s]+)(#[^)]*)?\)`)
	for _, doc := range documents(t) {
		for _, m := range link.FindAllStringSubmatch(texts[doc], -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path := filepath.Join(filepath.Dir(doc), target)
			rel, err := filepath.Rel(filepath.Join("..", ".."), path)
			if _, statErr := os.Stat(path); statErr != nil || err != nil || strings.HasPrefix(rel, "..") {
				t.Errorf("%s links %s, which is not a file of the repository", doc, target)
			}
		}
	}
}

// TestPromisePagesNameRealTests: every test the reliability page and
// the sandbox's threat model say hold a promise is a test of the
// repository.
func TestPromisePagesNameRealTests(t *testing.T) {
	var sources strings.Builder
	err := filepath.WalkDir(filepath.Join("..", ".."), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, "_test.go") {
			sources.WriteString(readText(t, path))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"reliability.md", "sandbox.md"} {
		page := readText(t, filepath.Join("..", "..", "docs", name))
		named := regexp.MustCompile("`(Test\\w+)`").FindAllStringSubmatch(page, -1)
		if len(named) < 10 {
			t.Fatalf("docs/%s names %d tests", name, len(named))
		}
		for _, m := range named {
			if !strings.Contains(sources.String(), "func "+m[1]+"(") {
				t.Errorf("docs/%s names %s, which no test file defines", name, m[1])
			}
		}
	}
}
