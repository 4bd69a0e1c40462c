package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// accountScripts writes the fake agent's scripts of loops a and b, each
// writing when its runs start to times-<loop>: a's second iteration
// meets a usage limit that resets resetIn seconds ahead, then succeeds
// when run again; b's first iteration takes a while (a meets the limit
// in the meantime), and its second succeeds. Each loop's agent runs
// DIR/<procedure>.json, through an alias of account team.
func accountScripts(w *workspace, resetIn int) {
	w.t.Helper()
	limit := strings.ReplaceAll(transcript(w.t, "claude-stream-json", "usage_limit_reset"), "1795446000", "{{unix+"+strconv.Itoa(resetIn)+"}}")
	echo := transcript(w.t, "claude-stream-json", "prompt_echo_in_tool_result")
	success := transcript(w.t, "claude-stream-json", "tool_call_success")
	script := func(name string, steps ...step) {
		record := filepath.Join(w.dir, "record-"+name)
		must(w.t, os.MkdirAll(record, 0o755))
		must(w.t, os.WriteFile(filepath.Join(record, "pids"), nil, 0o644))
		for _, s := range steps {
			s["times"] = filepath.Join(w.dir, "times-"+name)
			if again, ok := s["again"].(step); ok {
				again["times"] = s["times"]
			}
		}
		data, _ := json.Marshal(map[string]any{"record": record, "steps": steps})
		w.write(name+".json", string(data))
	}
	script("a", step{"output": echo}, step{"output": limit, "exit": 1, "again": step{"output": success}})
	script("b", step{"output": echo, "delay": "8s"}, step{"output": success})
	line := "sh -c 'exec " + filepath.Join(binaries(w.t), "fakeagent") + " " + w.dir + "/$ROODA_PROCEDURE.json'"
	w.write("rooda-config.yml", "ai_cmd_aliases:\n  fake: {cmd: \""+line+"\", output: claude-stream-json, account: team}\nloop:\n  ai_cmd_alias: fake\n")
}

// starts are when each run of a loop's agent started, in order, from its
// times file.
func (w *workspace) starts(loop string) []time.Time {
	w.t.Helper()
	var out []time.Time
	for _, line := range strings.Split(strings.TrimSpace(readText(w.t, filepath.Join(w.dir, "times-"+loop))), "\n") {
		ns, err := strconv.ParseInt(strings.Fields(line)[0], 10, 64)
		if err != nil {
			w.t.Fatalf("times-%s: %q", loop, line)
		}
		out = append(out, time.Unix(0, ns))
	}
	return out
}

// TestAccountLimitSharedByParallelLoops: two parallel() loops of one
// account on one machine. Loop a meets a usage limit that resets 20 s
// ahead; loop b, whose next iteration begins meanwhile, does not start
// its agent until the reset, waiting for the account's limit as a loop
// waits for its own; neither counts a failure, and b's record says what
// it waited.
func TestAccountLimitSharedByParallelLoops(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	accountScripts(w, 20)
	w.write("main.star", `def a():
    return iterate(compose("a", act = [fragment(content = "Work.")]), max_iterations = 3).status

def b():
    return iterate(compose("b", act = [fragment(content = "Work.")]), max_iterations = 3).status

print(parallel([a, b]))
`)
	cmd := exec.Command(binary(t), "script", "run", "main.star")
	cmd.Dir, cmd.Env = w.dir, w.env
	o := w.wait(w.start(cmd))
	o.expect(t, 0, `["success", "success"]`, "account team is limited (usage limit, met by a (pid ", "before running fake")
	if strings.Contains(o.stderr, "failure") {
		t.Errorf("a failure was counted:\n%s", o.stderr)
	}
	a, b := w.starts("a"), w.starts("b")
	if len(a) != 3 || len(b) != 2 {
		t.Fatalf("loop a's agent started %d times, b's %d; want 3 and 2\n%s", len(a), len(b), o.stderr)
	}
	// The limit resets 20 s after a's second run started, to the second
	// (19 s at the least); b's second run starts no sooner.
	if reset := a[1].Add(19 * time.Second); b[1].Before(reset) {
		t.Errorf("loop b's second iteration started %s after a met the limit, before its reset\n%s", b[1].Sub(a[1]), o.stderr)
	}
	if waits := w.longWaits(5); waits != 2 {
		t.Errorf("the records of %d iterations say they waited 5 s or more, want 2: a's for its limit, b's for its account's\n%s", waits, o.stderr)
	}
}

