package cli

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
