package cli

import (
	"bytes"
	"context"
	"fmt"
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
// each is run by the real binary as a reader would run it, verbatim, so a
// doc that drifts from the code fails here.
//
// Every opening fence names its kind, and the test fails, naming
// file:line, on one that does not:
//
//	```python          a Starlark file, named by its first line,
//	                   "# NAME.star …": written under that name beside
//	                   the page's other files; NAME_test.star (which must
//	                   define test_* functions) is run by `rooda script
//	                   test NAME_test.star`, any other by `rooda script
//	                   run NAME.star --dry-run`. assert, fake_agent, skip
//	                   and advance exist in tests and the REPL only: a
//	                   file that is no test may not use them.
//	```python repl     statements typed into the REPL: piped into
//	                   `rooda script repl`, which must exit 0.
//	```sh              shell lines, run verbatim with bash -e -u: every
//	                   command must exit 0 (one shown failing on
//	                   purpose says so: if rooda …; then exit 1; fi),
//	                   and no variable may be unset (in bash, zsh's
//	                   "${fpath[1]}" would be "", and a path /_rooda).
//	```yaml            a YAML file when its first line is "# FILE",
//	                   else a fragment, not run.
//	```markdown file=PATH, ```text file=PATH
//	                   the file PATH, which the text before the fence
//	                   must name (the reader does not see the info
//	                   string).
//	```markdown, ```text
//	                   text shown as it is: output, a prompt; not run.
//	```json output=FORMAT [tokens=N]
//	                   the lines a fake agent prints in a CLI's format:
//	                   printed by an agent of an alias with that output,
//	                   they must end one iteration in success, with N
//	                   tokens counted (none when tokens= is not given).
//
// `no-run: REASON` after python or sh marks one that cannot run here (a
// real account, a Docker engine, a server that runs until Ctrl+C); the
// reason is required, and shown to the reader beside the block's kind
// on the page's source.
//
// The pages but README.md run in a workspace of their own, set up as a
// reader of that page has it: a git repository where `rooda init` chose
// an agent (the global configuration names the project's fake agent,
// which works one iteration and signals SUCCESS in the second), the
// real CLIs' names on PATH (claude, codex, gemini, opencode, copilot:
// each the fake agent), a HOME of its own, one run of `rooda build`
// recorded, and the page's files (its file blocks and named Starlark
// files) written. Then its examples run in the page's order. README.md
// is the newcomer's path, with no agent CLI at all:
// TestReadmeNewcomerPath runs it, from its Install line on. The
// examples of --help are TestHelpExamplesRun's.

// docExample is one fenced block of a document.
type docExample struct {
	doc, kind, code string
	line            int
	// name is the file a python block is (its "# NAME.star" line), or a
	// file block's path (file=PATH, a YAML block's "# FILE" line).
	name string
	repl bool   // statements for the REPL
	skip string // the reason it is not run; "" runs it
	// prose is the page's text between the previous fence and this one.
	prose string
	// output and tokens are a json block's: the format it is printed in,
	// and the tokens its iteration counts ("" for none).
	output, tokens string
}

var (
	// A fence: three backticks or more, and an info string without one
	// (CommonMark), so "```` ```python ```` block" in a sentence is text.
	openFence = regexp.MustCompile("^(\\s*)(```+)([^`]*)$")
	namedStar = regexp.MustCompile(`^#\s*([\w./-]+\.star)\b`)
	namedFile = regexp.MustCompile(`^#\s*([\w./-]+)\s*\n`)
	// What only script tests and the REPL have.
	usesTests = regexp.MustCompile(`\bassert\.|\bfake_agent\(|\bskip\(|\badvance\(`)
	// fenceKinds are the kinds a fence may name.
	fenceKinds = map[string]bool{"python": true, "sh": true, "yaml": true, "markdown": true, "text": true, "json": true}
)

// docExamples reads the fenced blocks of one Markdown file; a fence the
// conventions above do not allow fails the test, naming file:line.
func docExamples(t *testing.T, doc string) []docExample {
	t.Helper()
	var out []docExample
	var cur *docExample
	var indent, ticks string
	var prose strings.Builder
	for i, line := range strings.Split(readText(t, doc), "\n") {
		if cur == nil {
			m := openFence.FindStringSubmatch(line)
			if m == nil {
				prose.WriteString(line + "\n")
				continue
			}
			cur = &docExample{doc: doc, line: i + 1, prose: prose.String()}
			prose.Reset()
			indent, ticks = m[1], m[2]
			parseInfo(t, cur, strings.TrimSpace(m[3]))
			continue
		}
		if trimmed := strings.TrimSpace(line); strings.HasPrefix(trimmed, ticks) && strings.Trim(trimmed, "`") == "" {
			cur.code = strings.TrimPrefix(cur.code, "\n")
			cur.finish(t)
			out = append(out, *cur)
			cur = nil
			continue
		}
		cur.code += "\n" + strings.TrimPrefix(line, indent)
	}
	if cur != nil {
		t.Errorf("%s:%d: a fence that is never closed", doc, cur.line)
	}
	return out
}

// parseInfo reads a fence's info string: its kind, then its words.
func parseInfo(t *testing.T, e *docExample, info string) {
	t.Helper()
	kind, rest, _ := strings.Cut(info, " ")
	e.kind = kind
	if !fenceKinds[kind] {
		t.Errorf("%s:%d: a fence without a known kind (%q): python, python repl, sh, yaml, markdown or text (output)", e.doc, e.line, info)
		return
	}
	if reason, ok := strings.CutPrefix(strings.TrimSpace(rest), "no-run:"); ok {
		if e.skip = strings.TrimSpace(reason); e.skip == "" {
			t.Errorf("%s:%d: no-run: needs a reason", e.doc, e.line)
		}
		if !e.program() {
			t.Errorf("%s:%d: no-run: on a %s block, which is never run", e.doc, e.line, kind)
		}
		return
	}
	for _, word := range strings.Fields(rest) {
		path, isFile := strings.CutPrefix(word, "file=")
		switch {
		case word == "repl" && kind == "python":
			e.repl = true
		case isFile && !e.program() && path != "":
			e.name = path
		case kind == "json" && strings.HasPrefix(word, "output="):
			e.output = strings.TrimPrefix(word, "output=")
		case kind == "json" && strings.HasPrefix(word, "tokens="):
			e.tokens = strings.TrimPrefix(word, "tokens=")
		default:
			t.Errorf("%s:%d: unknown word %q after ```%s (python repl, no-run: REASON, file=PATH on markdown, text or yaml)", e.doc, e.line, word, kind)
		}
	}
}

// finish names a block from its first line, and checks that a program
// says how it runs and a file is named where the reader sees it.
func (e *docExample) finish(t *testing.T) {
	t.Helper()
	switch {
	case e.kind == "python" && e.skip == "" && !e.repl:
		if n := namedStar.FindStringSubmatch(e.code); n != nil {
			e.name = n[1]
		}
		switch {
		case e.name == "":
			t.Errorf("%s:%d: a Starlark block is a file named by its first line (# NAME.star) or statements for the REPL (```python repl)", e.doc, e.line)
		case e.test() && !strings.Contains(e.code, "\ndef test_") && !strings.HasPrefix(e.code, "def test_"):
			t.Errorf("%s:%d: %s defines no test_ function: rooda script test would run nothing", e.doc, e.line, e.name)
		case !e.test() && usesTests.MatchString(e.code):
			t.Errorf("%s:%d: %s uses %q, which only script tests (NAME_test.star) and the REPL (```python repl) have", e.doc, e.line, e.name, usesTests.FindString(e.code))
		}
	case e.kind == "yaml" && e.name == "":
		if n := namedFile.FindStringSubmatch(e.code); n != nil {
			e.name = n[1]
		}
	case e.name != "" && !strings.Contains(e.prose, e.name):
		t.Errorf("%s:%d: the file %s is not named in the text before its block, where the reader sees it", e.doc, e.line, e.name)
	}
}

// program reports whether the block is one that runs.
func (e docExample) program() bool { return e.kind == "python" || e.kind == "sh" || e.kind == "json" }

// test reports whether the block is a script test file.
func (e docExample) test() bool { return strings.HasSuffix(e.name, "_test.star") }

// starlark reports whether the block is Starlark that runs.
func (e docExample) starlark() bool { return e.kind == "python" }

// shell reports whether the block is shell lines.
func (e docExample) shell() bool { return e.kind == "sh" }

// file reports whether the block is a file the page's examples use: a
// named Starlark file, a file= block or a YAML file.
func (e docExample) file() bool { return e.name != "" && e.skip == "" }

// documents are the pages whose examples must run.
func documents(t *testing.T) []string {
	docs, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil || len(docs) == 0 {
		t.Fatalf("docs/*.md: %v", err)
	}
	return append([]string{readmePath, filepath.Join("..", "..", "CONTRIBUTING.md")}, docs...)
}

var readmePath = filepath.Join("..", "..", "README.md")

// TestDocExamplesRun runs every example of CONTRIBUTING.md and docs/, a
// workspace per page, the pages side by side (README.md's are the
// newcomer's path: TestReadmeNewcomerPath). A file two examples name
// is the same file: one name, one text, across the pages.
func TestDocExamplesRun(t *testing.T) {
	pages := map[string][]docExample{}
	runnable := map[string]int{}
	for _, doc := range documents(t) {
		pages[doc] = docExamples(t, doc)
		for _, e := range pages[doc] {
			if e.program() && e.skip == "" {
				runnable[filepath.Base(doc)]++
			}
		}
	}
	sameNameSameText(t, pages)
	noRunStaysRare(t, pages)
	// The documents hold examples: an extraction that finds none proves
	// nothing.
	if runnable["README.md"] < 4 || runnable["builtins.md"] < 15 || runnable["scripts.md"] < 8 || runnable["records.md"] < 2 {
		t.Errorf("too few examples found: %v", runnable)
	}
	for doc, examples := range pages {
		if doc == readmePath {
			continue
		}
		t.Run(filepath.Base(doc), func(t *testing.T) {
			t.Parallel()
			runPage(t, examples)
		})
	}
}

// sameNameSameText fails the test for a file two blocks name with two
// texts: a reader who copies both would have one overwrite the other.
func sameNameSameText(t *testing.T, pages map[string][]docExample) {
	t.Helper()
	first := map[string]docExample{}
	for _, doc := range documents(t) {
		for _, e := range pages[doc] {
			if !e.file() {
				continue
			}
			if f, ok := first[e.name]; ok && f.code != e.code {
				t.Errorf("%s:%d and %s:%d are both %s, with different texts: make them one, or give them different names", f.doc, f.line, e.doc, e.line, e.name)
			} else if !ok {
				first[e.name] = e
			}
		}
	}
}

// maxNoRun is how many blocks the pages may mark no-run, beside the
// signatures of builtins.md, which are declarations: a few that need
// what CI lacks (a real agent, a Docker engine) or that are the whole
// suite.
const maxNoRun = 10

// noRunStaysRare fails the test when more than maxNoRun blocks are not
// run, naming them: what can run here must.
func noRunStaysRare(t *testing.T, pages map[string][]docExample) {
	t.Helper()
	var notRun []string
	for _, doc := range documents(t) {
		for _, e := range pages[doc] {
			if e.skip != "" && e.skip != "a signature" {
				notRun = append(notRun, fmt.Sprintf("%s:%d (%s)", e.doc, e.line, e.skip))
			}
		}
	}
	if len(notRun) > maxNoRun {
		t.Errorf("%d blocks are marked no-run, more than %d:\n%s", len(notRun), maxNoRun, strings.Join(notRun, "\n"))
	}
}

// exampleTimeout bounds one example: each runs the fake agent for a few
// iterations at most.
const exampleTimeout = time.Minute

// runPage runs a page's examples in order, in a workspace set up as the
// header says, after writing every file the page shows.
func runPage(t *testing.T, examples []docExample) {
	var runs []docExample
	for _, e := range examples {
		if e.program() && e.skip == "" {
			runs = append(runs, e)
		}
	}
	if len(runs) == 0 {
		return
	}
	w := readersWorkspace(t)
	for _, e := range examples {
		if e.file() {
			writeFile(t, filepath.Join(w.dir, e.name), e.code+"\n")
		}
	}
	for _, e := range runs {
		t.Run(strings.TrimSuffix(filepath.Base(e.doc), ".md")+":"+strconv.Itoa(e.line), func(t *testing.T) {
			how, out, err := runExample(w, e)
			if err != nil {
				t.Errorf("%s:%d: the example (%s) failed: %v\n%s\n--- the example:\n%s", e.doc, e.line, how, err, out, e.code)
			}
		})
	}
}

// runExample runs one example in w as its kind says, and returns how,
// what it printed and its error.
func runExample(w *workspace, e docExample) (string, []byte, error) {
	var cmd *exec.Cmd
	var how string
	ctx, cancel := context.WithTimeout(context.Background(), exampleTimeout)
	defer cancel()
	switch {
	case e.shell():
		how, cmd = "bash -e -u", exec.CommandContext(ctx, "bash", "-e", "-u", "-c", e.code)
	case e.kind == "json":
		how, cmd = "printed by a fake agent of output "+e.output, exec.CommandContext(ctx, "bash", "-e", "-u", "-c", e.printedByAnAgent(w.t))
	case e.repl:
		how, cmd = "piped into rooda script repl", exec.CommandContext(ctx, binary(w.t), "script", "repl")
		cmd.Stdin = strings.NewReader(e.code + "\n")
	case e.test():
		how, cmd = "rooda script test "+e.name, exec.CommandContext(ctx, binary(w.t), "script", "test", e.name)
	default:
		how, cmd = "rooda script run "+e.name+" --dry-run", exec.CommandContext(ctx, binary(w.t), "script", "run", e.name, "--dry-run")
	}
	cmd.Dir, cmd.Env = w.dir, w.env
	// An example that does not end (a server) is stopped with all it
	// started, and fails.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	out, err := cmd.CombinedOutput()
	return how, out, err
}

// printedByAnAgent is a shell session in which an agent whose alias has
// the block's output prints the block's lines, and its one iteration
// must end in success, with the block's tokens counted or none.
func (e docExample) printedByAnAgent(t *testing.T) string {
	if e.output == "" {
		t.Errorf("%s:%d: a json block says the format it is printed in: ```json output=FORMAT", e.doc, e.line)
	}
	counted := "! grep -F ' tokens' log"
	if e.tokens != "" {
		counted = "grep -F '(success) · " + e.tokens + " tokens' log"
	}
	return strings.Join([]string{
		"dir=$(mktemp -d) && cd \"$dir\"",
		"cat > lines <<'LINES'\n" + e.code + "\nLINES",
		"printf '#!/bin/sh\\ncat > /dev/null\\ncat %s/lines\\n' \"$dir\" > agent.sh && chmod +x agent.sh",
		"printf 'ai_cmd_aliases:\\n  printed: {cmd: %s/agent.sh, output: " + e.output + "}\\n' \"$dir\" > rooda-config.yml",
		"rooda build --ai-cmd-alias printed -n 1 --no-record > log 2>&1 || { cat log; exit 1; }",
		"grep -F '(success)' log > /dev/null || { cat log; exit 1; }",
		counted + " || { cat log; exit 1; }",
	}, "\n")
}

// readersWorkspace is a git workspace set up as a reader of the docs has
// one: an agent chosen (the fake agent, in the global configuration), the
// real CLIs' names on PATH (each the fake agent), a HOME of its own, and
// one run of rooda build recorded.
func readersWorkspace(t *testing.T) *workspace {
	w := newWorkspace(t, step{"output": "working on it"}, step{"output": successSignal})
	w.gitInit()
	bin := filepath.Join(w.dir, ".bin")
	for _, cli := range []string{"claude", "codex", "gemini", "opencode", "copilot"} {
		w.fakeCLIIn(bin, cli)
	}
	global := filepath.Join(w.dir, ".global")
	writeFile(t, filepath.Join(global, "rooda-config.yml"), "loop:\n  ai_cmd: "+w.aiCmd()+"\n")
	w.env = append(w.env, "PATH="+binaries(t)+string(os.PathListSeparator)+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"ROODA_CONFIG_HOME="+global, "HOME="+filepath.Join(w.dir, ".home"))
	if o := w.rooda("build"); o.code != 0 {
		t.Fatalf("the recorded run the examples look at: exit %d\n%s", o.code, o.stderr)
	}
	return w
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

// readmeLimit is the most the README may weigh: an entry point read in
// minutes, the rest in docs/.
const readmeLimit = 20 << 10

// readmeInstall is README.md's Install line. TestReadmeNewcomerPath does
// not run it: it would compile rooda again, with other flags (minutes on
// a busy machine); it puts the binaries the tests built, rooda,
// rooda-sandbox and rooda-full from this tree, where go install puts
// them, a GOBIN on PATH. A README that installs otherwise fails the test until the
// substitution is looked at again.
const readmeInstall = "CGO_ENABLED=0 go install -trimpath -tags urfave_cli_no_docs -ldflags='-s -w' ./cmd/..."

// TestReadmeNewcomerPath: the README stays short, and a newcomer who
// follows it — its Install line, its Quick start verbatim, then every
// example after it in order, each file block written where they stand
// and each shell block run there, in one bash -e -u session — on a machine
// with no agent CLI on PATH and a fresh HOME, ends with exit 0: the quick
// start's run succeeded and was recorded, the Starlark procedure's tests
// passed and its dry run is ready.
func TestReadmeNewcomerPath(t *testing.T) {
	readme := readText(t, readmePath)
	if len(readme) > readmeLimit {
		t.Errorf("README.md weighs %d bytes, more than %d", len(readme), readmeLimit)
	}
	examples := docExamples(t, readmePath)
	install, quick := -1, -1
	for i, e := range examples {
		section := readme[:strings.Index(readme, e.code)]
		section = section[strings.LastIndex(section, "\n## "):]
		switch {
		case install < 0 && e.shell() && strings.HasPrefix(section, "\n## Install\n"):
			install = i
		case quick < 0 && e.shell() && strings.HasPrefix(section, "\n## Quick start\n"):
			quick = i
		}
	}
	if install < 0 || examples[install].code != readmeInstall {
		t.Fatalf("README's Install is not the line this test knows how to stand in for (%q):\n%+v", readmeInstall, examples)
	}
	if quick < 0 || strings.Count(examples[quick].code, "\n") > 10 {
		t.Fatalf("the README has no quick start of at most ten lines")
	}
	var session strings.Builder
	session.WriteString(examples[quick].code + "\n")
	for _, e := range examples[quick+1:] {
		switch {
		case e.skip != "":
			t.Logf("README.md:%d not run: %s", e.line, e.skip)
		case e.file():
			fmt.Fprintf(&session, "mkdir -p %q\ncat > %q <<'ROODA_DOC_EOF'\n%s\nROODA_DOC_EOF\n", filepath.Dir(e.name), e.name, e.code)
		case e.repl:
			fmt.Fprintf(&session, "rooda script repl <<'ROODA_DOC_EOF'\n%s\nROODA_DOC_EOF\n", e.code)
		case e.shell():
			session.WriteString(e.code + "\n")
		}
	}
	// A Starlark file the README shows is run by a line it shows.
	var lines strings.Builder
	for _, e := range examples[quick+1:] {
		if e.shell() && e.skip == "" {
			lines.WriteString(e.code + "\n")
		}
	}
	for _, e := range examples[quick+1:] {
		if e.starlark() && e.file() && !strings.Contains(lines.String(), e.name) && !(e.test() && strings.Contains(lines.String(), "rooda script test ")) {
			t.Errorf("README.md:%d: %s is shown and no line runs it", e.line, e.name)
		}
	}
	// PATH holds the installed binaries and the system's programs, and
	// no agent CLI.
	gobin := t.TempDir()
	for _, name := range []string{"rooda", "rooda-sandbox", fullProgram} {
		copyFile(t, filepath.Join(binaries(t), name), filepath.Join(gobin, name))
	}
	for _, cli := range []string{"claude", "codex", "gemini", "opencode", "copilot", "amp", "kiro-cli", "cursor-agent"} {
		for _, dir := range []string{"/usr/bin", "/bin"} {
			if found, err := exec.LookPath(filepath.Join(dir, cli)); err == nil {
				t.Skipf("NOT TESTED: %s is installed (%s): the newcomer's path is for a machine without one", cli, found)
			}
		}
	}
	tmp := t.TempDir()
	cmd := exec.Command("bash", "-e", "-u", "-c", session.String())
	cmd.Env = []string{"PATH=" + gobin + string(os.PathListSeparator) + "/usr/bin" + string(os.PathListSeparator) + "/bin",
		"HOME=" + t.TempDir(), "TMPDIR=" + tmp, "LANG=C.UTF-8"}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("the newcomer's path failed: %v\n%s\n--- the session:\n%s", err, out.String(), session.String())
	}
	for _, want := range []string{"Success: the agent signaled SUCCESS in iteration 1/", "Status: success\n", "Exit code: 0\n", "1 passed, 0 failed\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the newcomer's path printed no %q:\n%s", want, out.String())
		}
	}
	runs, _ := filepath.Glob(filepath.Join(tmp, "*", ".rooda", "runs", "*", "iterations", "0001", "prompt.txt"))
	if len(runs) != 1 {
		t.Errorf("records of the quick start's run: %v, want one", runs)
	}
}

// copyFile copies an executable.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	must(t, os.WriteFile(to, data, 0o755))
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
