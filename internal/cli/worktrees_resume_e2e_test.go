package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The script of the tests below: parallel() of four worktree loops, q1 to
// q4, each of two iterations that commit qN-1.txt and qN-2.txt, then
// each worktree merged.
const fourWorktrees = `def work(name):
    wt = worktree(name)
    iterate(compose(name, act = [fragment(content = "Work in " + name + ", and commit.")]), agent = args[0], worktree = wt, max_iterations = 2)
    return wt

for wt in parallel([(work, "q1"), (work, "q2"), (work, "q3"), (work, "q4")]):
    print(wt.name, "merged:", git_merge(wt).merged)
`

// fourWorktreeAgents writes the agents of fourWorktrees: iteration 1
// commits qN-1.txt; iteration 2 runs second (a shell line) first, then
// commits qN-2.txt and says SUCCESS.
func (w *repoWorkspace) fourWorktreeAgents(second string) {
	for i := 1; i <= 4; i++ {
		q := fmt.Sprintf("q%d", i)
		commit := func(n int) string {
			return fmt.Sprintf("echo %d > %s-%d.txt && git add -A && git commit -qm '%s %d'", n, q, n, q, n)
		}
		w.agentScript(q, step{"shell": commit(1), "output": "working\n"},
			step{"shell": strings.TrimPrefix(second+" && ", " && ") + commit(2), "output": successSignal + "\n"})
	}
	w.write("four.star", fourWorktrees)
}

// killingGit is a directory holding a git, first on PATH, that runs the
// real one and, at the first "worktree add" whose arguments hold match,
// sends sig to its parent, rooda: before the real git runs (before) or
// after it made the branch and the worktree. rooda runs git by its name:
// a kill point between git's work and the journal's entry, with no seam
// in rooda.
func (w *repoWorkspace) killingGit(match, sig string, before bool) string {
	w.t.Helper()
	real, err := exec.LookPath("git")
	must(w.t, err)
	dir := filepath.Join(w.dir, "killing-git")
	must(w.t, os.MkdirAll(dir, 0o755))
	kill := fmt.Sprintf(`mkdir %q 2>/dev/null && kill -%s $PPID`, filepath.Join(w.dir, "killed"), sig)
	run := fmt.Sprintf("%q \"$@\"; rc=$?", real)
	body := run + "\n" + `case "$*" in *"worktree add"*` + match + `*) ` + kill + `;; esac` + "\nexit $rc\n"
	if before {
		body = `case "$*" in *"worktree add"*` + match + `*) ` + kill + `; sleep 5;; esac` + "\n" + fmt.Sprintf("exec %q \"$@\"\n", real)
	}
	must(w.t, os.WriteFile(filepath.Join(dir, "git"), []byte("#!/bin/sh\n"+body), 0o755))
	return dir
}

// cutShort runs four.star, with pathFirst first on its PATH, until it is
// cut short: by what that holds, or by sig once the four agents are at
// the barrier.
func (w *repoWorkspace) cutShort(pathFirst string, sig syscall.Signal) outcome {
	w.t.Helper()
	cmd := exec.Command(binary(w.t), "script", "run", filepath.Join(w.dir, "four.star"), "--", w.agentLine())
	cmd.Dir, cmd.Env = w.repo, w.env
	if pathFirst != "" {
		cmd.Env = append(append([]string{}, w.env...), "PATH="+pathFirst+":"+os.Getenv("PATH"))
	}
	s := w.start(cmd)
	if sig != 0 {
		w.atBarrier()
		s.cmd.Process.Signal(sig)
	}
	o := w.wait(s)
	if o.code == 0 {
		w.t.Fatalf("the run was not cut short:\n%s", o.stderr)
	}
	w.noSurvivorsQuietly()
	return o
}

