package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// repoWorkspace is a workspace whose rooda runs in a git repository (the
// "repo" directory) with one commit, and whose fake agents follow a
// script per task: the agent line runs DIR/<procedure>.json, so that each
// loop of parallel() (its procedure named after its task) gets its own.
type repoWorkspace struct {
	*workspace
	repo string
}

func newRepoWorkspace(t *testing.T) *repoWorkspace {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	w := &repoWorkspace{workspace: newWorkspace(t, step{})}
	w.repo = filepath.Join(w.dir, "repo")
	w.env = append(w.env, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.org", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.org")
	must(t, os.Mkdir(w.repo, 0o755))
	w.git("init", "--quiet", "-b", "main")
	w.git("commit", "--quiet", "--allow-empty", "-m", "first")
	return w
}

// git runs git in the repository and returns what it printed.
func (w *repoWorkspace) git(args ...string) string {
	w.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = w.repo, w.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		w.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// task writes the fake agent's script of a task: it records its pid and
// its running interval, writes file in its working directory and signals
// SUCCESS after delay.
func (w *repoWorkspace) task(name, file, delay string) {
	w.t.Helper()
	data, _ := json.Marshal(map[string]any{"record": w.dir, "steps": []step{{
		"output": "<promise>SUCCESS</promise>\n", "delay": delay, "write": file, "times": w.timesFile(),
	}}})
	w.write(name+".json", string(data))
}

// tasks writes the scripts of the example's three tasks, each writing
// <task>.txt and signalling SUCCESS after delay.
func (w *repoWorkspace) tasks(delay string) {
	w.t.Helper()
	for _, name := range []string{"task-a", "task-b", "task-c"} {
		w.task(name, name+".txt", delay)
	}
}

func (w *repoWorkspace) timesFile() string { return filepath.Join(w.dir, "times") }

// agentLine runs the fake agent with the script of the loop's procedure.
func (w *repoWorkspace) agentLine() string {
	return "sh -c 'exec " + filepath.Join(binaries(w.t), "fakeagent") + " " + w.dir + "/$ROODA_PROCEDURE.json'"
}

// example starts the parallel example with the fake agents on the tasks
// task-a, task-b and task-c; the tests pass where no broken.txt was
// written. more are rooda's own flags (--dry-run).
func (w *repoWorkspace) example(maxParallel string, more ...string) started {
	w.t.Helper()
	w.taskFiles("task-a", "task-b", "task-c")
	script, _ := filepath.Abs(filepath.Join("..", "..", "scripts", "examples", "parallel_tasks.star"))
	args := append(append([]string{"script", "run", script}, more...), "--", "--agent", w.agentLine(), "--tests", "test ! -e broken.txt", "--max-parallel", maxParallel)
	cmd := exec.Command(binary(w.t), args...)
	cmd.Dir, cmd.Env = w.repo, w.env
	return w.start(cmd)
}

// taskFiles commits the example's task files, tasks/NAME.md, unless they
// are there.
func (w *repoWorkspace) taskFiles(names ...string) {
	w.t.Helper()
	must(w.t, os.MkdirAll(filepath.Join(w.repo, "tasks"), 0o755))
	for _, name := range names {
		path := filepath.Join(w.repo, "tasks", name+".md")
		if _, err := os.Stat(path); err == nil {
			return
		}
		must(w.t, os.WriteFile(path, []byte("Do "+name+".\n"), 0o644))
	}
	w.git("add", "tasks")
	w.git("commit", "--quiet", "-m", "tasks")
}

// interval is when one agent ran, and where.
type interval struct {
	start, end int64
	dir        string
}

func (w *repoWorkspace) intervals() []interval {
	w.t.Helper()
	data, err := os.ReadFile(w.timesFile())
	if err != nil {
		w.t.Fatalf("no agent recorded its times: %v", err)
	}
	var out []interval
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(line)
		start, _ := strconv.ParseInt(f[0], 10, 64)
		end, _ := strconv.ParseInt(f[1], 10, 64)
		out = append(out, interval{start, end, f[2]})
	}
	return out
}

