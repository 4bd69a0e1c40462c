package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"rooda/host/runlog"
)

// The end-to-end tests of the memory budget (issue 13): no script can
// take the machine down, however carelessly or hostilely written. Each
// runs rooda under a 3 GiB cap on its data, a net should the budget ever
// fail, and reads its peak resident memory.

// safetyNetKiB caps rooda's data in these tests.
const safetyNetKiB = 3 << 20

// slack is how far past its budget a run's resident memory may go: the
// pages a huge step touches before rooda ends it, and the runtime's own.
const slack = 64 << 20

// TestDoublingStringStopsAtTheBudget is the five lines, after an
// iteration whose agent leaves a child behind, under the default budget
// of 1 GiB: the run ends with the budget's error naming the line, exit
// 2, its record complete, its memory under the budget and the slack,
// and no process of the agent left.
func TestDoublingStringStopsAtTheBudget(t *testing.T) {
	w := newWorkspace(t, step{"output": "done\n", "escape": "60s"})
	w.write("main.star", `r = iterate(procedure("build"), max_iterations=1)
s = "a"
for i in range(40):
    s = s + s
print(len(s))
`)
	o, peak := w.boundedTo(safetyNetKiB, "script", "run", "main.star", "--ai-cmd", w.aiCmd())
	if o.code != 2 || !strings.Contains(o.stderr, "main.star:4:") ||
		!strings.Contains(o.stderr, "Error: the run went over its memory budget of 1 GiB (--max-memory)") {
		t.Errorf("exit %d, want 2 and the budget's error at line 4\nstderr:\n%s", o.code, o.stderr)
	}
	if peak > 1<<30+slack {
		t.Errorf("peak resident memory %d MiB, over the budget of 1024 MiB and %d MiB of slack", peak>>20, slack>>20)
	}
	run := onlyRun(t, w)
	if run.Status == "running" || run.ExitCode == nil || *run.ExitCode != 2 || run.Iterations != 1 {
		t.Errorf("record: status %q, exit %v, %d iterations: want it finished with exit 2 after 1 iteration", run.Status, run.ExitCode, run.Iterations)
	}
}