// resumedWhole resumes the newest run cut short and checks that it ends
// in success with every worktree's commits merged but those of lost.
func (w *repoWorkspace) resumedWhole(lost ...string) outcome {
	w.t.Helper()
	o := w.resume()
	o.expect(w.t, 0, "q1 merged: True", "q2 merged: True", "q3 merged: True", "q4 merged: True")
	files := w.git("ls-files")
	for i := 1; i <= 4; i++ {
		for n := 1; n <= 2; n++ {
			f := fmt.Sprintf("q%d-%d.txt", i, n)
			gone := strings.Contains(" "+strings.Join(lost, " ")+" ", " "+f+" ")
			if there := strings.Contains(files, f); there == gone {
				w.t.Errorf("after the resume, %s merged: %v, want %v\n%s\nresume:\n%s", f, there, !gone, files, o.stderr)
			}
		}
	}
	return o
}

// resume runs rooda runs resume ids: again while the record of the run
// killed is still held (issue 38's item 10: its lock may outlive the
// kill -9 by a moment); a refused resume changes nothing.
func (w *repoWorkspace) resume(ids ...string) outcome {
	w.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		o := w.roodaIn(w.repo, append([]string{"runs", "resume"}, ids...)...)
		if !strings.Contains(o.stderr, "is still going (pid") || time.Now().After(deadline) {
			return o
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// barrier is the shell line of an agent's second iteration that says it
// is there, and waits to be killed.
func (w *repoWorkspace) barrier() string {
	dir := filepath.Join(w.dir, "barrier")
	must(w.t, os.MkdirAll(dir, 0o755))
	return fmt.Sprintf(`touch %q/$ROODA_PROCEDURE && sleep 600`, dir)
}

// atBarrier waits until the four agents are at the barrier: each loop
// ended its first iteration.
func (w *repoWorkspace) atBarrier() {
	w.t.Helper()
	deadline := time.Now().Add(2 * hangGuard)
	for {
		there, _ := os.ReadDir(filepath.Join(w.dir, "barrier"))
		if len(there) == 4 {
			return
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("the four agents never reached their second iteration: %d did", len(there))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestResumeAfterInterruptInWorktrees: a parallel() of four worktree loops
// cut short by kill -9 or SIGINT at fixed points — as the first worktree
// is about to be made, between git making a worktree's branch and the
// journal's entry of it, after the first iteration of each loop — resumes
// to success with every worktree's commits merged.
func TestResumeAfterInterruptInWorktrees(t *testing.T) {
	t.Parallel()
	signals := map[string]syscall.Signal{"KILL": syscall.SIGKILL, "INT": syscall.SIGINT}
	for _, name := range []string{"KILL", "INT"} {
		for _, point := range []string{"before-any", "branch-not-journaled", "after-iteration-1"} {
			t.Run(name+"/"+point, func(t *testing.T) {
				t.Parallel()
				w := newRepoWorkspace(t)
				second, pathFirst, sig := "true", "", syscall.Signal(0)
				switch point {
				case "before-any":
					pathFirst = w.killingGit("", name, true)
				case "branch-not-journaled":
					pathFirst = w.killingGit("/q2", name, false)
				case "after-iteration-1":
					second, sig = w.barrier(), signals[name]
				}
				w.fourWorktreeAgents(second)
				w.cutShort(pathFirst, sig)
				// The second iterations, in flight, run again: not cut
				// short this time.
				w.fourWorktreeAgents("true")
				w.resumedWhole()
			})
		}
	}
}

// cutAfterFirstIterations runs four.star, killed once each loop ended
// its first iteration, and returns the run's id.
func (w *repoWorkspace) cutAfterFirstIterations() string {
	w.t.Helper()
	w.fourWorktreeAgents(w.barrier())
	w.cutShort("", syscall.SIGKILL)
	w.fourWorktreeAgents("true")
	return w.runOfWorktrees()
}

// TestResumeRemakesRemovedWorktree: a worktree directory the user removed
// is made again from its branch, with its commits; when its branch is gone
// too, it is made afresh from the base and the log says which iterations'
// work is gone.
func TestResumeRemakesRemovedWorktree(t *testing.T) {
	t.Parallel()
	t.Run("directory", func(t *testing.T) {
		t.Parallel()
		w := newRepoWorkspace(t)
		id := w.cutAfterFirstIterations()
		must(t, os.RemoveAll(filepath.Join(w.repo, ".rooda", "worktrees", id, "q1")))
		o := w.resumedWhole()
		if !strings.Contains(o.stderr, "worktree q1 was gone") || !strings.Contains(o.stderr, "made again from its branch rooda/"+id+"/q1, with its commits") {
			t.Errorf("the resume does not say q1 was made again from its branch:\n%s", o.stderr)
		}
	})
	t.Run("directory-and-branch", func(t *testing.T) {
		t.Parallel()
		w := newRepoWorkspace(t)
		id := w.cutAfterFirstIterations()
		must(t, os.RemoveAll(filepath.Join(w.repo, ".rooda", "worktrees", id, "q1")))
		w.git("worktree", "prune")
		w.git("branch", "-D", "rooda/"+id+"/q1")
		o := w.resumedWhole("q1-1.txt")
		if !strings.Contains(o.stderr, "the work of iteration(s) 1 of q1 in worktree q1 is gone with its branch") {
			t.Errorf("the resume does not say which iterations' work is gone:\n%s", o.stderr)
		}
	})
}

// TestResumeThatCanBeRetriedStaysResumable: a resume that cannot make a
// worktree again (a directory of the user's in its way) fails, saying
// what to do, and leaves the run resumable: once that is mended, the
// next resume succeeds.
func TestResumeThatCanBeRetriedStaysResumable(t *testing.T) {
	t.Parallel()
	w := newRepoWorkspace(t)
	id := w.cutAfterFirstIterations()
	q1 := filepath.Join(w.repo, ".rooda", "worktrees", id, "q1")
	must(t, os.RemoveAll(q1))
	must(t, os.MkdirAll(q1, 0o755))
	must(t, os.WriteFile(filepath.Join(q1, "mine.txt"), []byte("the user's\n"), 0o644))
	o := w.resume(id)
	if o.code == 0 || !strings.Contains(o.stderr, "move it aside, then resume the run again") || !strings.Contains(o.stderr, "rooda runs resume "+id) {
		t.Fatalf("a resume with a directory in a worktree's way: exit %d\n%s", o.code, o.stderr)
	}
	if show := w.roodaIn(w.repo, "runs", "show", id); strings.Contains(show.stdout, "error") {
		t.Errorf("the run is marked error after a resume that can be tried again:\n%s", show.stdout)
	}
	must(t, os.Rename(q1, filepath.Join(w.dir, "mine")))
	w.resumedWhole()
}

// TestResumeEndsOnTheScriptsOwnWorktreeMistake: a worktree() the script
// named wrongly, reached live after a resume, ends the run as the same
// mistake ends a run not resumed: an error, no longer resumable, and no
// advice to resume it again.
func TestResumeEndsOnTheScriptsOwnWorktreeMistake(t *testing.T) {
	t.Parallel()
	w := newRepoWorkspace(t)
	w.agentScript("p", step{"delay": "100ms"}, step{"delay": "2s"}, step{"output": successSignal + "\n"})
	w.write("p.star", `iterate(compose("p", act = [fragment(content = "Do x.")]), agent = args[0], max_iterations = 3)
worktree("no good")
`)
	w.killScriptAt("p.star", "Iteration 2/3 starting")
	o := w.roodaIn(w.repo, "runs", "resume")
	if o.code != 1 || !strings.Contains(o.stderr, `worktree name "no good"`) || strings.Contains(o.stderr, "to be resumed again") {
		t.Fatalf("a resume reaching a badly named worktree(): exit %d\n%s", o.code, o.stderr)
	}
	if show := w.roodaIn(w.repo, "runs", "show", "last"); !strings.Contains(show.stdout, "error") {
		t.Errorf("the run is not ended as an error:\n%s", show.stdout)
	}
}
