package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func (w *workspace) rooda(args ...string) outcome {
	w.t.Helper()
	return w.roodaIn(w.dir, args...)
}

// roodaIn runs rooda with args in dir and waits for it.
func (w *workspace) roodaIn(dir string, args ...string) outcome {
	w.t.Helper()
	cmd := exec.Command(binary(w.t), args...)
	cmd.Dir, cmd.Env = dir, w.env
	return w.wait(w.start(cmd))
}

// TestRunRecord: after a 3-iteration run, runs show --iteration 2
// --prompt prints exactly the bytes the agent received, and meta.json
// holds their SHA-256; run.json is complete.
func TestRunRecord(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": "working\n"}, step{"output": "more\n", "exit": 1}, step{"output": successSignal})
	w.run("build", "-n", "5").expect(t, 0)
	received := w.prompt(2)
	o := w.rooda("runs", "show", "last", "--iteration", "2", "--prompt")
	if o.code != 0 || o.stdout != received {
		t.Fatalf("exit %d: the recorded prompt differs from the one received (%d vs %d bytes)\n%s", o.code, len(o.stdout), len(received), o.stderr)
	}
	o = w.rooda("runs", "show", "last", "--iteration", "2", "--json")
	var meta struct {
		PromptSHA256 string `json:"prompt_sha256"`
		ExitCode     int    `json:"exit_code"`
		Outcome      string `json:"outcome"`
	}
	sum := sha256.Sum256([]byte(received))
	if err := json.Unmarshal([]byte(o.stdout), &meta); err != nil || meta.PromptSHA256 != hex.EncodeToString(sum[:]) || meta.ExitCode != 1 || meta.Outcome != "failure" {
		t.Errorf("meta %+v, %v\n%s", meta, err, o.stdout)
	}
	if o := w.rooda("runs", "show", "last", "--iteration", "3", "--output"); o.stdout != successSignal {
		t.Errorf("output %q", o.stdout)
	}
	o = w.rooda("runs", "show", "last", "--json")
	var run struct {
		Status     string `json:"status"`
		ExitCode   *int   `json:"exit_code"`
		Iterations int    `json:"iterations"`
		Loops      []struct {
			Settings []string `json:"settings"`
			Agent    []string `json:"agent"`
		} `json:"loops"`
	}
	if err := json.Unmarshal([]byte(o.stdout), &run); err != nil || run.Status != "success" || run.ExitCode == nil || *run.ExitCode != 0 ||
		run.Iterations != 3 || len(run.Loops) != 1 || !strings.Contains(strings.Join(run.Loops[0].Settings, "\n"), "Max Iterations: 5 (cli: --max-iterations)") {
		t.Errorf("run.json %+v, %v\n%s", run, err, o.stdout)
	}
	if o := w.rooda("runs", "diff", "last", "1", "2"); !strings.Contains(o.stdout, "- Iteration: 1 of 5\n+ Iteration: 2 of 5\n") {
		t.Errorf("diff:\n%s%s", o.stdout, o.stderr)
	}
	if o := w.rooda("runs", "list"); !strings.Contains(o.stdout, "-build-") || !strings.Contains(o.stdout, "\tsuccess\t3 iterations\t") {
		t.Errorf("list:\n%s", o.stdout)
	}
	if w.run("build", "-n", "1", "--no-record"); len(runIDs(t, w)) != 1 {
		t.Error("--no-record recorded")
	}
}

func runIDs(t *testing.T, w *workspace) []string {
	entries, _ := os.ReadDir(filepath.Join(w.dir, ".rooda", "runs"))
	var ids []string
	for _, e := range entries {
		if e.IsDir() {
			ids = append(ids, e.Name())
		}
	}
	return ids
}

// TestInterruptedRunIsRecorded: a run stopped by SIGINT ends with a
// complete run.json, status interrupted, by SIGINT.
func TestInterruptedRunIsRecorded(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"delay": "30s"})
	s := w.start(w.command("build"))
	w.waitForPids(1)
	s.cmd.Process.Signal(os.Interrupt)
	w.wait(s)
	o := w.rooda("runs", "show", "last")
	if !strings.Contains(o.stdout, "Status: interrupted by SIGINT\nExit code: 130\n") {
		t.Errorf("run:\n%s%s", o.stdout, o.stderr)
	}
}

