package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestAssertShowsTheTextNearTheMiss: assert.contains on a prompt, which
// begins with the same banner as every prompt, shows the part of it where
// the needle came closest (the iteration line), not the banner;
// assert.eq of two long texts shows where they part; assert.equal says
// to use assert.eq.
func TestAssertShowsTheTextNearTheMiss(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{})
	w.write("prompt_test.star", `
def test_contains():
    a = fake_agent(outputs = ["<promise>SUCCESS</promise>"])
    iterate(compose("p", act = [fragment(content = "Do it.")]), agent = a)
    assert.contains(a.prompts[0], "Iteration: 2 of 5")

def test_eq():
    assert.eq("=" * 300 + "\nIteration: 1 of 5\n", "=" * 300 + "\nIteration: 2 of 5\n")

def test_equal():
    assert.equal(1, 1)
`)
	o := w.rooda("script", "test")
	if o.code != 1 {
		t.Errorf("exit %d, want 1\n%s%s", o.code, o.stdout, o.stderr)
	}
	stdoutHas(t, o,
		`Error in assert.contains: "Iteration: 2 of 5" not in the text (`,
		`its longest start found, "Iteration: ", is at line `,
		`\nProcedure: p\nIteration: 1 of 5\n`,
		`Error in assert.eq: the texts differ (got 319 bytes, want 319); they differ from line 2: got …"`,
		`\nIteration: 1 of 5\n", want …"`,
		`Error: assert has no member equal; it has contains, eq, fails, true (did you mean assert.eq?)`,
	)
}

// TestReplPipedGoesOnAfterAnError: piped into rooda script repl, each
// expression's value goes to stdout, an error to stderr and the input
// goes on; the exit is 1 at the end. fake_agent() answers iterate() and
// assert checks what it was asked.
func TestReplPipedGoesOnAfterAnError(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{})
	cmd := exec.Command(binary(t), "script", "repl")
	cmd.Dir, cmd.Env = w.dir, w.env
	cmd.Stdin = strings.NewReader(`x = 20 + 1
x * 2
nope
a = fake_agent(outputs = ["<promise>SUCCESS</promise>"])
r = iterate(compose("p", act = [fragment(content = "Do it.")]), agent = a)
r.status
assert.contains(a.prompts[0], "Do it.")
assert.eq(a.calls, 2)
a.calls
`)
	o := w.wait(w.start(cmd))
	if want := "42\n\"success\"\n1\n"; o.stdout != want {
		t.Errorf("stdout %q, want %q", o.stdout, want)
	}
	if o.code != 1 {
		t.Errorf("exit %d, want 1", o.code)
	}
	for _, want := range []string{"Error: <stdin>:3:1: undefined: nope", "Error in assert.eq: got 1, want 2", "Error: 2 of the 9 statements of standard input failed\n"} {
		if !strings.Contains(o.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, o.stderr)
		}
	}
}

// TestInfoDescribesAScriptProcedure: rooda info of a script: procedure
// names the script, shows its docstring and each iterate() with the
// settings its dry run sees (the script's max_iterations, with their
// source), not the defaults of a YAML procedure; info and list give the
// docstring's first line as its summary.
func TestInfoDescribesAScriptProcedure(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{})
	w.write("rooda-config.yml", "procedures:\n  pair:\n    script: pair.star\n")
	w.write("pair.star", `"""Builds, then reviews.

The reviewer gets one try."""
iterate(compose("build", act = [fragment(content = "Build.")]), max_iterations = 3)
iterate(compose("review", act = [fragment(content = "Review.")]), max_iterations = 1, failure_threshold = 1)
`)
	o := w.rooda("info", "pair", "--ai-cmd", w.aiCmd())
	want := "Description:\n  Builds, then reviews.\n\n  The reviewer gets one try.\n\n" +
		"Loops (as its dry run sees them, without arguments):\n" +
		"  iterate() at pair.star:4: procedure build\n" +
		"    AI Command: " + w.aiCmd() + " (cli: --ai-cmd)\n" +
		"    Max Iterations: 3 (script: pair.star:4)\n"
	if o.code != 0 || !strings.Contains(o.stdout, want) {
		t.Errorf("exit %d, stdout lacks:\n%s\nstdout:\n%s\nstderr:\n%s", o.code, want, o.stdout, o.stderr)
	}
	stdoutHas(t, o, "Summary: Builds, then reviews.\n", "Script: "+w.dir+"/pair.star", "  iterate() at pair.star:5: procedure review\n", "    Failure Threshold: 1 (script: pair.star:5)\n")
	// rooda list says what the docstring's first line says, as info does.
	if list := w.rooda("list").stdout; !regexp.MustCompile(`(?m)^pair +Builds, then reviews\.$`).MatchString(list) {
		t.Errorf("rooda list does not summarize the script by its docstring:\n%s", list)
	}
	stdoutHas(t, w.rooda("list", "--json"), `"summary": "Builds, then reviews."`)
	if strings.Contains(o.stdout, "Max Iterations: 5 (built-in)") {
		t.Errorf("the defaults are shown as the script's settings:\n%s", o.stdout)
	}
	if w.ran(1) {
		t.Error("an agent ran")
	}
}

