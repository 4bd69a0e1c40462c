package cli

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"rooda/host/journal"
	"rooda/internal/golden"
)

// claudeTurn is what the fake agent prints as claude's stream-json: text
// said, and a result with its cost and tokens.
func claudeTurn(text string, cost float64, in, out int) string {
	usage := map[string]any{"input_tokens": in, "output_tokens": out, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
	lines := []map[string]any{
		{"type": "assistant", "message": map[string]any{"model": "claude-test", "role": "assistant", "content": []any{map[string]any{"type": "text", "text": text}}}},
		{"type": "result", "subtype": "success", "is_error": false, "result": text, "total_cost_usd": cost, "usage": usage},
	}
	var b strings.Builder
	for _, l := range lines {
		data, _ := json.Marshal(l)
		b.Write(data)
		b.WriteByte('\n')
	}
	return b.String()
}

// durableSteps are a loop's turns for the crash tests: work that
// continues, a FAILURE, a failed exit, and SUCCESS last, each with what it
// spent, each taking a moment in which rooda may be killed.
func durableSteps(turns int, delay string) []step {
	var steps []step
	for i := 1; i <= turns; i++ {
		text, exit := fmt.Sprintf("working on part %d", i), 0
		switch {
		case i == turns:
			text = "all done <promise>SUCCESS</promise>"
		case i%3 == 2:
			text = "this part failed <promise>FAILURE</promise>"
		case i%3 == 0:
			exit = 1
		}
		steps = append(steps, step{"output": claudeTurn(text, 0.001*float64(i), 100*i, 10*i), "delay": delay, "exit": exit})
	}
	return steps
}

// durableRun is one trial: a workspace, the command that starts the run,
// and where its agents count their starts.
type durableRun struct {
	w    *workspace
	args []string
}

// newDurableYAML is a YAML run of six turns under a claude-stream-json
// alias.
func newDurableYAML(t *testing.T) durableRun {
	w := newWorkspace(t)
	w.countStarts(durableSteps(6, "120ms"))
	w.write("rooda-config.yml", "ai_cmd_aliases:\n  fake: {cmd: \""+w.aiCmd()+"\", output: claude-stream-json}\nloop:\n  ai_cmd_alias: fake\n")
	return durableRun{w: w, args: []string{"run", "build", "-n", "8", "--failure-threshold", "3"}}
}

// countStarts has the workspace's fake agent follow steps and count its
// starts in the file "starts" (durableRun.starts reads it).
func (w *workspace) countStarts(steps []step) {
	data, _ := json.Marshal(map[string]any{"record": w.dir, "starts": filepath.Join(w.dir, "starts"), "steps": steps})
	w.write("script.json", string(data))
}

// newDurableBudget is a YAML run that its token budget ends, in the
// middle of its turns: the budget counts what was spent before the kill.
func newDurableBudget(t *testing.T) durableRun {
	d := newDurableYAML(t)
	d.args = append(d.args, "--max-tokens", "1500")
	return d
}

// newDurableScript is a script of two loops one after the other, then a
// parallel() of two, each loop with its own agent (alias fa … fd), and a
// run() and a getenv() between them.
func newDurableScript(t *testing.T) durableRun {
	w := newWorkspace(t, step{})
	config := "ai_cmd_aliases:\n"
	for i, name := range []string{"fa", "fb", "fc", "fd"} {
		data, _ := json.Marshal(map[string]any{"record": w.dir, "starts": filepath.Join(w.dir, "starts"), "steps": durableSteps(2+i%2, "80ms")})
		w.write(name+".json", string(data))
		config += fmt.Sprintf("  %s: {cmd: \"%s %s\", output: claude-stream-json}\n", name, filepath.Join(binaries(t), "fakeagent"), filepath.Join(w.dir, name+".json"))
	}
	w.write("rooda-config.yml", config)
	w.write("main.star", `build = procedure("build")
first = iterate(build, agent = agent("fa"), max_iterations = 4)
run("echo between >> between.txt")
second = iterate(build, agent = agent("fb"), max_iterations = 4)
who = getenv("USER", "nobody")

def task(name):
    return iterate(build, agent = agent(name), max_iterations = 4).status

both = parallel([(task, "fc"), (task, "fd")])
print("ended:", first.status, second.status, both)
`)
	return durableRun{w: w, args: []string{"script", "run", "main.star"}}
}

func (d durableRun) start() started {
	cmd := exec.Command(binary(d.w.t), d.args...)
	cmd.Dir, cmd.Env = d.w.dir, d.w.env
	return d.w.start(cmd)
}

func (d durableRun) rooda(args ...string) outcome {
	cmd := exec.Command(binary(d.w.t), args...)
	cmd.Dir, cmd.Env = d.w.dir, d.w.env
	return d.w.wait(d.w.start(cmd))
}

// ending is how a run ended, as its record says: what must be the same
// whether it was cut short and resumed or not.
type ending struct {
	Status     string `json:"status"`
	ExitCode   *int   `json:"exit_code"`
	Iterations int    `json:"iterations"`
	Spent      *struct {
		InputTokens  int64    `json:"input_tokens"`
		OutputTokens int64    `json:"output_tokens"`
		CostUSD      *float64 `json:"cost_usd"`
	} `json:"spent"`
}

func (e ending) String() string {
	data, _ := json.Marshal(e)
	return string(data)
}

// recorded is the run's record, the only one of the workspace; "" when
// none was made yet.
func (d durableRun) recorded() (dir string, e ending) {
	found, _ := filepath.Glob(filepath.Join(d.w.dir, ".rooda", "runs", "*", "run.json"))
	if len(found) == 0 {
		return "", e
	}
	if len(found) > 1 {
		d.w.t.Fatalf("more than one run: %v", found)
	}
	must(d.w.t, json.Unmarshal([]byte(readText(d.w.t, found[0])), &e))
	return filepath.Dir(found[0]), e
}

// starts counts how often each iteration's agent started, by script
// ("fa.json 2").
func (d durableRun) starts() map[string]int {
	counts := map[string]int{}
	data, err := os.ReadFile(filepath.Join(d.w.dir, "starts"))
	if err != nil && !os.IsNotExist(err) {
		d.w.t.Fatal(err)
	}
	for _, line := range strings.Fields(strings.ReplaceAll(string(data), " ", "_")) {
		counts[line]++
	}
	return counts
}

// tearJournal cuts the journal inside its last entry, as a crash in the
// middle of its write leaves it.
func tearJournal(t *testing.T, runDir string, rnd *rand.Rand) {
	path := filepath.Join(runDir, journal.Name)
	data, err := os.ReadFile(path)
	if err != nil || len(data) < 2 {
		return
	}
	last := strings.LastIndexByte(string(data[:len(data)-1]), '\n') + 1
	cut := last + 1 + rnd.IntN(len(data)-last-1)
	must(t, os.Truncate(path, int64(cut)))
}

// TestResumeAfterKill: a run killed outright (SIGKILL) at a random
// moment — before its record, mid-iteration, between iterations, with
// its journal torn in the middle of an entry — or now and then stopped by
// SIGTERM, and then resumed, ends as the same run not killed: the same
// status, exit code, iterations and spend. No iteration that ended runs
// its agent again; at most the one in flight (or the one whose end the
// torn entry lost) runs twice, in each loop; and no agent is left
// running. For a YAML run, one its token budget ends, and a script of two
// loops, a run() and a parallel() of two.
func TestResumeAfterKill(t *testing.T) {
	t.Parallel()
	for _, kind := range []struct {
		name   string
		new    func(*testing.T) durableRun
		trials int
		fixed  []killPoint
	}{{"yaml", newDurableYAML, 24, yamlKillPoints(6)}, {"budget", newDurableBudget, 8, yamlKillPoints(5)}, {"script", newDurableScript, 24, scriptKillPoints()}} {
		t.Run(kind.name, func(t *testing.T) {
			t.Parallel()
			ref := kind.new(t)
			began := time.Now()
			want := ref.w.wait(ref.start())
			took := time.Since(began)
			_, wantEnd := ref.recorded()
			if wantEnd.Spent == nil || wantEnd.Iterations == 0 {
				t.Fatalf("the run not killed: %s\n%s", wantEnd, want.stderr)
			}
			seed := time.Now().UnixNano()
			t.Logf("uninterrupted: %s in %s; seed %d", wantEnd, took.Round(time.Millisecond), seed)
			rnd := rand.New(rand.NewPCG(uint64(seed), 1))
			// The fixed points first: the same each time, so that a
			// failure at one of them is seen again at once.
			for _, at := range kind.fixed {
				t.Run(strings.ReplaceAll(at.String(), "/", " of "), func(t *testing.T) {
					resumeAfterKill(t, kind.new(t), at, syscall.SIGKILL, at.tear, rand.New(rand.NewPCG(uint64(seed), 0)), wantEnd, want.code)
				})
			}
			for i := range kind.trials {
				at := killPoint{delay: time.Duration(rnd.Int64N(int64(took * 11 / 10)))}
				// Mostly SIGKILL, the journal torn in a third of those;
				// a SIGTERM now and then, which ends the run interrupted.
				sig, tear := syscall.SIGKILL, rnd.IntN(3) == 0
				if rnd.IntN(5) == 0 {
					sig, tear = syscall.SIGTERM, false
				}
				t.Run(fmt.Sprint(i), func(t *testing.T) {
					resumeAfterKill(t, kind.new(t), at, sig, tear, rand.New(rand.NewPCG(uint64(seed), uint64(i))), wantEnd, want.code)
				})
			}
		})
	}
}

// killPoint is when a trial of TestResumeAfterKill kills its run: after
// a delay, or when its log has said text n times (an iteration starting,
// one ended), which no machine's speed moves.
type killPoint struct {
	delay time.Duration
	text  string
	n     int
	// tear cuts the journal inside its last entry after the kill.
	tear bool
}

func (k killPoint) String() string {
	if k.text == "" {
		return k.delay.String()
	}
	s := fmt.Sprintf("%s #%d", k.text, k.n)
	if k.tear {
		s += ", journal torn"
	}
	return s
}

// wait returns when it is time to kill the run s.
func (k killPoint) wait(t *testing.T, s started) {
	if k.text == "" {
		time.Sleep(k.delay)
		return
	}
	for deadline := time.Now().Add(hangGuard); strings.Count(s.stderr.String(), k.text) < k.n; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the run never said %q %d times:\n%s", k.text, k.n, s.stderr.String())
		}
	}
}