// onlyRun reads the run.json of w's only recorded run.
func onlyRun(t *testing.T, w *workspace) runlog.Run {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(w.dir, ".rooda/runs/*/run.json"))
	if len(files) != 1 {
		t.Fatalf("want one record, found %v", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var r runlog.Run
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestHostileScripts: scripts that grow memory fast, ask for it all at
// once, or nest values deeper than the Go stack can walk, each end with
// a clear error naming the line — the budget's (exit 2) or a refusal
// (exit 1) — never a Go crash, and within the budget and its slack.
func TestHostileScripts(t *testing.T) {
	const budget = 256 << 20
	deep := "x = []\nfor i in range(100000):\n    x = [x]\n"
	deeper := "x = ()\nfor i in range(1400000):\n    x = (x,)\n"
	for _, tc := range []struct {
		name, script string
		code         int
		want         string
		env          string
	}{
		{"doubling string", "s = 'a'\nfor i in range(40):\n    s = s + s\n", 2, "main.star:3:", ""},
		{"doubling list", "l = [1]\nfor i in range(40):\n    l = l + l\n", 2, "main.star:3:", ""},
		{"huge repetition", "s = 'abc' * (300 * 1000 * 1000)\n", 2, "Error: main.star: the run went over its memory budget of 256 MiB", ""},
		{"huge range made a list", "l = list(range(1000 * 1000 * 1000))\n", 2, "list(): 1000000000 elements would take about 14.9 GiB", ""},
		{"huge zip", "z = zip(range(100000000), range(100000000), range(100000000))\n", 2, "zip(): 100000000 elements would take about", ""},
		{"on one processor", "s = 'a'\nfor i in range(40):\n    s = s + s\n", 2, "over its memory budget of 256 MiB", "GOMAXPROCS=1"},
		{"live data near the budget", "keep = ['k' * 1000 + str(i) for i in range(150 * 1000)]\nfor i in range(200000):\n    t = str(i) * 20\nprint('done')\n", 0, "done", ""},
		{"huge join", "t = ['x' * (20 * 1000 * 1000)] * 20\nu = ''.join(t)\n", 2, "main.star", ""},
		{"growing dict", "d = {}\nfor i in range(100 * 1000 * 1000):\n    d[i] = i\n", 2, "main.star:3:", ""},
		{"json of a huge value", "t = ['x' * (30 * 1000 * 1000)] * 10\nu = json.encode(t)\n", 2, "json.encode(): the text would take about", ""},
		{"deep %-formatting", deeper + "s = '%s' % (x,)\n", 2, "the script's stack took", ""},
		{"deep fail", deeper + "fail(x)\n", 2, "the script's stack took", ""},
		{"deep str", deep + "s = str(x)\n", 1, "nested more than 1000 levels deep", ""},
		{"deep print", deep + "print(x)\n", 1, "nested more than 1000 levels deep", ""},
		{"deep json.encode", deep + "s = json.encode(x)\n", 1, "nested more than 1000 levels deep", ""},
		{"deep json.decode", "v = json.decode('[' * 5000000 + ']' * 5000000)\n", 1, "the JSON is nested more than 1000 levels deep", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorkspace(t)
			if tc.env != "" {
				w.env = append(w.env, tc.env)
			}
			w.write("main.star", tc.script)
			o, peak := w.boundedTo(safetyNetKiB, "script", "run", "main.star", "--max-memory", "256MiB", "--max-steps", "10000000000", "--no-record")
			reported := strings.HasPrefix(o.stderr, "Traceback") || strings.HasPrefix(o.stderr, "Error: main.star: ") || tc.code == 0
			if o.code != tc.code || !strings.Contains(o.stderr, tc.want) || !reported {
				t.Errorf("exit %d, want %d and %q\nstderr:\n%s", o.code, tc.code, tc.want, o.stderr)
			}
			if strings.Contains(o.stderr, "fatal error") || strings.Contains(o.stderr, "goroutine ") {
				t.Errorf("a Go crash:\n%s", o.stderr)
			}
			if peak > budget+slack {
				t.Errorf("peak resident memory %d MiB, over the budget of 256 MiB and %d MiB of slack", peak>>20, slack>>20)
			}
		})
	}
}

// TestMemoryBudgetSettings: the budget comes from max_memory in the
// configuration, ROODA_LOOP_MAX_MEMORY or --max-memory, the flag last,
// and a budget below 64 MiB is refused.
func TestMemoryBudgetSettings(t *testing.T) {
	w := newWorkspace(t)
	w.write("main.star", "s = 'x' * (100 * 1000 * 1000)\n")
	w.write("rooda-config.yml", "loop:\n  max_memory: 96MiB\n")
	for _, tc := range []struct {
		env  string
		args []string
		want string
	}{
		{"", nil, "budget of 96 MiB"},
		{"ROODA_LOOP_MAX_MEMORY=80MiB", nil, "budget of 80 MiB"},
		{"ROODA_LOOP_MAX_MEMORY=80MiB", []string{"--max-memory", "72MiB"}, "budget of 72 MiB"},
		{"", []string{"--max-memory", "1MiB"}, "--max-memory must be >= 67108864 bytes"},
	} {
		if tc.env != "" {
			w.env = append(w.env, tc.env)
		}
		o := w.runScript("main.star", append(tc.args, "--no-record")...)
		if !strings.Contains(o.stderr, tc.want) {
			t.Errorf("%s %v: stderr lacks %q:\n%s", tc.env, tc.args, tc.want, o.stderr)
		}
	}
}

// TestSecondInterruptEndsAStuckScript: a script inside one step that no
// cancellation reaches (formatting a value nested 600,000 levels deep
// takes minutes) ends a moment after a second Ctrl+C, exit 130: rooda
// never hangs.
func TestSecondInterruptEndsAStuckScript(t *testing.T) {
	w := newWorkspace(t)
	w.write("main.star", "x = []\nfor i in range(600000):\n    x = [x]\nprint('built')\ns = '%s' % x\n")
	cmd := w.limitedTo(safetyNetKiB, "script", "run", "main.star", "--max-steps", "10000000000", "--no-record")
	s := w.start(cmd)
	w.waitForLog(s, "built", "the script never got to its slow step")
	s.cmd.Process.Signal(syscall.SIGINT)
	time.Sleep(200 * time.Millisecond)
	s.cmd.Process.Signal(syscall.SIGINT)
	o := w.wait(s)
	if o.code != 130 || !strings.Contains(o.stderr, "the script did not stop after a second interrupt; rooda ends it") {
		t.Errorf("exit %d, want 130 and the reason\nstderr:\n%s", o.code, o.stderr)
	}
}

// TestLongLoopStaysWithinTheBudget: iterate() is one long step of the
// script, with no checkpoint of its own; what each iteration leaves (the
// agent's output kept in its ring, 6 MiB here; the prompt) is collected as
// the iteration ends, so a long loop does not run into the budget.
func TestLongLoopStaysWithinTheBudget(t *testing.T) {
	w := newWorkspace(t, step{"output": "working\n", "bytes": 6 << 20})
	w.write("main.star", "r = iterate(procedure('build'), max_iterations=15)\nprint(r.status)\n")
	o := w.runScript("main.star", "--ai-cmd", w.aiCmd(), "--max-memory", "64MiB", "--no-record")
	if o.code != 2 || !strings.Contains(o.stderr, "max-iters\n") {
		t.Errorf("exit %d, want 2 (max-iters) and no budget reached\nstderr:\n%s", o.code, o.stderr)
	}
}
