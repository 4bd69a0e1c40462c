package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bareRemote is a bare clone of the test's checkout, standing for the
// repository a fleet's runs name by URL: the remote every worker clones
// and pushes to.
func (f *testFleet) bareRemote() string {
	t := f.w.t
	t.Helper()
	remote := filepath.Join(t.TempDir(), "remote.git")
	if out, err := exec.Command("git", "clone", "--quiet", "--bare", f.w.dir, remote).CombinedOutput(); err != nil {
		t.Fatalf("git clone --bare: %v\n%s", err, out)
	}
	return remote
}

// gitSays runs git with args in dir and returns what it printed,
// trimmed; the test fails if git does.
func gitSays(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
	if err != nil {
		t.Fatalf("git -C %s %v: %v", dir, args, err)
	}
	return strings.TrimSpace(string(out))
}

// commitStep is an agent's step that writes file and commits it as msg.
func commitStep(file, msg string) step {
	return step{"write": file, "shell": "git add " + file + " && git -c user.name=t -c user.email=t@example.org commit -qm " + msg}
}

// TestFleetRunsInACloneOfItsRepository: a run added with --repo works in
// a clone of that repository, made by the worker under its
// --workspaces, at the commit the repository's HEAD named when the run
// was queued, on the run's branch; not in a worktree of the checkout
// the run was added from.
func TestFleetRunsInACloneOfItsRepository(t *testing.T) {
	t.Parallel()
	made := commitStep("made.txt", "made")
	made["output"] = successSignal + "\n"
	w := newWorkspace(t, made)
	f := newFleet(t, w)
	remote := f.bareRemote()
	queuedAt := gitSays(t, remote, "rev-parse", "HEAD")
	// A commit of the checkout after the remote was made: a worktree of
	// the checkout would start from it, a clone of the remote does not.
	w.write("later.txt", "later\n")
	gitIn(t, w.dir, "add", "later.txt")
	gitIn(t, w.dir, "commit", "-qm", "later")
	f.fleet("add", "--repo", remote, "--name", "cloned", "build", "-n", "1", "--ai-cmd", w.aiCmd())
	machine := filepath.Join(t.TempDir(), "machine-a")
	f.worker("worker-a", "--lease", "2s", "--workspaces", machine)
	st := f.waitEnded(1)[0]
	if st.Status != "success" || st.Workspace != filepath.Join(machine, "cloned") {
		t.Fatalf("the run: %+v, want success in %s\n%s", st, filepath.Join(machine, "cloned"), f.workerLogs())
	}
	if origin := gitSays(t, st.Workspace, "remote", "get-url", "origin"); origin != remote {
		t.Errorf("the workspace's origin is %q, want the run's repository %q", origin, remote)
	}
	if branch := gitSays(t, st.Workspace, "branch", "--show-current"); branch != "rooda/fleet/cloned" {
		t.Errorf("the workspace is on %q, want rooda/fleet/cloned", branch)
	}
	if log := gitSays(t, st.Workspace, "log", "--format=%s", "HEAD"); log != "made\nstart" {
		t.Errorf("the workspace's history: %q, want the agent's commit on the remote's first", log)
	}
	if parent := gitSays(t, st.Workspace, "rev-parse", "HEAD^"); parent != queuedAt {
		t.Errorf("the agent's commit is on %s, want the remote's HEAD when queued, %s", parent, queuedAt)
	}
}

