package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// These tests hold what rooda promises of a run's git worktrees when the
// run does not end as it should — killed (kill -9, the OOM killer), left
// unreaped, interrupted in a merge: no work is lost, and what is kept is
// named, with how to remove it.

// agentScript writes the fake agent's script for the loop whose
// procedure is named name (see agentLine).
func (w *repoWorkspace) agentScript(name string, steps ...step) {
	w.t.Helper()
	data, _ := json.Marshal(map[string]any{"record": w.dir, "steps": steps})
	w.write(name+".json", string(data))
}

// runOfWorktrees is the id of the run whose worktrees are below
// .rooda/worktrees, the only one.
func (w *repoWorkspace) runOfWorktrees() string {
	w.t.Helper()
	runs, _ := filepath.Glob(filepath.Join(w.repo, ".rooda", "worktrees", "*", "*"))
	for _, r := range runs {
		if info, err := os.Stat(r); err == nil && info.IsDir() {
			return filepath.Base(filepath.Dir(r))
		}
	}
	w.t.Fatal("no run left worktrees")
	return ""
}

// TestKilledRunKeepsWork: rooda killed (-9) while its agent works in a
// worktree kept (keep = True), after committing there and leaving a file
// uncommitted. The next script run, of any script, removes neither: it
// says what it kept, where, and how to remove it; of the run's other
// worktrees, the one holding a commit on no other branch stays too, and
// only the one holding no work goes. A run after that leaves them alone,
// and runs show names them.
func TestKilledRunKeepsWork(t *testing.T) {
	t.Parallel()
	w := newRepoWorkspace(t)
	w.agentScript("kept", step{"delay": "30s"})
	w.write("keep.star", `kept = worktree("kept", keep = True)
work = worktree("work")
empty = worktree("empty")
run(["sh", "-c", "echo work > work.txt && git add work.txt && git commit -qm 'the agent work' && echo draft > draft.txt"], dir = kept)
run(["sh", "-c", "echo more > more.txt && git add more.txt && git commit -qm 'more work'"], dir = work)
iterate(compose("kept", act = [fragment(content = "Work.")]), agent = args[0], worktree = kept, max_iterations = 1)
`)
	cmd := exec.Command(binary(t), "script", "run", filepath.Join(w.dir, "keep.star"), "--", w.agentLine())
	cmd.Dir, cmd.Env = w.repo, w.env
	s := w.start(cmd)
	w.waitForPids(1)
	s.cmd.Process.Kill()
	w.wait(s)
	w.noSurvivorsQuietly()
	id := w.runOfWorktrees()
	// A run that can be resumed keeps its worktrees whole for its resume
	// (TestResumeKeepsWorktrees); one recorded without a journal, by an
	// older rooda, cannot be.
	must(t, os.Remove(filepath.Join(w.repo, ".rooda", "runs", id, "journal.jsonl")))
	kept := filepath.Join(w.repo, ".rooda", "worktrees", id, "kept")
	work := filepath.Join(w.repo, ".rooda", "worktrees", id, "work")
	branch := "rooda/" + id + "/kept"

	w.write("next.star", "print('next')\n")
	o := w.roodaIn(w.repo, "script", "run", filepath.Join(w.dir, "next.star"))
	o.expect(t, 0, "next\n",
		"removed 1 worktree(s) of 1 run(s) that ended without removing them: ["+id+"]",
		"kept worktree "+kept+", on branch "+branch+", of a run that ended without removing it, as it was made with keep = True; to remove it: git worktree remove "+kept+" && git branch -D "+branch+"\n",
		"kept worktree "+work+", on branch rooda/"+id+"/work, of a run that ended without removing it, as it holds commits on no other branch")
	for _, f := range []string{"work.txt", "draft.txt"} {
		if _, err := os.Stat(filepath.Join(kept, f)); err != nil {
			t.Errorf("the kept worktree's %s is gone: %v", f, err)
		}
	}
	if log := w.git("log", "--oneline", branch); !strings.Contains(log, "the agent work") {
		t.Errorf("the kept branch lost the agent's commit:\n%s", log)
	}
	if _, err := os.Stat(filepath.Join(w.repo, ".rooda", "worktrees", id, "empty")); !os.IsNotExist(err) {
		t.Errorf("the worktree that held no work is left: %v", err)
	}

	again := w.roodaIn(w.repo, "script", "run", filepath.Join(w.dir, "next.star"))
	again.expect(t, 0, "next\n")
	if strings.Contains(again.stderr, "worktree") {
		t.Errorf("a later run touched the kept worktrees again:\n%s", again.stderr)
	}
	if _, err := os.Stat(filepath.Join(kept, "draft.txt")); err != nil {
		t.Errorf("a later run removed the kept worktree: %v", err)
	}
	show := w.roodaIn(w.repo, "runs", "show", id)
	if want := "  kept: kept at " + kept + ", on branch " + branch + "; to remove it: git worktree remove " + kept + " && git branch -D " + branch + "\n"; !strings.Contains(show.stdout, "Worktrees:\n") || !strings.Contains(show.stdout, want) || !strings.Contains(show.stdout, "  empty: removed\n") {
		t.Errorf("runs show does not name the kept worktrees:\n%s%s", show.stdout, show.stderr)
	}
}