// longWaits counts the iterations of the workspace's records that waited
// at least secs seconds for a limit (meta.json's waited).
func (w *workspace) longWaits(secs float64) int {
	w.t.Helper()
	found, _ := filepath.Glob(filepath.Join(w.dir, ".rooda", "runs", "*", "iterations", "*", "meta.json"))
	n := 0
	for _, f := range found {
		var m struct{ Waited float64 }
		must(w.t, json.Unmarshal([]byte(readText(w.t, f)), &m))
		if m.Waited >= secs {
			n++
		}
	}
	return n
}

// TestFleetAccountLimitSharedByWorkers: two runs of one account on two
// workers (real rooda-fleet processes on a real NATS server, each
// worker's runs with a state directory of their own, so that only the
// fleet's ledger is shared). Run a meets a usage limit that resets 20 s
// ahead; run b does not start its next iteration's agent until then;
// both end success, neither counting a failure.
func TestFleetAccountLimitSharedByWorkers(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	accountScripts(w, 20)
	for _, name := range []string{"a", "b"} {
		w.write(name+".star", `iterate(compose("`+name+`", act = [fragment(content = "Work.")]), max_iterations = 3)`+"\n")
	}
	f := newFleet(t, w)
	store := filepath.Join(f.state, "rooda", "fleet")
	for _, name := range []string{"a", "b"} {
		f.fleet("add", "--name", "run-"+name, name+".star")
	}
	for _, name := range []string{"a", "b"} {
		f.workerWith("worker-"+name, []string{"XDG_STATE_HOME=" + filepath.Join(f.state, "worker-"+name)}, "--store", store, "--lease", "5s")
	}
	// While the runs wait, the fleet's status says the account is limited.
	f.waitStatus("team", "limited until ")
	for _, st := range f.waitEnded(2) {
		if st.Status != "success" {
			t.Errorf("%s: %+v, want success\n%s", st.Run.Name, st, f.workerLogs())
		}
	}
	logs := runLogs(t, filepath.Join(store, "workspaces", "logs"))
	if strings.Contains(logs, "failure") || !strings.Contains(logs, "account team is limited (usage limit, met by a (pid ") {
		t.Errorf("the runs' logs:\n%s", logs)
	}
	a, b := w.starts("a"), w.starts("b")
	if len(a) != 3 || len(b) != 2 {
		t.Fatalf("run a's agent started %d times, b's %d; want 3 and 2\n%s", len(a), len(b), logs)
	}
	if reset := a[1].Add(19 * time.Second); b[1].Before(reset) {
		t.Errorf("run b's second iteration started %s after a met the limit, before its reset\n%s", b[1].Sub(a[1]), logs)
	}
}