// TestFleetResumesOnAnotherMachine: a run of a repository named by --repo
// (a bare one, standing for a remote), worked by worker-a on "its
// machine" (its own --workspaces), which is killed outright (kill -9, a
// real process) while the run's third iteration's agent works; its
// workspace is then removed, as a lost machine's would be. worker-b, on
// "another machine", takes the run once the lease lapsed and resumes it:
// from a clone of the run's branch as worker-a pushed it, and the
// record as worker-a wrote it through to the fleet's store. The
// iterations that ended are not run again, their commits are on the
// run's branch once each, the iteration in flight runs again from the
// workspace as it began (a file its agent left uncommitted the
// iteration before is there: the start's ref was pushed too), and the
// run ends success.
func TestFleetResumesOnAnotherMachine(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	starts := filepath.Join(w.dir, "starts")
	second := commitStep("second.txt", "iteration-2")
	second["shell"] = second["shell"].(string) + " && echo left > loose.txt"
	again := step{"output": successSignal + "\n"}
	script, err := json.Marshal(map[string]any{"record": w.dir, "starts": starts, "steps": []step{
		commitStep("first.txt", "iteration-1"),
		second,
		{"output": "still working", "delay": "60s", "again": again},
	}})
	if err != nil {
		t.Fatal(err)
	}
	w.write("script.json", string(script))
	f := newFleet(t, w)
	remote := f.bareRemote()
	f.fleet("add", "--repo", remote, "--name", "moved", "build", "-n", "4", "--ai-cmd", w.aiCmd())
	machineA, machineB := filepath.Join(t.TempDir(), "machine-a"), filepath.Join(t.TempDir(), "machine-b")
	killed := f.worker("worker-a", "--lease", "2s", "--workspaces", machineA)
	waitForLine(t, starts, "script.json 3")
	// Mid-iteration is once the iteration's start reached the remote:
	// worker-a writes its journal's entry through just after.
	waitForRef(t, remote, "/start/3")
	waitForStored(t, f.state, regexp.MustCompile(`"k":"began"[^\n]*"n":3,"rec":3[,}]`))
	if err := killed.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	killed.Wait()
	killedAt := time.Now()
	if err := os.RemoveAll(machineA); err != nil {
		t.Fatal(err)
	}
	taker := f.worker("worker-b", "--lease", "2s", "--workspaces", machineB)
	st := f.waitEnded(1)[0]
	t.Logf("ended %s after the kill\n%s", time.Since(killedAt).Round(time.Millisecond), f.workerLogs())
	if st.Status != "success" || st.Attempt != 2 || !strings.HasSuffix(st.Worker, fmt.Sprintf(":%d", taker.Process.Pid)) {
		roodaLog, _ := os.ReadFile(filepath.Join(machineB, "logs", "moved.log"))
		t.Errorf("the run after the kill: %+v, want success at attempt 2 by worker-b (pid %d)\nworker-b's rooda said:\n%s", st, taker.Process.Pid, roodaLog)
	}
	if !strings.HasPrefix(st.Workspace, machineB) {
		t.Errorf("the run ended in %s, want a workspace of worker-b's, under %s", st.Workspace, machineB)
	}
	logs := f.workerLogs()
	for _, said := range []string{"moved: record ", " taken from the fleet's store", "moved: resuming record "} {
		if !strings.Contains(logs, said) {
			t.Errorf("no worker said %q", said)
		}
	}
	counts := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(readText(t, starts)), "\n") {
		counts[line]++
	}
	if counts["script.json 1"] != 1 || counts["script.json 2"] != 1 || counts["script.json 3"] != 2 || len(counts) != 3 {
		t.Errorf("agents started, by iteration: %v; want iterations 1 and 2 once, the one in flight (3) twice", counts)
	}
	if log := gitSays(t, remote, "log", "--format=%s", "rooda/fleet/moved"); log != "iteration-2\niteration-1\nstart" {
		t.Errorf("the run's branch on the remote: %q, want the ended iterations' commits, once each", log)
	}
	if _, err := os.Stat(filepath.Join(st.Workspace, "loose.txt")); err != nil {
		t.Errorf("the file iteration 2 left uncommitted is not in the workspace the iteration in flight ran again in: %v", err)
	}
}