// overlapAll reports whether every agent was running at one moment: the
// latest start comes before the earliest end.
func overlapAll(in []interval) bool {
	latestStart, earliestEnd := in[0].start, in[0].end
	for _, i := range in {
		latestStart, earliestEnd = max(latestStart, i.start), min(earliestEnd, i.end)
	}
	return latestStart < earliestEnd
}

// anyOverlap reports whether two agents ever ran at once.
func anyOverlap(in []interval) bool {
	for i := range in {
		for j := range in {
			if i != j && in[i].start < in[j].end && in[j].start < in[i].end {
				return true
			}
		}
	}
	return false
}

// noWorktreesLeft fails the test if a worktree of a run or a rooda/
// branch is left in the repository.
func (w *repoWorkspace) noWorktreesLeft() {
	w.t.Helper()
	if list := w.git("worktree", "list"); strings.Count(list, "\n") > 0 {
		w.t.Errorf("worktrees left:\n%s", list)
	}
	if branches := w.git("branch", "--list", "rooda/*"); branches != "" {
		w.t.Errorf("branches left:\n%s", branches)
	}
	entries, _ := os.ReadDir(filepath.Join(w.repo, ".rooda", "worktrees"))
	for _, e := range entries {
		if e.IsDir() {
			w.t.Errorf("a run's worktree directory is left: %s", e.Name())
		}
	}
}

// TestParallelExample: the example runs three loops at once in worktrees
// of a repository — the three agents' running times overlap — merges the
// two whose tests pass, reports the third, and leaves no worktree and no
// branch.
func TestParallelExample(t *testing.T) {
	t.Parallel()
	w := newRepoWorkspace(t)
	w.task("task-a", "a.txt", "1s")
	w.task("task-b", "b.txt", "1s")
	w.task("task-c", "broken.txt", "1s")
	o := w.wait(w.example("0"))
	o.expect(t, 0, "not merged: task-c: its tests failed", "merged 2 of 3 tasks: task-a, task-b\n",
		"[task-a] Iteration 1/5 starting", "[task-c] Success: the agent signaled SUCCESS")
	in := w.intervals()
	if len(in) != 3 || !overlapAll(in) {
		t.Errorf("the three agents did not run at once: %+v", in)
	}
	for _, i := range in {
		if !strings.Contains(i.dir, filepath.Join(".rooda", "worktrees")) {
			t.Errorf("an agent ran in %s, not in a worktree", i.dir)
		}
	}
	for file, want := range map[string]bool{"a.txt": true, "b.txt": true, "broken.txt": false} {
		if _, err := os.Stat(filepath.Join(w.repo, file)); (err == nil) != want {
			t.Errorf("%s on the main branch: %v, want %v", file, err == nil, want)
		}
	}
	if log := w.git("log", "--oneline", "main"); !strings.Contains(log, "task-a:") || !strings.Contains(log, "task-b:") || strings.Contains(log, "task-c:") {
		t.Errorf("main's history:\n%s", log)
	}
	w.noWorktreesLeft()
	w.oneRecordOfThreeLoops()
	if st := w.git("status", "--porcelain"); st != "" {
		t.Errorf("the main checkout is not clean:\n%s", st)
	}
}

// TestParallelExampleDryRun: the example's dry run lists the tasks with
// git ls-files, which it marks safe and so runs, and reports a loop for
// each task file, one after another; no agent starts and no worktree is
// made.
func TestParallelExampleDryRun(t *testing.T) {
	t.Parallel()
	w := newRepoWorkspace(t)
	w.tasks("1s")
	o := w.wait(w.example("0", "--dry-run"))
	o.expect(t, 0, "[dry-run] running, as it is safe: git ls-files 'tasks/*.md'\n", "merged 0 of 3 tasks: none\n")
	for _, want := range []string{"=== Dry-Run: task-a ===\n", "=== Dry-Run: task-b ===\n", "=== Dry-Run: task-c ===\n", "Do task-b.\n", "=== Dry-run of the script: 3 loops reported ===\n"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("the dry run lacks %q:\n%s", want, o.stdout)
		}
	}
	if strings.Contains(o.stdout, "Placeholders") {
		t.Errorf("the dry run made up what it ran:\n%s", o.stdout)
	}
	if pids := w.recordedPids(); len(pids) != 0 {
		t.Errorf("agents started in a dry run: %v", pids)
	}
	w.noWorktreesLeft()
}