// yamlKillPoints are the fixed points of a YAML run of turns iterations:
// at once, as each iteration starts, as the third ends, and as the
// second starts with the journal torn.
func yamlKillPoints(turns int) []killPoint {
	points := []killPoint{{delay: 0}, {text: "Iteration 3/8 completed", n: 1}, {text: "Iteration 2/8 starting", n: 1, tear: true}}
	for i := 1; i <= turns; i++ {
		points = append(points, killPoint{text: fmt.Sprintf("Iteration %d/8 starting", i), n: 1})
	}
	return points
}

// scriptKillPoints are newDurableScript's fixed points: each loop's
// first and second iterations starting (the first loop's, the second's,
// then the two of the parallel()), and the last iteration of the second
// loop.
func scriptKillPoints() []killPoint {
	var points []killPoint
	for _, text := range []string{"Iteration 1/4 starting", "Iteration 2/4 starting"} {
		for n := 1; n <= 4; n++ {
			points = append(points, killPoint{text: text, n: n})
		}
	}
	return append(points, killPoint{text: "Iteration 3/4 starting", n: 1})
}

func resumeAfterKill(t *testing.T, d durableRun, at killPoint, sig syscall.Signal, tear bool, rnd *rand.Rand, want ending, wantCode int) {
	s := d.start()
	at.wait(t, s)
	s.cmd.Process.Signal(sig)
	killedWait(t, s)
	runDir, cut := d.recorded()
	if runDir != "" && tear {
		tearJournal(t, runDir, rnd)
	}
	before := d.starts()
	if runDir == "" {
		// Killed before it recorded anything: nothing to resume.
		return
	}
	o := d.rooda("runs", "resume")
	if cut.Status != "running" && cut.Status != "interrupted" {
		// It had ended: nothing to resume, and it says so.
		if o.code != 1 || !strings.Contains(o.stderr, "can be resumed: none was cut short") {
			t.Fatalf("resume of a run that ended (%s): exit %d\n%s", cut.Status, o.code, o.stderr)
		}
	} else if o.code != wantCode {
		t.Fatalf("%s after %s, resumed: exit %d, want %d\nfirst run:\n%s\nresume:\n%s", sig, at, o.code, wantCode, s.stderr, o.stderr)
	}
	_, got := d.recorded()
	if got.String() != want.String() {
		t.Fatalf("%s after %s (torn journal: %v), resumed, it ended as\n  %s\nnot as the run not killed:\n  %s\nresume:\n%s", sig, at, tear, got, want, o.stderr)
	}
	// Each loop has a script of its own, and starts its iterations one
	// after the other: the one in flight is the last it started before
	// the kill. Only that one may have run again.
	last := map[string]int{}
	for it := range before {
		loop, n := iterationOf(it)
		last[loop] = max(last[loop], n)
	}
	for it, n := range d.starts() {
		loop, number := iterationOf(it)
		if n > 2 || n == 2 && number != last[loop] {
			t.Errorf("killed after %s: the agent of iteration %d of the loop of %s started %d times (only the one in flight, %d, may run again): %v\nresume:\n%s",
				at, number, loop, n, last[loop], d.starts(), o.stderr)
		}
	}
}