// gitIn runs git in dir for a test, failing it if git fails.
func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.org"}, args...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// fetchedLibWorkspace is a workspace of the library at repo, with a cache
// of its own, that has run rooda lib fetch.
func fetchedLibWorkspace(t *testing.T, repo string) *libWorkspace {
	t.Helper()
	w := newLibWorkspace(t, repo, filepath.Join(t.TempDir(), "cache"))
	if o := w.rooda("lib", "fetch"); o.code != 0 {
		t.Fatalf("fetch: exit %d\n%s", o.code, o.stderr)
	}
	return w
}

// TestPinnedCommitGoneUpstream: the pinned commit is rewritten away
// upstream (amended, the tag moved, the old commit collected); a machine
// with an empty cache is told to run rooda lib update team, not shown a
// git command line.
func TestPinnedCommitGoneUpstream(t *testing.T) {
	t.Parallel()
	repo, publish := gitRepo(t)
	first := publish("hello", "v1")
	w := fetchedLibWorkspace(t, repo)
	gitIn(t, repo, "commit", "--quiet", "--amend", "-m", "rewritten")
	gitIn(t, repo, "tag", "--force", "v1")
	gitIn(t, repo, "reflog", "expire", "--expire=now", "--all")
	gitIn(t, repo, "gc", "--quiet", "--prune=now")

	w.env = append(w.env, "XDG_CACHE_HOME="+filepath.Join(t.TempDir(), "fresh-cache"))
	o := w.rooda("script", "run", "main.star")
	want := "library team: the pinned commit " + first[:12] + " is no longer in file://" + repo + " (its history was rewritten?); run rooda lib update team to pin what v1 gives now"
	if o.code != 1 || !strings.Contains(o.stderr, want) {
		t.Errorf("exit %d, want 1 and %q; stderr:\n%s", o.code, want, o.stderr)
	}
	if strings.Contains(o.stderr, "git ") || strings.Contains(o.stderr, "--git-dir") {
		t.Errorf("a git command line is shown:\n%s", o.stderr)
	}
}

// TestFetchSaysWhatMoved: rooda lib fetch's mismatch says what moved
// from the pin: the commit only (an empty commit at the moved tag), the
// content hash only (rooda.lock edited), or both (new files at the tag).
func TestFetchSaysWhatMoved(t *testing.T) {
	t.Parallel()
	repo, publish := gitRepo(t)
	first := publish("hello", "v1")
	w := fetchedLibWorkspace(t, repo)
	pinned := w.pinnedHash()
	fetchFails := func(want string) {
		t.Helper()
		o := w.rooda("lib", "fetch")
		if o.code != 1 || !strings.Contains(o.stderr, want) {
			t.Errorf("exit %d, want 1 and %q; stderr:\n%s", o.code, want, o.stderr)
		}
	}

	lock := filepath.Join(w.dir, "rooda.lock")
	data := readText(t, lock)
	edited := strings.Repeat("0", 64)
	must(t, os.WriteFile(lock, []byte(strings.Replace(data, pinned, edited, 1)), 0o644))
	fetchFails("library team: hash mismatch: rooda.lock pins file://" + repo + " v1 at commit " + first[:12] + ", which it still gives, but the commit's files hash to sha256 " + pinned + ", not the pinned " + edited)
	must(t, os.WriteFile(lock, []byte(data), 0o644))

	gitIn(t, repo, "commit", "--quiet", "--allow-empty", "-m", "nothing")
	gitIn(t, repo, "tag", "--force", "v1")
	fetchFails("library team: the ref moved: rooda.lock pins file://" + repo + " v1 at commit " + first[:12] + "; it now gives commit ")
	fetchFails(", whose files are the same (sha256 " + pinned + "). Run rooda lib update team to pin the new commit")

	third := publish("moved", "v1")
	fetchFails("library team: hash mismatch: the ref moved and the files changed: rooda.lock pins file://" + repo + " v1 at commit " + first[:12] + ", sha256 " + pinned + "; it now gives commit " + third[:12] + ", sha256 ")
}