// waitStatus waits until `rooda fleet status` shows a line that holds
// every one of words.
func (f *testFleet) waitStatus(words ...string) {
	f.w.t.Helper()
	deadline := time.Now().Add(hangGuard)
	for {
		out := f.fleet("status")
		for _, line := range strings.Split(out, "\n") {
			found := true
			for _, w := range words {
				found = found && strings.Contains(line, w)
			}
			if found {
				return
			}
		}
		if time.Now().After(deadline) {
			f.w.t.Fatalf("fleet status never showed %q:\n%s", words, out)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// runLogs is what the fleet's runs' roodas printed, every log of dir.
func runLogs(t *testing.T, dir string) string {
	t.Helper()
	found, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	var all strings.Builder
	for _, f := range found {
		all.WriteString("== " + filepath.Base(f) + "\n" + readText(t, f))
	}
	return all.String()
}

// TestFleetBudgetNeverAbove: a fleet budget of $1.00, its iterations
// expected at $0.40 until one is counted, over three runs on two workers
// whose every iteration costs $0.40: two iterations fit ($0.80), a third
// would make $1.20 and is not started; every run ends over budget,
// saying which budget refused it, and the ledger has $0.80 spent and
// nothing left reserved.
func TestFleetBudgetNeverAbove(t *testing.T) {
	t.Parallel()
	times := filepath.Join(t.TempDir(), "times")
	costly := strings.ReplaceAll(transcript(t, "claude-stream-json", "prompt_echo_in_tool_result"), `"total_cost_usd":0.0001`, `"total_cost_usd":0.4`)
	w := newWorkspace(t, step{"output": costly, "times": times, "delay": "500ms"})
	w.write("rooda-config.yml", "ai_cmd_aliases:\n  fake: {cmd: \""+w.aiCmd()+"\", output: claude-stream-json}\nloop:\n  ai_cmd_alias: fake\n")
	f := newFleet(t, w)
	if got := f.fleet("budget", "--max-cost-usd", "1.00", "--estimate-usd", "0.40"); !strings.Contains(got, "max_cost_usd $1.00") {
		t.Fatalf("fleet budget said %q", got)
	}
	for i := range 3 {
		f.fleet("add", "--name", fmt.Sprintf("run-%d", i), "build", "-n", "5")
	}
	for i := range 2 {
		f.worker(fmt.Sprintf("worker-%d", i), "--lease", "5s")
	}
	for _, st := range f.waitEnded(3) {
		if st.Status != "budget" || st.ExitCode != 2 {
			t.Errorf("%s: %+v, want ended over budget, exit 2\n%s", st.Run.Name, st, f.workerLogs())
		}
		// The record keeps the budget that refused it, as any budget
		// reached.
		found, _ := filepath.Glob(filepath.Join(st.Workspace, ".rooda", "runs", "*", "run.json"))
		var run struct{ Budget map[string]string }
		if len(found) == 1 {
			must(t, json.Unmarshal([]byte(readText(t, found[0])), &run))
		}
		if b := run.Budget; b["name"] != "the fleet's max_cost_usd" || b["limit"] != "$1.00" || b["reached"] != "$0.80" {
			t.Errorf("%s: its record's budget: %v (%v)", st.Run.Name, run.Budget, found)
		}
	}
	store := filepath.Join(f.state, "rooda", "fleet")
	logs := runLogs(t, filepath.Join(store, "workspaces", "logs"))
	if strings.Count(strings.TrimSpace(readText(t, times)), "\n")+1 != 2 {
		t.Errorf("the agents ran %q, want two iterations in all ($0.80)\n%s", readText(t, times), logs)
	}
	if n := strings.Count(logs, "Budget reached: the fleet's max_cost_usd is $1.00: spent "); n != 3 {
		t.Errorf("%d runs say the fleet's budget refused their next iteration, want 3\n%s", n, logs)
	}
	if got := f.fleet("budget"); !strings.Contains(got, "spent $0.80 and ") || !strings.Contains(got, "reserved $0.00 and 0 tokens") {
		t.Errorf("the fleet's budget after the runs: %q", got)
	}
	var accounts map[string]struct {
		Budget *struct {
			MaxCostUSD float64 `json:"max_cost_usd"`
		} `json:"budget"`
		SpentUSD float64 `json:"spent_usd"`
	}
	must(t, json.Unmarshal([]byte(f.fleet("status", "--accounts", "--json")), &accounts))
	if e := accounts["@fleet"]; e.Budget == nil || e.Budget.MaxCostUSD != 1 || e.SpentUSD > 1 || e.SpentUSD < 0.79 {
		t.Errorf("fleet status --accounts --json: %+v", accounts)
	}
	f.waitStatus("@fleet", "max_cost_usd $1.00", "$0.80 and ")
}

// TestBreakerPausesTheAccount: with breaker_hits 2, a loop whose agent
// meets a usage limit (resetting 3 s ahead, so that it is still ahead
// when rooda reads it on a loaded machine) in two iterations in a
// row has its account paused for breaker_backoff (6 s): after its own
// wait for the second limit's reset, it does not run its agent again
// until the pause ends, and counts no failure.
func TestBreakerPausesTheAccount(t *testing.T) {
	t.Parallel()
	times := filepath.Join(t.TempDir(), "times")
	limit := strings.ReplaceAll(transcript(t, "claude-stream-json", "usage_limit_reset"), "1795446000", "{{unix+3}}")
	echo := transcript(t, "claude-stream-json", "prompt_echo_in_tool_result")
	limited := step{"output": limit, "exit": 1, "times": times, "again": step{"output": echo, "times": times}}
	w := newWorkspace(t, limited, limited, step{"output": transcript(t, "claude-stream-json", "tool_call_success"), "times": times})
	w.write("rooda-config.yml", "ai_cmd_aliases:\n  fake: {cmd: \""+w.aiCmd()+"\", output: claude-stream-json, account: team}\nloop:\n  ai_cmd_alias: fake\n  breaker_hits: 2\n  breaker_backoff: 6s\n")
	cmd := exec.Command(binary(t), "run", "build", "-n", "3")
	cmd.Dir, cmd.Env = w.dir, w.env
	o := w.wait(w.start(cmd))
	o.expect(t, 0, "account team is paused by the breaker (too many limits met) until ", "(success)")
	if strings.Contains(o.stderr, "failure") {
		t.Errorf("a failure was counted:\n%s", o.stderr)
	}
	var starts []time.Time
	for _, line := range strings.Split(strings.TrimSpace(readText(t, times)), "\n") {
		ns, _ := strconv.ParseInt(strings.Fields(line)[0], 10, 64)
		starts = append(starts, time.Unix(0, ns))
	}
	// it1 limited, it1 again, it2 limited (the second hit), it2 again, it3.
	if len(starts) != 5 {
		t.Fatalf("the agent started %d times, want 5\n%s", len(starts), o.stderr)
	}
	// Its own limit's reset alone is 3 s: 5 s is the breaker's pause.
	if paused := starts[3].Sub(starts[2]); paused < 5*time.Second {
		t.Errorf("iteration 2 ran again %s after its limit, within the breaker's 6 s pause\n%s", paused, o.stderr)
	}
}

// TestAccountLimitSharedByTwoRoodas: the same as parallel() loops, with
// each loop a rooda of its own on this machine: they share the file
// ledger under the user's state directory, by its lock.
func TestAccountLimitSharedByTwoRoodas(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	accountScripts(w, 20)
	var runs []started
	for _, name := range []string{"a", "b"} {
		w.write(name+".star", `iterate(compose("`+name+`", act = [fragment(content = "Work.")]), max_iterations = 3)`+"\n")
		cmd := exec.Command(binary(t), "script", "run", name+".star")
		cmd.Dir, cmd.Env = w.dir, w.env
		runs = append(runs, w.start(cmd))
	}
	var stderr string
	for _, r := range runs {
		o := w.wait(r)
		o.expect(t, 0, "(success)")
		stderr += o.stderr
	}
	if strings.Contains(stderr, "failure") || !strings.Contains(stderr, "account team is limited (usage limit, met by a (pid ") {
		t.Errorf("the roodas' logs:\n%s", stderr)
	}
	a, b := w.starts("a"), w.starts("b")
	if len(a) != 3 || len(b) != 2 {
		t.Fatalf("loop a's agent started %d times, b's %d; want 3 and 2\n%s", len(a), len(b), stderr)
	}
	if reset := a[1].Add(19 * time.Second); b[1].Before(reset) {
		t.Errorf("b's second iteration started %s after a met the limit, before its reset\n%s", b[1].Sub(a[1]), stderr)
	}
}

// holdLedgerLock has another process hold the lock of w's ledger until
// the test ends, as a rooda stopped with it held (SIGSTOP) would.
func holdLedgerLock(w *workspace) {
	w.t.Helper()
	if _, err := exec.LookPath("flock"); err != nil {
		w.t.Skip("no flock command")
	}
	dir := filepath.Join(w.dir, "state", "rooda")
	must(w.t, os.MkdirAll(dir, 0o700))
	holder := exec.Command("flock", filepath.Join(dir, "ledger.json.lock"), "-c", "echo held; exec sleep 600")
	out, err := holder.StdoutPipe()
	must(w.t, err)
	must(w.t, holder.Start())
	w.t.Cleanup(func() { holder.Process.Kill(); holder.Wait() })
	line := make([]byte, 5)
	if _, err := io.ReadFull(out, line); err != nil || string(line) != "held\n" {
		w.t.Fatalf("the lock's holder said %q: %v", line, err)
	}
}

// TestHeldLedgerLockDoesNotSlowARun: a plain run whose ledger's lock
// another process holds reads the ledger without it; its first
// iteration's agent meets a limit, which it cannot write: it says once
// that it goes on without the ledger, and its iterations take the
// agent's time: the ledger, given up after its first failure, is not
// waited for again (it was, 10 s per call), nor counted in their
// durations.
func TestHeldLedgerLockDoesNotSlowARun(t *testing.T) {
	t.Parallel()
	limit := strings.ReplaceAll(transcript(t, "claude-stream-json", "usage_limit_reset"), "1795446000", "{{unix+2}}")
	echo := transcript(t, "claude-stream-json", "prompt_echo_in_tool_result")
	w := newWorkspace(t, step{"output": limit, "exit": 1, "again": step{"output": echo}}, step{"output": echo})
	w.write("rooda-config.yml", "ai_cmd_aliases:\n  fake: {cmd: \""+w.aiCmd()+"\", output: claude-stream-json}\nloop:\n  ai_cmd_alias: fake\n")
	holdLedgerLock(w)
	cmd := exec.Command(binary(t), "run", "build", "-n", "3")
	cmd.Dir, cmd.Env = w.dir, w.env
	o := w.wait(w.start(cmd))
	o.expect(t, 2, "Iteration 3/3 completed in ")
	if n := strings.Count(o.stderr, "the accounts' ledger"); n != 1 {
		t.Errorf("the ledger's failure said %d times, want once\n%s", n, o.stderr)
	}
	for _, m := range regexp.MustCompile(`completed in (\S+)`).FindAllStringSubmatch(o.stderr, -1) {
		if took, err := time.ParseDuration(m[1]); err != nil || took >= 5*time.Second {
			t.Errorf("an iteration of an agent that says one word took %s (%v): the ledger's wait counted\n%s", m[1], err, o.stderr)
		}
	}
}

// TestAgentsDoNotInheritTheLedger: rooda takes ROODA_LEDGER (a fleet
// worker's ledger socket) out of its environment as it starts: its
// agent, which inherits the rest, does not see it, and cannot write the
// fleet's ledger through it.
func TestAgentsDoNotInheritTheLedger(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.env = append(w.env, "ROODA_LEDGER=unix:"+filepath.Join(w.dir, "ledger.sock"), "SEEN_BY_AGENT=yes")
	cmd := exec.Command(binary(t), "run", "build", "-n", "1", "--ai-cmd", "sh -c 'env > "+filepath.Join(w.dir, "env.txt")+"'")
	cmd.Dir, cmd.Env = w.dir, w.env
	o := w.wait(w.start(cmd))
	o.expect(t, 2, "Iteration 1/1 completed in ")
	env := readText(t, filepath.Join(w.dir, "env.txt"))
	if !strings.Contains(env, "SEEN_BY_AGENT=yes") || strings.Contains(env, "ROODA_LEDGER") {
		t.Errorf("the agent's environment:\n%s", env)
	}
}