// withoutLines is text without its lines that hold part.
func withoutLines(text, part string) string {
	var kept []string
	for _, line := range strings.SplitAfter(text, "\n") {
		if !strings.Contains(line, part) {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, "")
}

// iterationOf reads a line of starts: the loop's script and the
// iteration.
func iterationOf(start string) (loop string, n int) {
	loop, number, _ := strings.Cut(start, "_")
	fmt.Sscan(number, &n)
	return loop, n
}

// TestResumeRefusesAChangedScript: a script changed after its run was
// cut short is not resumed: the resume stops at the first call that
// differs, naming what was recorded and what is asked, runs no agent and
// leaves the run resumable; a setting changed since is named the same
// way; --force goes on live from the call that differs.
func TestResumeRefusesAChangedScript(t *testing.T) {
	t.Parallel()
	d := newDurableScript(t)
	d.killIn("Iteration 2/4 starting")
	script := readText(t, filepath.Join(d.w.dir, "main.star"))
	d.w.write("main.star", strings.Replace(script, "first = ", "home = getenv(\"HOME\")\nfirst = ", 1))
	before := d.starts()
	_, cut := d.recorded()
	o := d.rooda("runs", "resume")
	runDir, refused := d.recorded()
	if refused.String() != cut.String() || refused.Status != "running" {
		t.Errorf("the record after a refused resume:\n  %s\nwant it as the run left it:\n  %s", refused, cut)
	}
	// Killed as an agent starts, rooda may leave its record's lock for a
	// moment with the child it was starting: the resume then says it
	// waits for it, a line that depends on the timing, not in the golden.
	golden.Check(t, "resume_differs", strings.ReplaceAll(withoutLines(o.logLines(), "waiting for its record, still held by"), filepath.Base(runDir), "RUN"))
	if o.code != 1 || !equalCounts(d.starts(), before) {
		t.Fatalf("refused resume: exit %d, agents started %v (before: %v)", o.code, d.starts(), before)
	}
	d.w.write("main.star", script)
	config := readText(t, filepath.Join(d.w.dir, "rooda-config.yml"))
	d.w.write("rooda-config.yml", config+"loop:\n  failure_threshold: 5\n")
	o = d.rooda("runs", "resume")
	if o.code != 1 || !strings.Contains(o.stderr, "Failure Threshold: 3 recorded, 5 asked") {
		t.Fatalf("resume with a setting changed: exit %d\n%s", o.code, o.stderr)
	}
	d.w.write("rooda-config.yml", config)
	d.w.write("main.star", strings.Replace(script, "first = ", "home = getenv(\"HOME\")\nfirst = ", 1))
	o = d.rooda("runs", "resume", "--force")
	o.expect(t, 0, "going on live from it (--force)", "ended: success success")
	if d.starts()["fa.json_1"] != before["fa.json_1"]+1 {
		t.Errorf("with --force the first loop runs live from its first iteration: %v (before: %v)", d.starts(), before)
	}
}

func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestResumeRefusals: a run that ended is not resumed and says how it
// ended; a run still going is refused, naming its pid; of two resumes
// started at once one resumes, the other says the run is taken, and each
// iteration's agent starts at most once more. With nothing to resume,
// runs resume says so.
func TestResumeRefusals(t *testing.T) {
	t.Parallel()
	d := newDurableYAML(t)
	o := d.rooda("runs", "resume")
	if o.code != 1 || !strings.Contains(o.stderr, "no run in .rooda/runs can be resumed: none was cut short") {
		t.Errorf("nothing recorded: exit %d\n%s", o.code, o.stderr)
	}
	d.w.wait(d.start())
	runDir, _ := d.recorded()
	id := filepath.Base(runDir)
	o = d.rooda("runs", "resume", id)
	if o.code != 1 || !strings.Contains(o.stderr, "run "+id+" has ended (success, exit code 0): only a run that was cut short — crashed, killed or interrupted — resumes") {
		t.Errorf("resume of a run that ended: exit %d\n%s", o.code, o.stderr)
	}

	d = newDurableYAML(t)
	s := d.start()
	d.w.waitForLog(s, "Iteration 3/8 starting", "the run never reached its third iteration")
	runDir, _ = d.recorded()
	id = filepath.Base(runDir)
	o = d.rooda("runs", "resume", id)
	if o.code != 1 || !strings.Contains(o.stderr, fmt.Sprintf("run %s is still going (pid %d)", id, s.cmd.Process.Pid)) {
		t.Errorf("resume of a run going on: exit %d\n%s", o.code, o.stderr)
	}
	s.cmd.Process.Signal(syscall.SIGKILL)
	killedWait(t, s)
	before := d.starts()
	first, second := d.rooda2("runs", "resume")
	// The second is refused as the record is taken, or, started after
	// the first ended the run, finds nothing to resume.
	refused := regexp.MustCompile(`is still going \(pid \d+\)|is being resumed by pid \d+|can be resumed: none was cut short`)
	if first.code+second.code != 1 || !refused.MatchString(first.stderr+second.stderr) {
		t.Errorf("two resumes at once: exit %d and %d\n%s\n---\n%s", first.code, second.code, first.stderr, second.stderr)
	}
	for it, n := range d.starts() {
		if n > before[it]+1 {
			t.Errorf("two resumes at once started iteration %s %d times, %d before", it, n, before[it])
		}
	}
}

// rooda2 runs rooda twice at once with the same arguments.
func (d durableRun) rooda2(args ...string) (outcome, outcome) {
	var s [2]started
	for i := range s {
		cmd := exec.Command(binary(d.w.t), args...)
		cmd.Dir, cmd.Env = d.w.dir, d.w.env
		s[i] = d.w.start(cmd)
	}
	return d.w.wait(s[0]), d.w.wait(s[1])
}

// TestResumeKeepsWorktrees: a run killed while its agent works in a
// worktree that holds no work yet keeps it whole: a later run in the
// repository leaves it for the resume, which takes it back — not made
// again from what the checkout has become — and merges its branch.
func TestResumeKeepsWorktrees(t *testing.T) {
	t.Parallel()
	w := newRepoWorkspace(t)
	// Killed in its second iteration, the worktree holds no work yet.
	w.agentScript("task", step{"delay": "100ms"}, step{"delay": "1s"}, step{"write": "two.txt", "output": successSignal + "\n"})
	w.agentScript("other", step{"output": successSignal + "\n"})
	w.write("task.star", `wt = worktree("task")
res = iterate(compose("task", act = [fragment(content = "Work, and commit.")]), agent = args[0], worktree = wt, max_iterations = 3)
run(["sh", "-c", "git add -A && git commit -qm work"], dir = wt)
merged = git_merge(wt)
print("merged:", merged.merged, res.status)
`)
	w.write("other.star", `iterate(compose("other", act = [fragment(content = "Work.")]), agent = args[0], max_iterations = 1)
`)
	w.killScriptAt("task.star", "Iteration 2/3 starting")
	id := w.runOfWorktrees()
	// The checkout moves on meanwhile: a worktree made again would start
	// from here.
	w.write("repo/moved.txt", "moved\n")
	w.git("add", "moved.txt")
	w.git("commit", "-qm", "moved on")
	o := w.roodaIn(w.repo, "script", "run", filepath.Join(w.dir, "other.star"), "--", w.agentLine())
	o.expect(t, 0, "left the worktrees of run "+id+" as they are: it was cut short and can be resumed")
	if _, err := os.Stat(filepath.Join(w.repo, ".rooda", "worktrees", id, "task")); err != nil {
		t.Fatalf("the worktree of the run that can be resumed, holding no work yet: %v", err)
	}
	o = w.roodaIn(w.repo, "runs", "resume", id)
	o.expect(t, 0, "merged: True success")
	if strings.Contains(o.stderr, "removed") {
		t.Errorf("the resume removed worktrees:\n%s", o.stderr)
	}
	if files := w.git("ls-files"); !strings.Contains(files, "two.txt") || !strings.Contains(files, "moved.txt") {
		t.Errorf("the checkout after the merge:\n%s", files)
	}
}

// TestRunNameAndResumeRules: a second rooda asking for a run name another
// holds is refused; a run is resumed only from the directory it ran in;
// a run cut short is not pruned by keep_runs; and a script's arguments
// after -- are given again as they were, flags of rooda's included.
func TestRunNameAndResumeRules(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.countStarts([]step{{"output": "working", "delay": "300ms"}, {"output": "working", "delay": "300ms"}, {"output": successSignal}})
	w.write("rooda-config.yml", "loop:\n  keep_runs: 1\n")
	w.write("args.star", `print("args:", args)
iterate(procedure("build"), agent = "`+w.aiCmd()+`", max_iterations = 3)
`)
	d := durableRun{w: w, args: []string{"script", "run", "args.star", "--run-name", "night", "--", "-d", "--force", "--run-name", "x", "keep"}}
	s := d.start()
	w.waitForLog(s, "Iteration 2/3 starting", "the run never reached its second iteration")
	if o := d.rooda(d.args...); o.code != 1 || !strings.Contains(o.stderr, "a run named night is going on: another rooda holds the name") {
		t.Errorf("a second rooda under the same name: exit %d\n%s", o.code, o.stderr)
	}
	s.cmd.Process.Signal(syscall.SIGKILL)
	killedWait(t, s)
	runDir, _ := d.recorded()
	if o := d.rooda("run", "build", "-n", "1", "--ai-cmd", w.aiCmd()); o.code != 2 {
		t.Fatalf("another run: exit %d\n%s", o.code, o.stderr)
	}
	if _, err := os.Stat(runDir); err != nil {
		t.Fatalf("keep_runs 1 pruned the run that can be resumed: %v", err)
	}
	elsewhere := t.TempDir()
	must(t, os.WriteFile(filepath.Join(elsewhere, "rooda-config.yml"), []byte("loop:\n  runs_dir: "+filepath.Join(w.dir, ".rooda", "runs")+"\n"), 0o644))
	if o := w.roodaIn(elsewhere, "script", "run", "args.star", "--resume", filepath.Base(runDir)); o.code != 1 || !strings.Contains(o.stderr, "ran in "+w.dir+": resume it from there") {
		t.Errorf("a resume from another directory: exit %d\n%s", o.code, o.stderr)
	}
	o := d.rooda(d.args...)
	o.expect(t, 0, "Resuming run "+filepath.Base(runDir))
	if !strings.Contains(o.stderr, `args: ("-d", "--force", "--run-name", "x", "keep")`) {
		t.Errorf("the script's arguments on resume:\n%s", o.stderr)
	}
}

// TestResumeOfADamagedRecord: a record whose iteration files are gone
// (an agent's git clean) cannot answer that iteration as it ended: the
// script's resume stops there, naming the file, starts no agent and does
// not go on with the loop's result changed, and leaves the run as it
// was, to be resumed once the file is back.
func TestResumeOfADamagedRecord(t *testing.T) {
	t.Parallel()
	d := newDurableScript(t)
	d.killIn("Iteration 2/4 starting")
	runDir, cut := d.recorded()
	output := filepath.Join(runDir, "iterations", "0001", "output.txt")
	kept := readText(t, output)
	must(t, os.Remove(output))
	before := d.starts()
	o := d.rooda("runs", "resume")
	if o.code != 1 || !strings.Contains(o.stderr, "cannot resume iteration 1 as it ended: .rooda/runs/"+filepath.Base(runDir)+"/iterations/0001/output.txt: no such file or directory") || strings.Contains(o.stderr, "\nended:") {
		t.Errorf("resume with an output gone: exit %d\n%s", o.code, o.stderr)
	}
	if _, got := d.recorded(); got.String() != cut.String() || !equalCounts(d.starts(), before) {
		t.Errorf("after the refused resume: %s (was %s), starts %v (were %v)", got, cut, d.starts(), before)
	}
	must(t, os.WriteFile(output, []byte(kept), 0o644))
	d.rooda("runs", "resume").expect(t, 0, "ended: success success")
}

// TestResumeAfterKillInMerge: rooda killed while git_merge() signs its
// commit, slowly, leaves the merge staged in the checkout; the resume undoes it,
// sparing the user's unstaged change, and merges again.
func TestResumeAfterKillInMerge(t *testing.T) {
	t.Parallel()
	w := newRepoWorkspace(t)
	s, _, pid := w.startSlowMerge()
	s.cmd.Process.Signal(syscall.SIGKILL)
	killedWait(t, s)
	syscall.Kill(pid, syscall.SIGKILL) // git died with rooda; its signing program would sleep on
	if st := w.git("status", "--porcelain"); !strings.Contains(st, "A  work.txt") {
		t.Fatalf("the killed merge left nothing staged to undo (the test's premise):\n%s", st)
	}
	w.git("config", "--unset", "commit.gpgSign")
	o := w.roodaIn(w.repo, "runs", "resume")
	o.expect(t, 0, "the merge of rooda/", "was cut short midway; undone, it runs again", "merged: True")
	if st := w.git("status", "--porcelain"); st != "M notes.txt" {
		t.Errorf("the checkout after the resumed merge (only the user's change, unstaged):\n%s", st)
	}
	if log := w.git("log", "--oneline", "-3"); !strings.Contains(log, "Merge branch") {
		t.Errorf("no merge commit:\n%s", log)
	}
}

// killIn starts the run and kills it (SIGKILL) once its log says text.
func (d durableRun) killIn(text string) {
	s := d.start()
	d.w.waitForLog(s, text, "the run never logged "+text)
	s.cmd.Process.Signal(syscall.SIGKILL)
	killedWait(d.w.t, s)
}

// killScriptAt runs the script script of the workspace on its fake agent
// and kills rooda (SIGKILL) once its log says line, leaving no agent.
func (w *repoWorkspace) killScriptAt(script, line string) {
	w.t.Helper()
	cmd := exec.Command(binary(w.t), "script", "run", filepath.Join(w.dir, script), "--", w.agentLine())
	cmd.Dir, cmd.Env = w.repo, w.env
	s := w.start(cmd)
	w.waitForLog(s, line, "the loop never reached "+line)
	s.cmd.Process.Signal(syscall.SIGKILL)
	killedWait(w.t, s)
	w.noSurvivorsQuietly()
}

// TestResumeKeepsTheLoopsNames: two loops of one name in parallel() are
// told apart by the function whose loop started second ("p#2"), which
// the order of their goroutines decides; resumed, each keeps the name
// its record gives it, on the lines of the log and in run.json, in
// whatever order they start again. The record's names are changed before
// the resume, so that it shows which names it used.
func TestResumeKeepsTheLoopsNames(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{})
	config := "ai_cmd_aliases:\n"
	for _, name := range []string{"fa", "fb"} {
		data, _ := json.Marshal(map[string]any{"steps": durableSteps(3, "150ms")})
		w.write(name+".json", string(data))
		config += fmt.Sprintf("  %s: {cmd: \"%s %s\", output: claude-stream-json}\n", name, filepath.Join(binaries(t), "fakeagent"), filepath.Join(w.dir, name+".json"))
	}
	w.write("rooda-config.yml", config)
	w.write("main.star", `def task(name):
    return iterate(compose("p", act = [fragment(content = "Work.")]), agent = agent(name), max_iterations = 3).status

print(parallel([(task, "fa"), (task, "fb")]))
`)
	d := durableRun{w: w, args: []string{"script", "run", "main.star"}}
	s := d.start()
	killPoint{text: "Iteration 2/3 starting", n: 2}.wait(t, s)
	s.cmd.Process.Signal(syscall.SIGKILL)
	killedWait(t, s)
	runDir, _ := d.recorded()
	runJSON := filepath.Join(runDir, "run.json")
	names := regexp.MustCompile(`"name": "(p(#[12])?)"`)
	recorded := readText(t, runJSON)
	if got := names.FindAllStringSubmatch(recorded, -1); len(got) != 2 {
		t.Fatalf("run.json does not name the two loops p and p#N:\n%s", recorded)
	}
	renamed := names.ReplaceAllStringFunc(recorded, func(m string) string {
		if strings.Contains(m, "#") {
			return `"name": "second"`
		}
		return `"name": "first"`
	})
	must(t, os.WriteFile(runJSON, []byte(renamed), 0o644))

	o := d.rooda("runs", "resume")
	o.expect(t, 0, "[first] Iteration 3/3 starting", "[second] Iteration 3/3 starting", `["success", "success"]`)
	if strings.Contains(o.stderr, "[p") {
		t.Errorf("the resume named a loop otherwise than its record:\n%s", o.stderr)
	}
	after := readText(t, runJSON)
	if !strings.Contains(after, `"name": "first"`) || !strings.Contains(after, `"name": "second"`) || names.MatchString(after) {
		t.Errorf("run.json renamed a loop on the resume:\n%s", after)
	}
}