// waitForStored waits until the files of the fleet's server under
// state (its embedded JetStream's, which keep an object's bytes as they
// were put) hold what matches re: a piece of a journal uploaded, seen
// without a NATS client, which the test's binary does not link.
func waitForStored(t *testing.T, state string, re *regexp.Regexp) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for time.Now().Before(deadline) {
		found := false
		filepath.WalkDir(state, func(path string, d os.DirEntry, err error) error {
			if err != nil || found || d.IsDir() || !strings.HasSuffix(path, ".blk") {
				return nil
			}
			data, err := os.ReadFile(path)
			found = err == nil && re.Match(data)
			return nil
		})
		if found {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the fleet's store under %s never held %s", state, re)
}

// waitForRef waits until the repository at dir has a ref under
// refs/rooda/ whose name ends with suffix.
func waitForRef(t *testing.T, dir, suffix string) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for time.Now().Before(deadline) {
		for _, ref := range strings.Fields(gitSays(t, dir, "for-each-ref", "--format=%(refname)", "refs/rooda/")) {
			if strings.HasSuffix(ref, suffix) {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s never had a ref ending %q", dir, suffix)
}

// pushGate is a git for a worker, first in its PATH, whose pushes of a
// branch (not a claim of the holder ref alone) wait at a gate, a
// directory: with a file "stop" there, the next such push stops itself
// (SIGSTOP) before git runs, its pid in "stopped", and writes git's exit
// code to "rc" once continued; while a file "closed" is there, such
// pushes wait for it to go. It stands for a worker paused in the middle
// of a push, and holds a taker's pushes back until the test lets them
// go: an order of events, not of times.
func pushGate(t *testing.T) (path, gate string) {
	t.Helper()
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	bin, gate := t.TempDir(), t.TempDir()
	script := `#!/bin/sh
gate="` + gate + `"
case " $* " in
*" push "*refs/heads/*)
	if [ -f "$gate/stop" ]; then
		rm -f "$gate/stop"
		echo $$ > "$gate/stopped.tmp" && mv "$gate/stopped.tmp" "$gate/stopped"
		kill -STOP $$
		"` + realGit + `" "$@"
		rc=$?
		echo $rc > "$gate/rc.tmp" && mv "$gate/rc.tmp" "$gate/rc"
		exit $rc
	fi
	while [ -f "$gate/closed" ]; do sleep 0.05; done
	;;
esac
exec "` + realGit + `" "$@"
`
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return "PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), gate
}

// waitForFile waits until the file at path exists, and returns what it
// holds, trimmed.
func waitForFile(t *testing.T, path string) string {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(path); err == nil {
			return strings.TrimSpace(string(data))
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s never came", path)
	return ""
}

// TestFleetWorkerPausedMidPushDoesNotWriteToTheRunItLost: worker-a, on
// its machine, pushes a run of a repository at the end of an iteration
// whose agent committed (by-a), and is paused right there (its git
// stopped, then the worker itself) past its lease. worker-b, on another
// machine, takes the run over and claims its holder ref; its own pushes
// are held back, so that worker-a's push comes first, before any of its
// taker's, when the branch on the remote is still where worker-a left
// it. That push is refused whole: the remote's branch never holds
// by-a. worker-a, continued, says the run lost and stops it, and the
// run is resumed from the store (by worker-b, or by worker-a from a
// clone made again: on the test's one machine, worker-b finds the
// record's rooda, worker-a's, alive, and gives the run back first); it
// runs iteration 2 again (by-b) and ends success, by-a nowhere on its
// branch.
func TestFleetWorkerPausedMidPushDoesNotWriteToTheRunItLost(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	starts := filepath.Join(w.dir, "starts")
	pathA, gateA := pushGate(t)
	pathB, gateB := pushGate(t)
	goFile := filepath.Join(t.TempDir(), "go")
	byA := commitStep("by-a.txt", "by-a")
	byA["shell"] = "while [ ! -f " + goFile + " ]; do sleep 0.05; done && " + byA["shell"].(string)
	byB := commitStep("by-b.txt", "by-b")
	byB["output"] = successSignal + "\n"
	byA["again"] = byB
	script, err := json.Marshal(map[string]any{"record": w.dir, "starts": starts, "steps": []step{
		commitStep("first.txt", "iteration-1"),
		byA,
		{"output": "still working", "delay": "60s"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	w.write("script.json", string(script))
	f := newFleet(t, w)
	remote := f.bareRemote()
	f.fleet("add", "--repo", remote, "--name", "fenced", "build", "-n", "3", "--ai-cmd", w.aiCmd())
	paused := f.workerWith("worker-a", []string{pathA}, "--lease", "2s", "--workspaces", filepath.Join(t.TempDir(), "machine-a"))
	t.Cleanup(func() {
		// A git left stopped by a test that failed midway.
		if pid, err := os.ReadFile(filepath.Join(gateA, "stopped")); err == nil {
			exec.Command("kill", "-CONT", strings.TrimSpace(string(pid))).Run()
		}
		paused.Process.Signal(syscall.SIGCONT)
	})
	// Iteration 2 began, its start pushed: worker-a's next push is the
	// one after its agent's commit.
	waitForLine(t, starts, "script.json 2")
	waitForRef(t, remote, "/start/2")
	for _, file := range []string{filepath.Join(gateA, "stop"), filepath.Join(gateB, "closed"), goFile} {
		if err := os.WriteFile(file, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pushPid := waitForFile(t, filepath.Join(gateA, "stopped"))
	if err := paused.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	taker := f.workerWith("worker-b", []string{pathB}, "--lease", "2s", "--workspaces", filepath.Join(t.TempDir(), "machine-b"))
	// By worker-b's name alone: at attempt 2, or 3 if worker-a lost its
	// lease before it was paused and took the run again.
	waitForHolder(t, remote, "rooda/fleet/fenced", fmt.Sprintf(":%d attempt ", taker.Process.Pid))

	if out, err := exec.Command("kill", "-CONT", pushPid).CombinedOutput(); err != nil {
		t.Fatalf("continuing worker-a's push: %v %s", err, out)
	}
	if rc := waitForFile(t, filepath.Join(gateA, "rc")); rc == "0" {
		t.Errorf("the push of worker-a, which lost the run, was accepted")
	}
	if log := gitSays(t, remote, "log", "--format=%s", "rooda/fleet/fenced"); strings.Contains(log, "by-a") {
		t.Errorf("the run's branch on the remote holds the commit of the worker that lost the run: %q", log)
	}

	os.Remove(filepath.Join(gateB, "closed"))
	if err := paused.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	st := f.waitEnded(1)[0]
	t.Logf("%s", f.workerLogs())
	if st.Status != "success" {
		t.Errorf("the run: %+v, want success", st)
	}
	// Continued, worker-a learns it lost the run from its refused push
	// or from its lease's renewal, whichever comes first: the push's
	// refusal is judged by a look at the remote's holder, which a
	// renewal that finds the lease lost may stop.
	if logs := f.workerLogs(); !strings.Contains(logs, "fenced: run lost, stopped: ") && !strings.Contains(logs, "fenced: lease lost, run stopped: ") {
		t.Errorf("worker-a did not say it lost the run")
	}
	if log := gitSays(t, remote, "log", "--format=%s", "rooda/fleet/fenced"); log != "by-b\niteration-1\nstart" {
		t.Errorf("the run's branch on the remote: %q, want worker-b's iteration 2 on iteration 1", log)
	}
}

// waitForHolder waits until the holder ref of the run whose branch is
// branch, on the repository at dir, is a commit whose message holds
// text.
func waitForHolder(t *testing.T, dir, branch, text string) {
	t.Helper()
	ref := "refs/rooda/fleet/" + strings.TrimPrefix(branch, "rooda/fleet/") + "/holder"
	deadline := time.Now().Add(hangGuard)
	for time.Now().Before(deadline) {
		out, err := exec.Command("git", "-C", dir, "log", "-1", "--format=%s", ref).Output()
		if err == nil && strings.Contains(string(out), text) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the holder of %s on %s never said %q", branch, dir, text)
}
