package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"rooda/internal/golden"
)

// badlyFormatted is a script as no formatter leaves it.
const badlyFormatted = `load("@rooda//termination.star",  "min_iterations")
def  work( task ,agent="claude"):
  """Builds task."""
  p=compose("work",act=[fragment(content=task)])
  return iterate(p,agent=agent,max_iterations=3,on_iteration=min_iterations(2),context=["a long line of context that is longer than the others", "and a second one"])
work( 'Make the tests pass.' )
`

// TestScriptFmt: --check lists a badly formatted script, exits 1 and
// changes nothing; fmt rewrites it as buildifier formats Starlark (the
// golden), keeping its mode, and lists it; a second fmt changes nothing
// and lists nothing; a script that cannot be parsed is told as
// file:line:col and exits 1.
func TestScriptFmt(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{})
	must(t, os.MkdirAll(filepath.Join(w.dir, "lib"), 0o755))
	path := filepath.Join(w.dir, "lib", "work.star")
	must(t, os.WriteFile(path, []byte(badlyFormatted), 0o754))

	o := w.rooda("script", "fmt", "-check", "lib")
	if o.code != 1 || o.stdout != "lib/work.star\n" || o.stderr != "" {
		t.Errorf("fmt -check: exit %d, stdout %q, stderr %q", o.code, o.stdout, o.stderr)
	}
	if got := readText(t, path); got != badlyFormatted {
		t.Errorf("fmt -check changed the file:\n%s", got)
	}

	o = w.rooda("script", "fmt", "lib")
	if o.code != 0 || o.stdout != "lib/work.star\n" || o.stderr != "" {
		t.Errorf("fmt: exit %d, stdout %q, stderr %q", o.code, o.stdout, o.stderr)
	}
	formatted := readText(t, path)
	golden.Check(t, "script_fmt_work.star", formatted)
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o754 {
		t.Errorf("mode after fmt: %v, %v", info.Mode(), err)
	}

	for _, args := range [][]string{{"fmt", "lib/work.star"}, {"fmt", "--check", "lib"}} {
		o = w.rooda(append([]string{"script"}, args...)...)
		if o.code != 0 || o.stdout != "" || o.stderr != "" {
			t.Errorf("%v on a formatted file: exit %d, stdout %q, stderr %q", args, o.code, o.stdout, o.stderr)
		}
	}
	if got := readText(t, path); got != formatted {
		t.Errorf("a second fmt changed the file:\n%s", got)
	}
	// The formatted script still checks.
	if o = w.rooda("script", "check", "lib"); o.code != 0 {
		t.Errorf("check of the formatted script: exit %d, stderr %s", o.code, o.stderr)
	}

	w.write("broken.star", "x = 1\ndef f(:\n    pass\n")
	o = w.rooda("script", "fmt", "broken.star")
	if o.code != 1 || o.stdout != "" || o.stderr != "broken.star:2:7: syntax error near :\n" {
		t.Errorf("fmt of a broken script: exit %d, stdout %q, stderr %q", o.code, o.stdout, o.stderr)
	}
}

// lintedScript has an unused variable, a docstring that is not its
// function's first statement, a callback that ignores its parameter (an
// idiom, not a finding) and a fragment file that does not exist (script
// check's).
const lintedScript = `"""A loop with problems."""

def judge(it):
    """Keeps the agent's outcome."""
    return None

def helper(task):
    verdict = "unused"
    text = "Do " + task
    """Returns a prompt: a docstring in the wrong place."""
    return text

iterate(compose("p", act = [fragment("prompts/missing.md"), fragment(content = helper("it"))]), on_iteration = judge)
`