// TestContextAddedWhileRunning: rooda context add during a run reaches
// the next iteration's prompt, in its own section, and the log names that
// iteration.
func TestContextAddedWhileRunning(t *testing.T) {
	t.Parallel()
	// Each iteration lasts 2 s: time enough, even on a loaded machine, to
	// add context during the first.
	w := newWorkspace(t, step{"delay": "2s"})
	s := w.start(w.command("build", "-n", "3"))
	w.waitForPids(1)
	if o := w.rooda("context", "add", "The login tests are flaky; ignore them."); o.code != 0 || !strings.HasPrefix(o.stdout, "added 0001.txt to ") {
		t.Fatalf("context add: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	o := w.wait(s)
	o.expect(t, 2, "Iteration 2 receives the context added while running: 0001")
	first := w.prompt(1)
	second := w.prompt(2)
	section := "CONTEXT ADDED WHILE RUNNING\n═══════════════════════════════════════════════════════════════\nThe login tests are flaky; ignore them.\n"
	if strings.Contains(first, "CONTEXT ADDED") || !strings.Contains(second, section) {
		t.Errorf("prompt 2:\n%s", second)
	}
	if o := w.rooda("runs", "show", "last", "--iteration", "2"); !strings.Contains(o.stdout, "Context added while running, first given here: 0001") {
		t.Errorf("meta:\n%s", o.stdout)
	}
	if o := w.rooda("context", "add", "late"); o.code != 1 || !strings.Contains(o.stderr, "no run is going on") {
		t.Errorf("context add after the run: exit %d %s", o.code, o.stderr)
	}
}

// TestDigest: with --digest, iteration 2's prompt states iteration 1's
// exit code and the files it changed in a git workspace, and the results
// of the checks; iteration 1's has no such section.
func TestDigest(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"write": "made.txt", "exit": 3}, step{})
	w.write("rooda-config.yml", "procedures:\n  build:\n    checks:\n      - {name: made, run: \"test -f made.txt\"}\n      - {name: absent, run: \"test -f absent.txt\"}\n")
	w.gitInit()
	w.run("build", "-n", "2", "--digest").expect(t, 2)
	first := w.prompt(1)
	second := w.prompt(2)
	want := "PREVIOUS ITERATION\nFacts observed by rooda, not judgements.\n═══════════════════════════════════════════════════════════════\n" +
		"Iteration: 1\nOutcome: failure\nExit code: 3\nTimed out: no\n"
	if strings.Contains(first, "PREVIOUS ITERATION") || !strings.Contains(second, want) {
		t.Errorf("prompt 2:\n%s", second)
	}
	for _, fact := range []string{"\nFiles changed: made.txt\n", "\n- made: passed (test -f made.txt)\n", "\n- absent: failed, exit code 1 (test -f absent.txt)\n", "\nSignal: none\n"} {
		if !strings.Contains(second, fact) {
			t.Errorf("prompt 2 lacks %q:\n%s", fact, second)
		}
	}
	if strings.Index(second, "PREVIOUS ITERATION") > strings.Index(second, "PHASE 1: OBSERVE") {
		t.Error("the digest comes after the phases")
	}
}

// TestRecordsArePrunedAndScriptsRecorded: past ROODA_KEEP_RUNS the oldest
// records go; a script's loops are recorded in one run.
func TestRecordsArePrunedAndScriptsRecorded(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{})
	w.env = append(w.env, "ROODA_LOOP_KEEP_RUNS=2")
	for range 3 {
		w.run("build", "-n", "1")
	}
	if ids := runIDs(t, w); len(ids) != 2 {
		t.Errorf("kept %d records: %v", len(ids), ids)
	}
	w.write("main.star", "p = compose('p', act = [fragment(content = 'x')])\niterate(p, max_iterations = 1)\niterate(p, max_iterations = 2)\n")
	w.runScript("main.star", "--ai-cmd", w.aiCmd()).expect(t, 2)
	o := w.rooda("runs", "show", "last")
	if !strings.Contains(o.stdout, "Name: main.star\n") || !strings.Contains(o.stdout, "Iterations: 3\n") || !strings.Contains(o.stdout, "Loop 2: p (max-iters)") {
		t.Errorf("script run:\n%s%s", o.stdout, o.stderr)
	}
	if o := w.rooda("runs", "show", "last", "--iteration", "3", "--json"); !strings.Contains(o.stdout, `"loop": 2`) || !strings.Contains(o.stdout, `"iteration": 2`) {
		t.Errorf("iteration 3 of the run:\n%s", o.stdout)
	}
}

// TestContextClear: clear removes what was added to a run.
func TestContextClear(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"delay": "2s"})
	s := w.start(w.command("build", "-n", "2"))
	w.waitForPids(1)
	w.rooda("context", "add", "temporary note")
	if o := w.rooda("context", "clear"); o.code != 0 {
		t.Fatalf("clear: exit %d %s", o.code, o.stderr)
	}
	w.wait(s)
	if second := w.prompt(2); strings.Contains(second, "temporary note") {
		t.Errorf("cleared context reached the prompt:\n%s", second)
	}
}

// TestRecordsStayOutOfGit: the records directory ignores itself, so an
// agent's "git add -A" does not commit them.
func TestRecordsStayOutOfGit(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{})
	w.run("build", "-n", "1")
	data, err := os.ReadFile(filepath.Join(w.dir, ".rooda", "runs", ".gitignore"))
	if err != nil || string(data) != "*\n" {
		t.Errorf(".gitignore %q, %v", data, err)
	}
}
