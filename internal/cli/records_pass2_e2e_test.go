package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestFailedContextAddLeavesNothing: a context add that fails midway
// (here the file size limit, as a full disk would) is not there: the
// next iteration gets the additions that succeeded and nothing of the
// torn one, and the run's context directory holds no part of it.
func TestFailedContextAddLeavesNothing(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"delay": "2s"})
	s := w.start(w.command("build", "-n", "2"))
	w.waitForPids(1)
	w.write("big.md", strings.Repeat("torn\n", 400_000)) // 2 MB
	// ulimit -f counts blocks of 512 bytes: 512 KiB may be written.
	add := exec.Command("/bin/sh", "-c", `ulimit -f 1024 && exec "$0" "$@"`, binary(t), "context", "add", "big.md")
	add.Dir, add.Env = w.dir, w.env
	failed := w.wait(w.start(add))
	id := runIDs(t, w)[0]
	if want := "Error: nothing was added to run " + id + ": file too large\n"; failed.code != 1 || failed.stderr != want || failed.stdout != "" {
		t.Errorf("context add beyond the file size limit: exit %d\n%s%s", failed.code, failed.stdout, failed.stderr)
	}
	if o := w.rooda("context", "add", "whole note"); o.code != 0 {
		t.Fatalf("context add: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	w.wait(s).expect(t, 2, "Iteration 2 receives the context added while running: 0001\n")
	if second := w.prompt(2); strings.Contains(second, "torn") || !strings.Contains(second, "whole note") {
		t.Errorf("prompt 2 (%d bytes) has the torn addition, or lacks the whole one", len(second))
	}
	entries, err := os.ReadDir(filepath.Join(w.dir, ".rooda", "runs", id, "context"))
	var names []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".claimed-") {
			names = append(names, e.Name())
		}
	}
	if err != nil || strings.Join(names, " ") != "0001.txt cleared" {
		t.Errorf("the run's context directory holds %v (%v), want the whole addition only", names, err)
	}
}

// TestContextAddToAnEndedRun: context added to a run that has ended
// would reach no agent: add and clear refuse, saying so.
func TestContextAddToAnEndedRun(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{})
	w.run("build", "-n", "1").expect(t, 2)
	id := runIDs(t, w)[0]
	want := "Error: run " + id + " has ended (max-iters): no iteration will read its context any more\n"
	for _, args := range [][]string{{"context", "add", "--run", "last", "late note"}, {"context", "clear", "--run", id}} {
		if o := w.rooda(args...); o.code != 1 || o.stdout != "" || o.stderr != want {
			t.Errorf("%v: exit %d, stdout %q, stderr %q, want %q", args, o.code, o.stdout, o.stderr, want)
		}
	}
	if _, err := os.Stat(filepath.Join(w.dir, ".rooda", "runs", id, "context")); !os.IsNotExist(err) {
		t.Errorf("the ended run's record gained a context directory: %v", err)
	}
}