// TestKeptWorktreeNamedAtTheEnd: a run that keeps a worktree says, as it
// ends, where it is and how to remove it.
func TestKeptWorktreeNamedAtTheEnd(t *testing.T) {
	t.Parallel()
	w := newRepoWorkspace(t)
	w.write("keep.star", `wt = worktree("kept", keep = True)
gone = worktree("gone")
`)
	o := w.roodaIn(w.repo, "script", "run", filepath.Join(w.dir, "keep.star"))
	id := w.runOfWorktrees()
	path := filepath.Join(w.repo, ".rooda", "worktrees", id, "kept")
	branch := "rooda/" + id + "/kept"
	o.expect(t, 0, "kept worktree kept: "+path+", on branch "+branch+"; to remove it: git worktree remove "+path+" && git branch -D "+branch+"\n")
	if strings.Contains(o.stderr, "kept worktree gone") {
		t.Errorf("a worktree not kept is said kept:\n%s", o.stderr)
	}
}

// TestInterruptedMergeIsUndone: Ctrl+C while git_merge waits for a slow
// signing of its commit — the merge staged — leaves
// the checkout as it was (the user's own unstaged change included),
// exit 130, and keeps the worktree and its branch, whose work was not
// merged, saying so.
func TestInterruptedMergeIsUndone(t *testing.T) {
	t.Parallel()
	w := newRepoWorkspace(t)
	s, head, hookPid := w.startSlowMerge()
	s.cmd.Process.Signal(syscall.SIGINT)
	o := w.wait(s)
	syscall.Kill(hookPid, syscall.SIGKILL) // git stopped; its signing program would sleep on
	if strings.Contains(o.stderr, "merged:") {
		t.Errorf("the script went on after the interrupt:\n%s", o.stderr)
	}
	if st := w.git("status", "--porcelain"); st != "M notes.txt" {
		t.Errorf("the checkout is not as it was (only notes.txt changed, unstaged):\n%s", st)
	}
	if _, err := os.Stat(filepath.Join(w.repo, ".git", "MERGE_HEAD")); !os.IsNotExist(err) {
		t.Errorf("a merge is left going: %v", err)
	}
	if data, _ := os.ReadFile(filepath.Join(w.repo, "notes.txt")); string(data) != "the user's, edited\n" {
		t.Errorf("the user's change is lost: %q", data)
	}
	if now := w.git("rev-parse", "HEAD~1"); now != head {
		t.Errorf("HEAD~1 is %s, want %s: main moved otherwise than by the script's commit", now, head)
	}
	id := w.runOfWorktrees()
	path := filepath.Join(w.repo, ".rooda", "worktrees", id, "task")
	branch := "rooda/" + id + "/task"
	o.expect(t, 130, "kept worktree task: "+path+", on branch "+branch+"; to remove it: git worktree remove "+path+" && git branch -D "+branch+"\n")
	if log := w.git("log", "--oneline", branch); !strings.Contains(log, "the agent work") {
		t.Errorf("the branch whose merge was stopped lost its work:\n%s", log)
	}
}