// TestParallelOneAtATime: with max_parallel = 1 the loops run one after
// another.
func TestParallelOneAtATime(t *testing.T) {
	t.Parallel()
	w := newRepoWorkspace(t)
	w.tasks("300ms")
	o := w.wait(w.example("1"))
	o.expect(t, 0, "merged 3 of 3 tasks: task-a, task-b, task-c\n")
	if in := w.intervals(); len(in) != 3 || anyOverlap(in) {
		t.Errorf("the agents overlapped under max_parallel = 1: %+v", in)
	}
	if strings.Contains(o.stderr, "] [task-a] ") {
		t.Errorf("a loop that runs alone is named on its lines:\n%s", o.stderr)
	}
	w.noWorktreesLeft()
}

// TestParallelInterrupt: Ctrl+C while the agents work stops every loop
// and every agent, exit 130; the worktree of each agent that had written
// its file is kept, and named, for the run was cut short before the
// script could merge it; under max_parallel = 1 the functions still
// queued never start, and leave nothing.
func TestParallelInterrupt(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		maxParallel string
		agents      int
	}{{"0", 3}, {"1", 1}} {
		t.Run("max_parallel="+c.maxParallel, func(t *testing.T) {
			t.Parallel()
			w := newRepoWorkspace(t)
			w.tasks("30s")
			s := w.example(c.maxParallel)
			w.waitForPids(c.agents)
			s.cmd.Process.Signal(syscall.SIGINT)
			o := w.wait(s)
			if o.code != 130 {
				t.Errorf("exit code %d, want 130\n%s", o.code, o.stderr)
			}
			// Stopped, not left to end: an agent that ran out its pause
			// writes its times. (The run's duration is no measure: under
			// load its worktrees take seconds to make.)
			if times, _ := os.ReadFile(w.timesFile()); len(times) > 0 {
				t.Errorf("agents ran to their end: %s\n%s", times, o.stderr)
			}
			if pids := w.recordedPids(); len(pids) != c.agents {
				t.Errorf("agents started: %v, want %d", pids, c.agents)
			}
			w.noSurvivors()
			kept := strings.Count(o.stderr, " (the run was cut short and it holds uncommitted changes): ")
			left, _ := filepath.Glob(filepath.Join(w.repo, ".rooda", "worktrees", "*", "task-*", "task-*.txt"))
			if kept != c.agents || len(left) != c.agents {
				t.Errorf("%d worktrees named kept, %d holding their agent's file; want %d\n%s", kept, len(left), c.agents, o.stderr)
			}
		})
	}
}

// TestParallelAfterKill: rooda killed (-9) in the middle leaves its
// worktrees; the next run removes them, as their agents had done nothing
// there yet (TestKilledRunKeepsWork keeps what holds work), and runs, and
// touches nothing else below .rooda/worktrees nor another branch.
func TestParallelAfterKill(t *testing.T) {
	t.Parallel()
	w := newRepoWorkspace(t)
	for _, name := range []string{"task-a", "task-b", "task-c"} {
		w.agentScript(name, step{"delay": "30s"})
	}
	// Without a record: a run that can be resumed keeps its worktrees
	// whole for its resume (TestResumeKeepsWorktrees).
	s := w.example("0", "--no-record")
	w.waitForPids(3)
	s.cmd.Process.Kill()
	w.wait(s)
	// The agents, in process groups of their own, outlive a rooda killed
	// with SIGKILL: nothing could stop them. The test does.
	w.noSurvivorsQuietly()
	runs, _ := os.ReadDir(filepath.Join(w.repo, ".rooda", "worktrees"))
	var dead string
	for _, e := range runs {
		if e.IsDir() {
			dead = e.Name()
		}
	}
	if dead == "" {
		t.Fatal("the killed run left no worktrees: nothing to prune")
	}
	mine := filepath.Join(w.repo, ".rooda", "worktrees", "notes.txt")
	must(t, os.WriteFile(mine, []byte("mine\n"), 0o644))
	w.git("branch", "mine")

	w.write("pids", "")
	w.tasks("10ms")
	o := w.wait(w.example("0"))
	o.expect(t, 0, "removed 3 worktree(s) of 1 run(s) that ended without removing them: ["+dead+"]", "merged 3 of 3 tasks: task-a, task-b, task-c\n")
	w.noWorktreesLeft()
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("a file beside the dead run's directory is gone: %v", err)
	}
	if !slices.Contains(strings.Fields(w.git("branch", "--list")), "mine") {
		t.Error("a branch not the dead run's is gone")
	}
}

