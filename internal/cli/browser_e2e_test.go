package cli

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"rooda/host/runlog"
	"rooda/internal/browsertest"
)

// recordThreeIterations records, with the fake agent behind a claude
// stream-json alias, a run of three iterations: the first fails (the agent
// says FAILURE), the second hits a usage limit that resets in two seconds
// and, run again, goes on, the third succeeds.
func recordThreeIterations(t *testing.T) *workspace {
	t.Helper()
	success := transcript(t, "claude-stream-json", "tool_call_success")
	failure := strings.ReplaceAll(success, `\u003cpromise\u003eSUCCESS`, `\u003cpromise\u003eFAILURE`)
	progress := strings.ReplaceAll(success, `\u003cpromise\u003eSUCCESS\u003c/promise\u003e`, "more to do")
	limit := strings.ReplaceAll(transcript(t, "claude-stream-json", "usage_limit_reset"), "1795446000", "{{unix+2}}")
	w := newWorkspace(t,
		step{"output": failure},
		step{"output": limit, "exit": 1, "again": step{"output": progress}},
		step{"output": success})
	w.runAlias("claude-stream-json", "build", "-n", "3").expect(t, 0, "waiting until ", "(failure, consecutive: 1/3)", "(success)")
	return w
}

// serveRuns starts "rooda runs serve" in w and returns the address it
// prints as its first line, after the runs directory. When the test ends, an interrupt must end the server with exit
// status 0.
func (w *workspace) serveRuns() string {
	w.t.Helper()
	address, _ := w.serveRunsProcess()
	return address
}

// serveRunsProcess is serveRuns, with the server's pid.
func (w *workspace) serveRunsProcess() (string, int) {
	w.t.Helper()
	cmd := exec.Command(binary(w.t), "runs", "serve")
	cmd.Dir, cmd.Env = w.dir, w.env
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		w.t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGINT)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				w.t.Errorf("rooda runs serve, interrupted: %v", err)
			}
		case <-time.After(hangGuard):
			cmd.Process.Kill()
			w.t.Errorf("rooda runs serve did not end within %s of an interrupt", hangGuard)
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	m := regexp.MustCompile(`^Serving the run records of (.+) at (http://127\.0\.0\.1:\d+/)\n$`).FindStringSubmatch(line)
	if err != nil || m == nil || !strings.HasSuffix(m[1], filepath.Join(".rooda", "runs")) {
		w.t.Fatalf("rooda runs serve printed %q (%v), not its address", line, err)
	}
	return m[2], cmd.Process.Pid
}