// TestZombieRoodaIsGone: a rooda killed but never reaped by its parent —
// a zombie, which kill(pid, 0) still answers — is gone: its run is shown
// crashed, and the next run removes its worktrees and, where there are
// cgroups, stops what its agent left running.
func TestZombieRoodaIsGone(t *testing.T) {
	t.Parallel()
	w := newRepoWorkspace(t)
	w.agentScript("zombie", step{"escape": "60s", "delay": "60s"})
	w.agentScript("next", step{"output": successSignal + "\n"})
	w.write("zombie.star", `wt = worktree("w")
iterate(compose("zombie", act = [fragment(content = "Work.")]), agent = args[0], worktree = wt, max_iterations = 1)
`)
	w.write("next.star", `iterate(compose("next", act = [fragment(content = "Work.")]), agent = args[0], max_iterations = 1)
`)
	pid := w.startUnreaped("script", "run", filepath.Join(w.dir, "zombie.star"), "--", w.agentLine())
	w.waitForPids(2) // the agent and the child that left its group
	escaped := w.recordedPids()[1]
	inCgroup := inRoodaCgroup(escaped)
	syscall.Kill(pid, syscall.SIGKILL)
	for deadline := time.Now().Add(hangGuard); state(pid) != "Z"; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("rooda (pid %d) never became a zombie: %s", pid, state(pid))
		}
	}
	id := w.runOfWorktrees()

	if o := w.roodaIn(w.repo, "runs", "list"); !strings.Contains(o.stdout, "\tcrashed\t") {
		t.Errorf("the zombie's run is not shown crashed:\n%s%s", o.stdout, o.stderr)
	}
	// The zombie's run can be resumed: its worktrees are left for that.
	o := w.roodaIn(w.repo, "script", "run", filepath.Join(w.dir, "next.star"), "--", w.agentLine())
	o.expect(t, 0, "left the worktrees of run "+id+" as they are: it was cut short and can be resumed (rooda runs resume "+id+")")
	if _, err := os.Stat(filepath.Join(w.repo, ".rooda", "worktrees", id, "w")); err != nil {
		t.Errorf("the worktree of the run that can be resumed: %v", err)
	}
	switch {
	case !inCgroup:
		// Without cgroups nothing finds what a dead rooda's agent left.
		t.Log("no writable cgroup v2 hierarchy here: what the zombie's agent left is not looked for")
		syscall.Kill(escaped, syscall.SIGKILL)
	case alive(escaped):
		t.Errorf("process %d, left by the zombie's agent in its cgroup, survived the next run", escaped)
		syscall.Kill(escaped, syscall.SIGKILL)
	}
}

// startSlowMerge starts a script that commits in a worktree and merges
// its branch into the checkout, where the user has an unstaged change,
// signing the merge's commit with a program that sleeps (rooda runs no
// hook): the merge staged. It returns once the program runs, with the
// checkout's HEAD before the merge and the program's pid. The script prints "merged:"
// and the merge's result if the merge returns.
func (w *repoWorkspace) startSlowMerge() (s started, head string, hookPid int) {
	w.t.Helper()
	w.write("repo/notes.txt", "the user's\n")
	w.git("add", "notes.txt")
	w.git("commit", "-qm", "notes")
	w.write("repo/notes.txt", "the user's, edited\n")
	pidFile := filepath.Join(w.dir, "gpg.pid")
	w.write("gpg", "#!/bin/sh\necho $$ > "+pidFile+".new && mv "+pidFile+".new "+pidFile+"\nexec sleep 30\n")
	must(w.t, os.Chmod(filepath.Join(w.dir, "gpg"), 0o755))
	w.git("config", "gpg.program", filepath.Join(w.dir, "gpg"))
	w.git("config", "commit.gpgSign", "true")
	w.write("merge.star", `wt = worktree("task")
run(["sh", "-c", "echo work > work.txt && git add work.txt && git commit --no-gpg-sign -qm 'the agent work'"], dir = wt)
run(["git", "commit", "--no-gpg-sign", "-q", "--allow-empty", "-m", "main moves on"])
res = git_merge(wt)
print("merged:", res.merged)
`)
	cmd := exec.Command(binary(w.t), "script", "run", filepath.Join(w.dir, "merge.star"))
	cmd.Dir, cmd.Env = w.repo, w.env
	head = w.git("rev-parse", "HEAD")
	s = w.start(cmd)
	waitUntil(w.t, "the merge signs its commit", func() bool {
		data, err := os.ReadFile(pidFile)
		_, scanErr := fmt.Sscan(string(data), &hookPid)
		return err == nil && scanErr == nil
	}, s.stderr.String)
	return s, head, hookPid
}