// noSurvivorsQuietly kills what the fake agents left, without failing.
func (w *repoWorkspace) noSurvivorsQuietly() {
	data, _ := os.ReadFile(filepath.Join(w.dir, "pids"))
	for _, field := range strings.Fields(string(data)) {
		if pid, _ := strconv.Atoi(field); alive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// TestParallelFrozenValues: a function parallel() runs cannot change a
// list the script shares with it: a clear Starlark error at the line, not
// a race. (A change in the function's own body is told before it starts:
// TestParallelSharedChangeBeforeAnAgent; here a helper it calls makes it.)
func TestParallelFrozenValues(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.write("main.star", `seen = []

def work(n):
    note(n)
    return n

def note(n):
    seen.append(n)

print(parallel([(work, 1), (work, 2)]))
`)
	cmd := exec.Command(binary(t), "script", "run", "main.star")
	cmd.Dir, cmd.Env = w.dir, w.env
	o := w.wait(w.start(cmd))
	// Both fail, and each is named with its own traceback; the hint once.
	o.expect(t, 1, "parallel(): function 1 (work) failed", "parallel(): function 2 (work) failed", "main.star:8:16: in note", "cannot append to frozen list",
		"Hint: a function parallel() runs shares every value it can reach with the others, frozen")
	if n := strings.Count(o.stderr, "main.star:8:16: in note"); n != 2 {
		t.Errorf("%d tracebacks for two functions that failed:\n%s", n, o.stderr)
	}
	if n := strings.Count(o.stderr, "Hint: a function parallel() runs"); n != 1 {
		t.Errorf("the hint %d times:\n%s", n, o.stderr)
	}
	if strings.Contains(o.stderr, "a module's values are frozen") {
		t.Errorf("the hint for a loaded module's values, for a function parallel() ran:\n%s", o.stderr)
	}
}

// TestParallelSharedChangeBeforeAnAgent: a function parallel() runs
// whose body changes a list of the script fails at the parallel() call,
// naming the list and the line, before any agent runs, and script check
// says so too.
func TestParallelSharedChangeBeforeAnAgent(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": successSignal})
	w.write("main.star", `results = []

def work(name):
    r = iterate(compose(name, act = [fragment(content = "Work.")]), max_iterations = 1)
    results.append(r.status)
    return r

parallel([(work, "a"), (work, "b")])
`)
	w.runScript("main.star", "--ai-cmd", w.aiCmd()).expect(t, 1, "main.star:8:9: in <toplevel>",
		"Error in parallel: fns[0]: def work changes results (results.append(…) at main.star:5:5), which parallel() shares with every function it runs and freezes before they start: the change would fail there, after its agents ran.")
	if w.ran(1) {
		t.Error("an agent ran before the change failed")
	}
	w.rooda("script", "check", "main.star").expect(t, 1, "Error: main.star:5:5: results.append(…) changes results, which parallel() (line 8) shares")
}

// TestParallelCostBudgetShared: loops that run at once spend one budget:
// max_cost_usd counts what the others spend as they go, so the run ends
// near the limit (each loop alone would take six iterations to reach it,
// eighteen together), exit 2.
func TestParallelCostBudgetShared(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": transcript(t, "claude-stream-json", "prompt_echo_in_tool_result"), "delay": "150ms"})
	w.write("rooda-config.yml", "ai_cmd_aliases:\n  fake: {cmd: \""+w.aiCmd()+"\", output: claude-stream-json}\nloop:\n  ai_cmd_alias: fake\n")
	w.write("main.star", `def work():
    return iterate(compose("p", act = [fragment(content = "Work.")]), max_iterations = 10).iterations

print(parallel([work, work, work]))
`)
	cmd := exec.Command(binary(t), "script", "run", "main.star", "--max-cost-usd", "0.00045")
	cmd.Dir, cmd.Env = w.dir, w.env
	o := w.wait(w.start(cmd))
	o.expect(t, 2, "reaching max_cost_usd $0.00045")
	var run struct{ Iterations int }
	found, _ := filepath.Glob(filepath.Join(w.dir, ".rooda", "runs", "*", "run.json"))
	if len(found) != 1 {
		t.Fatalf("run.json: %v", found)
	}
	data := readText(t, found[0])
	json.Unmarshal([]byte(data), &run)
	// About 6 iterations reach the limit; loops that finish an iteration
	// at the same moment may each take one more.
	if run.Iterations < 5 || run.Iterations > 9 {
		t.Errorf("the run took %d iterations, want 5 to 9 under the shared budget\n%s", run.Iterations, o.stderr)
	}
}

// TestParallelStepBudget: each function of parallel() has its own step
// budget, --max-steps: two that take some 30000 steps each both finish
// under 50000 (as one thread, one after the other, they would not), and
// one that runs out of it ends the run as the budget does, exit 2.
func TestParallelStepBudget(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.write("each.star", `def spin(k):
    n = 0
    for i in range(k):
        n += i
    return n

print(parallel([(spin, 3000), (spin, 3000)]))
`)
	cmd := exec.Command(binary(t), "script", "run", "each.star", "--max-steps", "50000")
	cmd.Dir, cmd.Env = w.dir, w.env
	w.wait(w.start(cmd)).expect(t, 0, "[4498500, 4498500]")

	w.write("main.star", `def spin():
    n = 0
    for i in range(100000):
        n += i
    return n

def short():
    return 1

print(parallel([spin, short]))
`)
	cmd = exec.Command(binary(t), "script", "run", "main.star", "--max-steps", "50000")
	cmd.Dir, cmd.Env = w.dir, w.env
	o := w.wait(w.start(cmd))
	o.expect(t, 2, "parallel(): function 1 (spin) failed:", "main.star:3:5: in spin", "the run reached its budget of 50000 Starlark steps (--max-steps)")
}

// oneRecordOfThreeLoops checks the run's one record: three loops, each
// ended with success, and three iterations numbered 1 to 3 across them,
// each naming its own loop.
func (w *repoWorkspace) oneRecordOfThreeLoops() {
	w.t.Helper()
	runs, _ := filepath.Glob(filepath.Join(w.repo, ".rooda", "runs", "*", "run.json"))
	if len(runs) != 1 {
		w.t.Fatalf("records: %v", runs)
	}
	var run struct {
		Iterations int
		Loops      []struct{ Status string }
	}
	data := readText(w.t, runs[0])
	json.Unmarshal([]byte(data), &run)
	if run.Iterations != 3 || len(run.Loops) != 3 {
		w.t.Fatalf("run.json: %d iterations, %d loops\n%s", run.Iterations, len(run.Loops), data)
	}
	loops := map[float64]bool{}
	for n := 1; n <= 3; n++ {
		var meta map[string]any
		data, err := os.ReadFile(filepath.Join(filepath.Dir(runs[0]), "iterations", "000"+strconv.Itoa(n), "meta.json"))
		if err != nil || json.Unmarshal(data, &meta) != nil {
			w.t.Fatalf("meta.json of record %d: %v", n, err)
		}
		loops[meta["loop"].(float64)] = true
	}
	if len(loops) != 3 {
		w.t.Errorf("the three iterations name loops %v, want three loops", loops)
	}
	for i, l := range run.Loops {
		if l.Status != "success" {
			w.t.Errorf("loop %d: %q", i+1, l.Status)
		}
	}
}
