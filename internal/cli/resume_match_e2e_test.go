package cli

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// matchRun is a repository workspace whose script runs one loop of five
// iterations of procedure p, its act phase the fragment "Do x.", killed
// (SIGKILL) in its second iteration.
func matchRun(t *testing.T) *repoWorkspace {
	w := newRepoWorkspace(t)
	w.agentScript("p", step{"delay": "100ms"}, step{"delay": "2s"}, step{}, step{}, step{"output": successSignal + "\n"})
	w.write("p.star", `res = iterate(compose("p", act = [fragment(content = "Do x.")]), agent = args[0], max_iterations = 5)
print("ended:", res.status)
`)
	w.killScriptAt("p.star", "Iteration 2/5 starting")
	return w
}

// prompts are the prompts the fake agents were last given, by iteration
// ("prompt-2.txt"): an iteration run again, after a kill that may come
// before or after its agent recorded, has one.
func (w *repoWorkspace) prompts() map[string]string {
	found, _ := filepath.Glob(filepath.Join(w.dir, "prompt-*.txt"))
	out := map[string]string{}
	for _, f := range found {
		out[filepath.Base(f)] = readText(w.t, f)
	}
	return out
}

// startedNone fails the test when the fake agents' prompts differ from
// before: a refused resume started an agent.
func (w *repoWorkspace) startedNone(before map[string]string) {
	w.t.Helper()
	if now := w.prompts(); !maps.Equal(now, before) {
		w.t.Fatalf("the refused resume started agents: prompts %v, before %v", slices.Sorted(maps.Keys(now)), slices.Sorted(maps.Keys(before)))
	}
}

// TestResumeRefusesAnEditedFragment: a fragment edited after the run was
// cut short changes what its loop would send, though not the call's
// name: the resume stops at that call, naming its line and the phase
// whose text changed, and starts no agent; --force goes on, says that
// the prompt changed, and the iterations left get the new prompt.
func TestResumeRefusesAnEditedFragment(t *testing.T) {
	t.Parallel()
	w := matchRun(t)
	script := readText(t, filepath.Join(w.dir, "p.star"))
	w.write("p.star", strings.Replace(script, "Do x.", "Do y.", 1))
	before := w.prompts()
	o := w.roodaIn(w.repo, "runs", "resume")
	if o.code != 1 || !strings.Contains(o.stderr, "p.star:1\n") || !strings.Contains(o.stderr, "Prompt (act phase): ") {
		t.Fatalf("resume with an edited fragment: exit %d\n%s", o.code, o.stderr)
	}
	w.startedNone(before)
	o = w.roodaIn(w.repo, "runs", "resume", "--force")
	o.expect(t, 0, "ended: success")
	if !strings.Contains(o.stderr, "(--force): Prompt (act phase): ") {
		t.Errorf("--force over an edited fragment does not say so:\n%s", o.stderr)
	}
	prompts := w.prompts()
	if len(prompts) != 5 || !strings.Contains(prompts["prompt-1.txt"], "Do x.") {
		t.Fatalf("after the forced resume: prompts %v, the first's %q", slices.Sorted(maps.Keys(prompts)), prompts["prompt-1.txt"])
	}
	for n := 2; n <= 5; n++ {
		if p := prompts[fmt.Sprintf("prompt-%d.txt", n)]; !strings.Contains(p, "Do y.") || strings.Contains(p, "Do x.") {
			t.Errorf("iteration %d's prompt after the forced resume is not the new one:\n%s", n, p)
		}
	}
}