// TestScriptLint: lint reports buildifier's unused variable and misplaced
// docstring and script check's missing fragment in one sorted list,
// file:line:col: category: message (the golden), and exits 1; --warnings
// -no-effect drops the docstring's finding; a clean script exits 0 with
// nothing said; an unknown warning is refused with the closest name.
func TestScriptLint(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{})
	w.write("loop.star", lintedScript)

	o := w.rooda("script", "lint", "loop.star")
	if o.code != 1 || o.stderr != "" {
		t.Errorf("lint: exit %d, stderr %q", o.code, o.stderr)
	}
	golden.Check(t, "script_lint", o.stdout)

	without := w.rooda("script", "lint", "--warnings", "-no-effect", "loop.star")
	if without.code != 1 || strings.Contains(without.stdout, ": no-effect:") ||
		!strings.Contains(without.stdout, "loop.star:8:5: unused-variable:") || !strings.Contains(without.stdout, ": check:") {
		t.Errorf("lint --warnings -no-effect: exit %d, stdout:\n%s", without.code, without.stdout)
	}

	w.write("clean.star", "def judge(it):\n    return None\n\niterate(compose(\"p\", act = [fragment(content = \"Work.\")]), on_iteration = judge)\n")
	if o = w.rooda("script", "lint", "clean.star"); o.code != 0 || o.stdout != "" || o.stderr != "" {
		t.Errorf("lint of a clean script: exit %d, stdout %q, stderr %q", o.code, o.stdout, o.stderr)
	}

	o = w.rooda("script", "lint", "--warnings", "-unused-variables", "clean.star")
	want := "Error: --warnings: no check \"unused-variables\" for Starlark scripts; did you mean unused-variable? (rooda script lint --help lists them)\n"
	if o.code != 1 || o.stderr != want {
		t.Errorf("lint with an unknown warning: exit %d, stderr %q", o.code, o.stderr)
	}
}

// TestScriptFmtLintHelp: the help of fmt and lint, with their examples
// and lint's checks, on and off by default.
func TestScriptFmtLintHelp(t *testing.T) {
	t.Parallel()
	for _, command := range []string{"fmt", "lint"} {
		stdout, stderr, code := exe(t, "script", command, "--help")
		if code != 0 || stderr != "" {
			t.Errorf("script %s --help: exit %d, stderr %q", command, code, stderr)
		}
		golden.Check(t, "help_script_"+command, stdout)
	}
}

// TestScriptFmtLeavesWhatItMustNot: fmt leaves a read-only script as it
// is, saying so, and formats it with --force, its mode kept; another
// user's script keeps its owner; fmt and lint refuse a script that is a
// device (/dev/zero) or a named pipe, given or met in a directory, as
// script run does, where they read without end or waited.
func TestScriptFmtLeavesWhatItMustNot(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{})
	path := filepath.Join(w.dir, "ro.star")
	must(t, os.WriteFile(path, []byte(badlyFormatted), 0o444))
	o := w.rooda("script", "fmt", "ro.star")
	if o.code != 1 || o.stderr != "ro.star is read-only: not formatted (make it writable, or format it anyway with --force)\n" || readText(t, path) != badlyFormatted {
		t.Errorf("fmt of a read-only script: exit %d, stdout %q, stderr %q", o.code, o.stdout, o.stderr)
	}
	o = w.rooda("script", "fmt", "--force", "ro.star")
	if info, err := os.Stat(path); o.code != 0 || o.stdout != "ro.star\n" || err != nil || info.Mode().Perm() != 0o444 || readText(t, path) == badlyFormatted {
		t.Errorf("fmt --force of a read-only script: exit %d, stdout %q, stderr %q, mode %v", o.code, o.stdout, o.stderr, info.Mode())
	}

	if os.Geteuid() == 0 {
		theirs := filepath.Join(w.dir, "theirs.star")
		must(t, os.WriteFile(theirs, []byte(badlyFormatted), 0o644))
		must(t, os.Chown(theirs, 4321, 4322))
		o = w.rooda("script", "fmt", "theirs.star")
		info, err := os.Stat(theirs)
		if st := info.Sys().(*syscall.Stat_t); o.code != 0 || err != nil || st.Uid != 4321 || st.Gid != 4322 {
			t.Errorf("fmt of another user's script: exit %d, stderr %q, owner %d:%d", o.code, o.stderr, st.Uid, st.Gid)
		}
	}

	must(t, os.MkdirAll(filepath.Join(w.dir, "odd"), 0o755))
	must(t, os.Symlink("/dev/zero", filepath.Join(w.dir, "zero.star")))
	must(t, syscall.Mkfifo(filepath.Join(w.dir, "odd", "pipe.star"), 0o644))
	for _, c := range []struct{ arg, says string }{{"zero.star", "larger than the limit"}, {"odd", "a pipe that gave nothing to read"}} {
		for _, command := range []string{"fmt", "lint"} {
			o := w.rooda("script", command, c.arg)
			if o.code != 1 || !strings.Contains(o.stderr+o.stdout, c.says) {
				t.Errorf("script %s %s: exit %d, stdout %q, stderr %q", command, c.arg, o.code, o.stdout, o.stderr)
			}
		}
	}
}