// startUnreaped starts rooda with args in the repository as the child of
// a parent that never reaps it (a shell that execs sleep), and returns
// rooda's pid. The parent is ended as the test ends.
func (w *repoWorkspace) startUnreaped(args ...string) int {
	w.t.Helper()
	pidFile := filepath.Join(w.dir, "unreaped.pid")
	line := `"$@" >` + filepath.Join(w.dir, "unreaped.log") + ` 2>&1 & echo $! >` + pidFile + `.new && mv ` + pidFile + `.new ` + pidFile + `; exec sleep 300`
	cmd := exec.Command("sh", append([]string{"-c", line, "sh", binary(w.t)}, args...)...)
	cmd.Dir, cmd.Env = w.repo, w.env
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(hangGuard); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if data, err := os.ReadFile(pidFile); err == nil {
			pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
			return pid
		}
	}
	w.t.Fatal("the shell never started rooda")
	return 0
}

// TestInterruptedRunKeepsWork: Ctrl+C while an agent works in a worktree
// not kept: the run was cut short before its script could merge or drop
// the work, so the worktree holding a commit on no other branch, and the
// one holding an uncommitted file, stay and are named; the one holding
// no work goes. A script that runs to its end removes what it did not
// keep, as it decided.
func TestInterruptedRunKeepsWork(t *testing.T) {
	t.Parallel()
	w := newRepoWorkspace(t)
	w.agentScript("work", step{"delay": "30s"})
	w.write("cut.star", `work = worktree("work")
draft = worktree("draft")
empty = worktree("empty")
run(["sh", "-c", "echo work > work.txt && git add work.txt && git commit -qm 'the agent work'"], dir = work)
run(["sh", "-c", "echo draft > draft.txt"], dir = draft)
iterate(compose("work", act = [fragment(content = "Work.")]), agent = args[0], worktree = work, max_iterations = 1)
`)
	// Without a record: a run that can be resumed keeps every worktree
	// for its resume (TestResumeKeepsWorktrees).
	cmd := exec.Command(binary(t), "script", "run", filepath.Join(w.dir, "cut.star"), "--no-record", "--", w.agentLine())
	cmd.Dir, cmd.Env = w.repo, w.env
	s := w.start(cmd)
	w.waitForPids(1)
	s.cmd.Process.Signal(syscall.SIGINT)
	o := w.wait(s)
	id := w.runOfWorktrees()
	dir := filepath.Join(w.repo, ".rooda", "worktrees", id)
	o.expect(t, 130,
		"kept worktree work (the run was cut short and it holds commits on no other branch): "+filepath.Join(dir, "work"),
		"kept worktree draft (the run was cut short and it holds uncommitted changes): "+filepath.Join(dir, "draft"))
	for _, f := range []string{"work/work.txt", "draft/draft.txt"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s is gone: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "empty")); !os.IsNotExist(err) {
		t.Errorf("the worktree holding no work is still there: %v", err)
	}

	// To its end, the same script drops what it did not keep.
	w.agentScript("work", step{"output": successSignal})
	w.roodaIn(w.repo, "script", "run", filepath.Join(w.dir, "cut.star"), "--", w.agentLine()).expect(t, 0)
	runs, _ := filepath.Glob(filepath.Join(w.repo, ".rooda", "worktrees", "*", "*", "work.txt"))
	if len(runs) != 1 {
		t.Errorf("work.txt in %d worktrees, want only the interrupted run's: %v", len(runs), runs)
	}
}