// TestResumeRefusesAnotherBranch: a run cut short on main, resumed after
// the user checked out another branch, is refused, naming both
// branches, rather than go on there unsaid; --force goes on, saying so.
func TestResumeRefusesAnotherBranch(t *testing.T) {
	t.Parallel()
	w := matchRun(t)
	w.git("checkout", "-q", "-b", "user-experiment")
	before := w.prompts()
	o := w.roodaIn(w.repo, "runs", "resume")
	if o.code != 1 || !strings.Contains(o.stderr, "Git Branch: main recorded, user-experiment asked") {
		t.Fatalf("resume on another branch: exit %d\n%s", o.code, o.stderr)
	}
	w.startedNone(before)
	o = w.roodaIn(w.repo, "runs", "resume", "--force")
	o.expect(t, 0, "ended: success")
	if !strings.Contains(o.stderr, "(--force): Git Branch: main recorded, user-experiment asked") {
		t.Errorf("--force on another branch does not say so:\n%s", o.stderr)
	}
	if _, err := os.Stat(filepath.Join(w.repo, ".git")); err != nil {
		t.Fatal(err)
	}
}

// TestResumeOnTheBranchTheScriptSwitchedTo: a script whose run() checks
// out another branch before its loop is resumed on that branch without
// complaint: the branch compared is the one the loop began on, not the
// one rooda first saw.
func TestResumeOnTheBranchTheScriptSwitchedTo(t *testing.T) {
	t.Parallel()
	w := newRepoWorkspace(t)
	w.agentScript("p", step{"delay": "100ms"}, step{"delay": "2s"}, step{"output": successSignal + "\n"})
	w.write("p.star", `run("git checkout -q -b feature")
res = iterate(compose("p", act = [fragment(content = "Do x.")]), agent = args[0], max_iterations = 3)
print("ended:", res.status)
`)
	w.killScriptAt("p.star", "Iteration 2/3 starting")
	o := w.roodaIn(w.repo, "runs", "resume")
	o.expect(t, 0, "ended: success")
	if strings.Contains(o.stderr, "Git Branch") {
		t.Errorf("the resume on the script's own branch names a branch change:\n%s", o.stderr)
	}
}

// TestResumeRefusesAMovedHead: a run stopped between iterations, whose
// workspace got a commit from someone else since, is refused at the
// first iteration it would run, naming the commit the last one ended on
// and the one now, and starts no agent; --force goes on from it, saying
// so. The script's agent function holds the run between iterations 1
// and 2 (a run() that waits for a file), where it is killed.
func TestResumeRefusesAMovedHead(t *testing.T) {
	t.Parallel()
	w := newRepoWorkspace(t)
	commit := `echo "$ROODA_ITERATION" >> log.txt && git add log.txt && git commit -qm "iteration $ROODA_ITERATION"`
	w.agentScript("p", step{"shell": commit}, step{"shell": commit}, step{"output": successSignal + "\n"})
	w.write("p.star", `def pick(n):
    if n == 2:
        run("touch waiting; test -e go-on || sleep 60")
    return args[0]

res = iterate(compose("p", act = [fragment(content = "Do x.")]), agent = pick, max_iterations = 3)
print("ended:", res.status)
`)
	cmd := exec.Command(binary(t), "script", "run", filepath.Join(w.dir, "p.star"), "--", w.agentLine())
	cmd.Dir, cmd.Env = w.repo, w.env
	s := w.start(cmd)
	waitFor(t, "the script never reached iteration 2", func() bool {
		_, err := os.Stat(filepath.Join(w.repo, "waiting"))
		return err == nil
	})
	s.cmd.Process.Signal(syscall.SIGKILL)
	killedWait(t, s)
	w.noSurvivorsQuietly()
	if err := os.WriteFile(filepath.Join(w.repo, "go-on"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	w.git("commit", "-q", "--allow-empty", "-m", "the user's")
	before := w.prompts()
	o := w.roodaIn(w.repo, "runs", "resume")
	if o.code != 1 || !strings.Contains(o.stderr, "cannot resume at iteration 2: HEAD moved since iteration 1 ended: ") {
		t.Fatalf("resume with HEAD moved: exit %d\n%s", o.code, o.stderr)
	}
	w.startedNone(before)
	o = w.roodaIn(w.repo, "runs", "resume", "--force")
	o.expect(t, 0, "ended: success")
	if !strings.Contains(o.stderr, "HEAD moved since iteration 1 ended: ") || !strings.Contains(o.stderr, "going on from it (--force)") {
		t.Errorf("--force over a moved HEAD does not say so:\n%s", o.stderr)
	}
}
