package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rooda/host/sandbox"
)

// killRooda is a shell line run by the fake agent that tries SIGKILL on
// rooda, its parent's parent (the shell's parent is the agent).
const killRooda = `kill -9 $(awk '{print $4}' /proc/$PPID/stat) 2>/dev/null && echo killed-rooda || echo kill-refused`

// TestSandboxConfinesWrites: under sandbox: workspace the agent writes
// in its workspace and its own TMPDIR, and not in $HOME, another
// directory, rooda's records or rooda's library cache (in ~/.cache,
// which it writes), which it does not even see; it holds no
// capability, even where rooda runs as root; it cannot kill rooda; and
// the run goes on to its end, its record saying what
// confined the agent.
func TestSandboxConfinesWrites(t *testing.T) {
	t.Parallel()
	needsLandlock(t, sandbox.SignalsABI, "the sandbox's test")
	w := newWorkspace(t)
	home, outside := t.TempDir(), t.TempDir()
	w.env = append(w.env, "HOME="+home, "XDG_CACHE_HOME=")
	must(t, os.Mkdir(filepath.Join(home, ".cache"), 0o755))
	line := `echo in > in.txt && echo tmp > "$TMPDIR/t" && echo tmp-ok; ` +
		`echo c > "$HOME/.cache/c" && echo cache-ok; ` +
		`(mkdir -p "$HOME/.cache/rooda/lib/0123" && echo planted > "$HOME/.cache/rooda/lib/0123/lib.star") 2>/dev/null || echo library-refused; ` +
		`(echo x > "$HOME/.cache/rooda/git/config") 2>/dev/null || echo mirror-refused; ` +
		`(echo home > "$HOME/home.txt") 2>/dev/null || echo home-refused; ` +
		`(echo out > ` + outside + `/out.txt) 2>/dev/null || echo out-refused; ` +
		`(echo x > .rooda/runs/x.txt) 2>/dev/null || echo records-refused; ` +
		`[ -d .rooda/runs ] && [ -z "$(ls -A .rooda/runs)" ] && echo records-hidden; ` +
		`grep -Eq '^CapEff:[[:space:]]+0+$' /proc/self/status && grep -Eq '^CapBnd:[[:space:]]+0+$' /proc/self/status && echo no-capabilities; ` + killRooda
	w.countStarts([]step{{"shell": line, "output": successSignal}})
	o := w.run("build", "-n", "1", "--sandbox", "workspace")
	o.expect(t, 0, "Success: the agent signaled SUCCESS")
	kept := readText(t, filepath.Join(w.runDir(), "iterations", "0001", "output.txt"))
	for _, want := range []string{"tmp-ok", "cache-ok", "library-refused", "mirror-refused", "home-refused", "out-refused", "records-refused", "records-hidden", "no-capabilities", "kill-refused"} {
		if !strings.Contains(kept, want) {
			t.Errorf("the agent's output lacks %s:\n%s", want, kept)
		}
	}
	if _, err := os.Stat(filepath.Join(w.dir, "in.txt")); err != nil {
		t.Errorf("the write in the workspace: %v", err)
	}
	for _, f := range []string{filepath.Join(home, "home.txt"), filepath.Join(outside, "out.txt"), filepath.Join(w.dir, ".rooda", "runs", "x.txt"),
		filepath.Join(home, ".cache", "rooda", "lib", "0123"), filepath.Join(home, ".cache", "rooda", "git", "config")} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("a write outside the sandbox went through: %s", f)
		}
	}
	var meta struct{ Sandbox sandbox.Spec }
	must(t, json.Unmarshal([]byte(readText(t, filepath.Join(w.runDir(), "iterations", "0001", "meta.json"))), &meta))
	if s := meta.Sandbox; s.Mode != "workspace" || s.ABI != sandbox.ABI() || !slices.Contains(s.Write, w.dir) || !slices.Contains(s.Hide, filepath.Join(w.dir, ".rooda", "runs")) {
		t.Errorf("meta.json's sandbox: %+v", s)
	}
}