// TestRunPagesInABrowser: in a real Chromium, the list of runs shows the
// run; its page says why the run ended and draws one bar per iteration, coloured by outcome, and the
// limit wait before the second; clicking a bar shows that iteration's
// exact prompt and its diff against the one before; the diff form shows
// the diff of any two; and no page writes an error to the console.
// Screenshots of each page are kept (go test -artifacts).
func TestRunPagesInABrowser(t *testing.T) {
	t.Parallel()
	w := recordThreeIterations(t)
	b := browsertest.Start(t)
	address := w.serveRuns()
	run := browse(t, b)

	run(chromedp.Navigate(address), chromedp.WaitVisible(chromedp.CSS("#runs")))
	rows := evaluate[[]string](t, b, `[...document.querySelectorAll("#runs tr.run")].map(r => r.dataset.id + " " + r.dataset.status)`)
	id := w.lastRunID()
	if len(rows) != 1 || rows[0] != id+" success" {
		t.Fatalf("the list of runs: %q, want [%s success]", rows, id)
	}
	b.Screenshot(t, "runs.png")

	run(chromedp.Click(chromedp.CSS("#runs a.run-link")), chromedp.WaitVisible(chromedp.CSS("svg#timeline")))
	// Why the run ended, from its record: who ended it, and when.
	if reason := evaluate[string](t, b, `document.querySelector("#summary dd.reason").textContent`); reason != "the agent signaled SUCCESS in iteration 3/3" {
		t.Errorf("the run page's reason: %q", reason)
	}
	bars := evaluate[[]string](t, b, `[...document.querySelectorAll("#timeline rect.bar")].map(r => r.dataset.iteration + " " + r.dataset.outcome + " | " + r.querySelector("title").textContent)`)
	wantBars := []string{"1 failure | Iteration 1: failure", "2 continue | Iteration 2: continue", "3 success | Iteration 3: success"}
	if len(bars) != len(wantBars) {
		t.Fatalf("timeline bars: %q, want one per iteration", bars)
	}
	for i, want := range wantBars {
		if !strings.HasPrefix(bars[i], want) {
			t.Errorf("bar %d: %q, want it to begin %q", i+1, bars[i], want)
		}
	}
	if !strings.Contains(bars[1], "waited") {
		t.Errorf("the second bar's hover does not tell of the limit wait: %q", bars[1])
	}
	waits := evaluate[[]string](t, b, `[...document.querySelectorAll("#timeline rect.wait")].map(r => r.dataset.iteration)`)
	if len(waits) != 1 || waits[0] != "2" {
		t.Errorf("limit waits drawn for iterations %q, want [2]", waits)
	}
	fills := evaluate[[]string](t, b, `[...document.querySelectorAll("#timeline rect.bar")].map(r => getComputedStyle(r).fill)`)
	if fills[0] == fills[2] {
		t.Errorf("a failure and a success are drawn in the same colour, %s", fills[0])
	}

	// The iteration's texts and diff are loaded as it is shown.
	run(chromedp.Click(chromedp.CSS(`#timeline a[href="#it-2"] rect.bar`)),
		chromedp.WaitVisible(chromedp.CSS(`#it-2 pre.prompt[data-state="loaded"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#it-2 pre.diff[data-state="loaded"]`)))
	shown, err := chromedp.Run(b.Ctx, chromedp.Text(chromedp.CSS("#it-2 pre.prompt")))
	sent := w.prompt(2)
	if err != nil || strings.TrimSpace(shown) != strings.TrimSpace(sent) {
		t.Errorf("iteration 2's prompt shown (%v):\n%s\nwant the prompt the agent received:\n%s", err, shown, sent)
	}
	if hidden := evaluate[string](t, b, `getComputedStyle(document.getElementById("it-1")).display`); hidden != "none" {
		t.Errorf("iteration 1 is shown (display %s) while iteration 2 is looked at", hidden)
	}
	del := evaluate[[]string](t, b, `[...document.querySelectorAll("#it-2 pre.diff span.del")].map(s => s.textContent)`)
	add := evaluate[[]string](t, b, `[...document.querySelectorAll("#it-2 pre.diff span.add")].map(s => s.textContent)`)
	if !anyContains(del, "Iteration: 1 of 3") || !anyContains(add, "Iteration: 2 of 3") {
		t.Errorf("iteration 2's diff: removed %q, added %q; want its iteration line changed", del, add)
	}
	b.Screenshot(t, "run.png")

	run(chromedp.SetValue(chromedp.CSS(`input[name="from"]`), "1"),
		chromedp.SetValue(chromedp.CSS(`input[name="to"]`), "3"),
		chromedp.Submit(chromedp.CSS(`input[name="to"]`)),
		chromedp.WaitVisible(chromedp.CSS("pre.diff")))
	del = evaluate[[]string](t, b, `[...document.querySelectorAll("pre.diff span.del")].map(s => s.textContent)`)
	add = evaluate[[]string](t, b, `[...document.querySelectorAll("pre.diff span.add")].map(s => s.textContent)`)
	if !anyContains(del, "Iteration: 1 of 3") || !anyContains(add, "Iteration: 3 of 3") {
		t.Errorf("the diff of 1 and 3: removed %q, added %q", del, add)
	}
	b.Screenshot(t, "diff.png")

	for _, m := range b.Errors() {
		t.Errorf("console: %s (%s:%d)", m, m.URL, m.Line)
	}
}

// browse returns what runs steps in b's tab, failing t should one fail.
func browse(t *testing.T, b *browsertest.Browser) func(steps ...chromedp.Action[chromedp.Void]) {
	return func(steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(b.Ctx, steps...); err != nil {
			t.Fatal(err)
		}
	}
}

// evaluate is the value of a JavaScript expression in b's page.
func evaluate[T any](t *testing.T, b *browsertest.Browser, expression string) T {
	t.Helper()
	v, err := chromedp.Run(b.Ctx, chromedp.Evaluate[T](expression))
	if err != nil {
		t.Fatalf("%s: %v", expression, err)
	}
	return v
}

// evaluateDuring is evaluate for a page that may be reloading: an
// expression asked as it goes (its context destroyed) is no value, not
// a failure.
func evaluateDuring[T any](b *browsertest.Browser, expression string) (T, bool) {
	v, err := chromedp.Run(b.Ctx, chromedp.Evaluate[T](expression))
	return v, err == nil
}

func anyContains(list []string, part string) bool {
	for _, s := range list {
		if strings.Contains(s, part) {
			return true
		}
	}
	return false
}

// lastRunID is the id of the newest run recorded in w.
func (w *workspace) lastRunID() string {
	w.t.Helper()
	id, err := runlog.Find(filepath.Join(w.dir, ".rooda", "runs"), "last")
	if err != nil {
		w.t.Fatal(err)
	}
	return id
}

// runStatus is the status the newest run's record gives.
func (w *workspace) runStatus() string {
	w.t.Helper()
	dir := filepath.Join(w.dir, ".rooda", "runs")
	run, err := runlog.ReadRun(dir, w.lastRunID())
	if err != nil {
		w.t.Fatal(err)
	}
	return run.Status
}