// TestRecordWipedByTheAgent: an agent's "git clean -fdx" removes the
// records while the run goes on. rooda says so, writes the run's record
// again from what it holds (run.json, the iteration that removed it) and
// puts back the .gitignore, so that the next agent's "git add -A"
// commits no record.
func TestRecordWipedByTheAgent(t *testing.T) {
	t.Parallel()
	keep := "-e script.json -e 'prompt-*' -e 'env-*' -e pids -e no-global" // the fake agent's own files
	commit := "git add -A && git -c user.name=t -c user.email=t@example.org commit --quiet -m agent"
	w := newWorkspace(t, step{"output": "one\n"}, step{"output": "two\n", "shell": "git clean -fdxq " + keep}, step{"shell": commit})
	w.gitInit()
	o := w.run("build", "-n", "3")
	id := runIDs(t, w)[0]
	runDir := filepath.Join(".rooda", "runs", id)
	o.expect(t, 2, "WARN: the record of this run, "+runDir+", was removed while the run went on (an agent's git clean?): rooda writes it again from what it holds; iteration 1's files are lost\n")
	ls := exec.Command("git", "ls-files", ".rooda")
	ls.Dir = w.dir
	if tracked, err := ls.Output(); err != nil || len(tracked) > 0 {
		t.Errorf("the agent's git add -A committed records (%v):\n%s", err, tracked)
	}
	if data, err := os.ReadFile(filepath.Join(w.dir, ".rooda", "runs", ".gitignore")); string(data) != "*\n" {
		t.Errorf(".gitignore: %q, %v", data, err)
	}
	show := w.rooda("runs", "show", "last")
	for _, line := range []string{"Status: max-iters\n", "Iterations: 3\n", "Loop 1: build (max-iters)\n", "Record: removed while the run went on and written again from what rooda held; iteration 1's files are lost\n"} {
		if !strings.Contains(show.stdout, line) {
			t.Errorf("runs show lacks %q:\n%s%s", line, show.stdout, show.stderr)
		}
	}
	sent := w.prompt(2)
	if kept := w.rooda("runs", "show", "last", "--iteration", "2", "--prompt"); kept.stdout != sent {
		t.Errorf("iteration 2's prompt was not written again: %q %s", kept.stdout, kept.stderr)
	}
	if kept := w.rooda("runs", "show", "last", "--iteration", "2", "--output"); kept.stdout != "two\n" {
		t.Errorf("iteration 2's output: %q %s", kept.stdout, kept.stderr)
	}
}

// TestMissingRecordFiles: an iteration whose prompt.txt or output.txt
// is gone is named with the file that is missing, by show, show
// --prompt/--output and diff alike; show gives no size for a file that
// is not there.
func TestMissingRecordFiles(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": "done\n"})
	w.run("build", "-n", "2").expect(t, 2)
	id := runIDs(t, w)[0]
	prompt := filepath.Join(".rooda", "runs", id, "iterations", "0002", "prompt.txt")
	output := filepath.Join(".rooda", "runs", id, "iterations", "0001", "output.txt")
	for _, f := range []string{prompt, output} {
		if err := os.Remove(filepath.Join(w.dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	noPrompt := "iteration 2's prompt.txt is missing: " + prompt + "\n"
	noOutput := "iteration 1's output.txt is missing: " + output + "\n"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"runs", "show", "last", "--iteration", "2", "--prompt"}, noPrompt},
		{[]string{"runs", "diff", "last", "1", "2"}, noPrompt},
		{[]string{"runs", "show", "last", "--iteration", "1", "--output"}, noOutput},
	} {
		if o := w.rooda(c.args...); o.code != 1 || o.stderr != "Error: "+c.want {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, o.code, o.stderr, "Error: "+c.want)
		}
	}
	if o := w.rooda("runs", "show", "last", "--iteration", "2"); !strings.Contains(o.stdout, "\nPrompt: "+noPrompt) {
		t.Errorf("show --iteration 2, want %q:\n%s%s", "Prompt: "+noPrompt, o.stdout, o.stderr)
	}
	if o := w.rooda("runs", "show", "last", "--iteration", "1"); !strings.Contains(o.stdout, "\nOutput: "+noOutput) {
		t.Errorf("show --iteration 1, want %q:\n%s%s", "Output: "+noOutput, o.stdout, o.stderr)
	}
	if o := w.rooda("runs", "show", "last", "--iteration", "3", "--prompt"); o.stderr != "Error: the run has no iteration 3\n" {
		t.Errorf("an iteration that never was: %q", o.stderr)
	}
}

// TestRunsStartedTogether: runs started at once in one workspace, each
// pruning the others' older records, never take a record being made or
// removed for a file that is not a run's.
func TestRunsStartedTogether(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{})
	w.env = append(w.env, "ROODA_LOOP_KEEP_RUNS=1")
	const rounds, together = 12, 6
	for range rounds {
		var wg sync.WaitGroup
		outcomes := make([]outcome, together)
		for i := range outcomes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				outcomes[i] = w.run("build", "-n", "1")
			}()
		}
		wg.Wait()
		for _, o := range outcomes {
			if o.code != 2 || strings.Contains(o.stderr, "not rooda runs") {
				t.Fatalf("a run started with %d others: exit %d\n%s", together-1, o.code, o.stderr)
			}
		}
	}
}