// TestAgentCannotKillRooda: whatever sandbox says, the agent cannot
// signal rooda.
func TestAgentCannotKillRooda(t *testing.T) {
	t.Parallel()
	needsLandlock(t, sandbox.SignalsABI, "scoping signals")
	w := newWorkspace(t)
	w.countStarts([]step{{"shell": killRooda, "output": successSignal}})
	o := w.run("build", "-n", "1")
	o.expect(t, 0, "Success: the agent signaled SUCCESS")
	if kept := readText(t, filepath.Join(w.runDir(), "iterations", "0001", "output.txt")); !strings.Contains(kept, "kill-refused") {
		t.Errorf("the agent's output:\n%s", kept)
	}
}

// signalRoodaThreads tries each thread of rooda (the parent of the
// agent, the shell's parent) with signal 0, which
// the kernel checks against that thread: one in the agent's Landlock
// domain (the thread that started it) would answer, and could be sent
// SIGKILL or SIGSTOP, or be ptraced.
const signalRoodaThreads = `rooda=$(awk '{print $4}' /proc/$PPID/stat); for t in $(ls /proc/$rooda/task); do kill -0 $t 2>/dev/null && echo "signalled-thread-$t"; done; echo threads-tried`

// TestAgentCannotSignalAThreadOfRooda: whatever sandbox says, no thread
// of rooda is in reach of the agent's signals once it reads its prompt:
// the thread that started it confined (sandbox: off, and workspace for
// a root rooda) is gone by then.
func TestAgentCannotSignalAThreadOfRooda(t *testing.T) {
	t.Parallel()
	needsLandlock(t, sandbox.SignalsABI, "scoping signals")
	for _, mode := range []string{"off", "workspace"} {
		w := newWorkspace(t)
		w.countStarts([]step{{"shell": signalRoodaThreads, "output": successSignal}})
		w.run("build", "-n", "1", "--sandbox", mode).expect(t, 0, "Success: the agent signaled SUCCESS")
		kept := readText(t, filepath.Join(w.runDir(), "iterations", "0001", "output.txt"))
		if !strings.Contains(kept, "threads-tried") || strings.Contains(kept, "signalled-thread") {
			t.Errorf("sandbox: %s: the agent's output:\n%s", mode, kept)
		}
	}
}

// TestSandboxWithoutLandlock: sandbox: workspace on a kernel without
// Landlock fails before the first iteration, naming the kernel and the
// setting; best-effort runs, and says what it could not apply. On a
// kernel with too old a Landlock for sandbox_net, workspace fails as
// well, best-effort warns.
func TestSandboxWithoutLandlock(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": successSignal})
	w.env = append(w.env, "ROODA_SANDBOX_ABI=0")
	o := w.run("build", "-n", "1", "--sandbox", "workspace")
	o.expect(t, 1, "sandbox: workspace (cli: --sandbox) needs Landlock, which this kernel ("+sandbox.Kernel()+") does not offer")
	if w.ran(1) {
		t.Error("an agent ran")
	}
	w.run("build", "-n", "1", "--sandbox", "best-effort").expect(t, 0, "Success: the agent signaled SUCCESS",
		"WARN: Sandbox: not applied: this kernel ("+sandbox.Kernel()+") has no Landlock; the agent writes anywhere you may")
	w.env = append(w.env, "ROODA_SANDBOX_ABI=3")
	w.run("build", "-n", "1", "--sandbox", "workspace", "--sandbox-net", "443").expect(t, 1,
		"sandbox_net (cli: --sandbox-net) needs Landlock ABI 4, and this kernel ("+sandbox.Kernel()+") offers 3")
	w.run("build", "-n", "1", "--sandbox", "best-effort", "--sandbox-net", "443").expect(t, 0, "Success: the agent signaled SUCCESS",
		"WARN: Sandbox: not applied: sandbox_net, which needs Landlock ABI 4 (this kernel offers 3)",
		"WARN: Sandbox: not applied: the agent's signals and abstract unix sockets are not scoped to its own tree, which needs Landlock ABI 6 (this kernel offers 3)")
}

// runDir is the workspace's only run's record.
func (w *workspace) runDir() string {
	w.t.Helper()
	found, _ := filepath.Glob(filepath.Join(w.dir, ".rooda", "runs", "*", "run.json"))
	if len(found) != 1 {
		w.t.Fatalf("runs: %v", found)
	}
	return filepath.Dir(found[0])
}

// TestSandboxKeepsLoopsApart: of two loops in worktrees at once, one's
// agent can neither signal the other's agent (whose pid it is given) nor
// kill any rooda by name, whatever sandbox says; under sandbox:
// workspace, it can neither see nor write the other's worktree either.
// The other goes on to its end, and commits in its own worktree.
func TestSandboxKeepsLoopsApart(t *testing.T) {
	t.Parallel()
	needsLandlock(t, sandbox.SignalsABI, "the sandbox's test")
	for _, mode := range []string{"workspace", "off", "workspace through a link"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			keepsLoopsApart(t, mode)
		})
	}
}

// keepsLoopsApart runs the two loops under mode; "workspace through a
// link" is workspace in a checkout rooda is started in through a
// symbolic link, as git names the worktrees by their real paths.
func keepsLoopsApart(t *testing.T, mode string) {
	w := newRepoWorkspace(t)
	dir := w.repo
	if mode == "workspace through a link" {
		mode, dir = "workspace", filepath.Join(t.TempDir(), "link")
		must(t, os.Symlink(w.repo, dir))
	}
	// The fake agents keep their records apart from the repository, in a
	// directory the sandbox lets them write.
	rec := filepath.Join(w.dir, "rec")
	must(t, os.Mkdir(rec, 0o755))
	script := func(name string, s step) {
		data, _ := json.Marshal(map[string]any{"record": rec, "steps": []step{s}})
		w.write(name+".json", string(data))
	}
	script("b", step{"shell": `echo $PPID > ` + rec + `/b.pid; echo b > b.txt && git add b.txt && git commit -qm b && echo b-committed`, "delay": "2s", "output": successSignal})
	script("a", step{"shell": `for i in 1 2 3 4 5 6 7 8 9 10; do [ -s ` + rec + `/b.pid ] && break; sleep 0.2; done; ` +
		`kill -9 $(cat ` + rec + `/b.pid) 2>/dev/null && echo killed-b || echo kill-b-refused; ` +
		`[ -e ../b ] || echo b-hidden; (echo x > ../b/x.txt) 2>/dev/null || echo write-b-refused; ` +
		`pkill -9 -x rooda-apart 2>/dev/null && echo pkilled || echo pkill-refused`, "output": successSignal})
	w.write("apart.star", `trees = {"a": worktree("a"), "b": worktree("b")}

def task(name):
    return iterate(compose(name, act = [fragment(content = "Work.")]), agent = args[0], worktree = trees[name], max_iterations = 1).status

print("statuses:", parallel([(task, "a"), (task, "b")]))
print("merged:", git_merge(trees["b"]).merged)
`)
	// rooda under a name of this test's own: were the agent's pkill to
	// work, it would kill this rooda and no other.
	named := filepath.Join(w.dir, "rooda-apart")
	data, err := os.ReadFile(binary(t))
	must(t, err)
	must(t, os.WriteFile(named, data, 0o755))
	cmd := exec.Command(named, "script", "run", filepath.Join(w.dir, "apart.star"), "--sandbox", mode, "--sandbox-write", rec, "--", w.agentLine())
	cmd.Dir, cmd.Env = dir, append(w.env, "PWD="+dir)
	o := w.wait(w.start(cmd))
	o.expect(t, 0, `statuses: ["success", "success"]`, "merged: True")
	var a, b string
	for _, out := range globText(t, filepath.Join(w.repo, ".rooda", "runs", "*", "iterations", "*", "output.txt")) {
		if strings.Contains(out, "refused") || strings.Contains(out, "killed") {
			a = out
		} else {
			b = out
		}
	}
	// Its own worktree, bound back below the hidden worktrees, is b's to
	// commit in: the commit is on main, merged. (Its output names
	// b-committed even when the commit fails: in the fake agent's
	// complaint, which quotes the command.)
	if subjects := strings.Split(w.git("log", "--format=%s", "main"), "\n"); !slices.Contains(subjects, "b") {
		t.Errorf("the agent of loop b could not commit in its worktree: main's log %q\n%s", subjects, b)
	}
	wants := []string{"kill-b-refused", "pkill-refused"}
	if mode == "workspace" {
		wants = append(wants, "b-hidden", "write-b-refused")
	}
	for _, want := range wants {
		if !strings.Contains(a, want) {
			t.Errorf("the agent of loop a: lacks %s:\n%s", want, a)
		}
	}
}

// globText reads every file the pattern matches.
func globText(t *testing.T, pattern string) []string {
	t.Helper()
	found, _ := filepath.Glob(pattern)
	var texts []string
	for _, f := range found {
		texts = append(texts, readText(t, f))
	}
	return texts
}
