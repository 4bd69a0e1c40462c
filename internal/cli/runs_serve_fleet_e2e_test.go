package cli

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"rooda/internal/browsertest"
)

// serveFleetPage starts the real `rooda runs serve --fleet` on the
// fleet's server (ROODA_FLEET_SERVER) and returns the address it prints;
// it is interrupted at the test's end.
func (f *testFleet) serveFleetPage() string {
	return serveFleetPageIn(f.w, "ROODA_FLEET_SERVER="+f.url)
}

// serveFleetPageIn is serveFleetPage in w, with env added.
func serveFleetPageIn(w *workspace, env ...string) string {
	t := w.t
	t.Helper()
	cmd := exec.Command(binary(t), "runs", "serve", "--fleet")
	cmd.Dir, cmd.Env, cmd.Stderr = w.dir, append(slices.Clone(w.env), env...), os.Stderr
	stdout, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGINT)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(hangGuard):
			cmd.Process.Kill()
			t.Errorf("rooda runs serve --fleet did not end within %s of an interrupt", hangGuard)
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	m := regexp.MustCompile(`^Serving the fleet's runs at (http://127\.0\.0\.1:\d+/)\n$`).FindStringSubmatch(line)
	if err != nil || m == nil {
		t.Fatalf("rooda runs serve --fleet printed %q (%v), not its address", line, err)
	}
	return m[1]
}

// fleetRowStatus is the status the fleet page shows for run name, "" if
// it shows no such run.
func fleetRowStatus(page, name string) string {
	m := regexp.MustCompile(`<tr class="run" data-name="` + regexp.QuoteMeta(name) + `" data-status="([^"]*)">`).FindStringSubmatch(page)
	if m == nil {
		return ""
	}
	return m[1]
}

// waitForFleetPage fetches the page until ok says it shows what the test
// waits for, and returns it.
func waitForFleetPage(t *testing.T, address, what string, ok func(string) bool) string {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for {
		page := fetch(t, address)
		if ok(page) {
			return page
		}
		if time.Now().After(deadline) {
			t.Fatalf("the fleet page never showed %s:\n%s", what, page)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestRunsServeFleet: the real `rooda runs serve --fleet`, which asks
// rooda-fleet for the fleet's status, lists the fleet's runs as they go:
// two runs queued; then, a worker of one slot started, the first running
// on that worker while the second waits; then both ended success, with
// their iterations and where they ran. The page carries the script that
// reloads it, and its version changes as the fleet does.
// TestRunsServeFleetStartsNoServer: with no fleet server running, the
// page says to start one, and never starts this machine's own, whose
// store it would take from the user's commands: a fleet add made while
// the page is asked again and again starts it and works.
func TestRunsServeFleetStartsNoServer(t *testing.T) {
	t.Parallel()
	fleetBinaries(t)
	w := newWorkspace(t, step{"output": successSignal + "\n"})
	w.gitInit()
	w.env = append(w.env, "XDG_STATE_HOME="+t.TempDir())
	address := serveFleetPageIn(w)
	polled := make(chan string)
	go func() {
		var page string
		for range 20 {
			page = fetch(t, address)
		}
		polled <- page
	}()
	for n := range 3 {
		add := exec.Command(binary(t), "fleet", "add", "--name", fmt.Sprint("run-", n), "build", "-n", "1", "--ai-cmd", w.aiCmd())
		add.Dir, add.Env = w.dir, w.env
		if out, err := add.CombinedOutput(); err != nil {
			t.Errorf("fleet add %d while the page was asked: %v\n%s", n, err, out)
		}
	}
	if page := <-polled; !strings.Contains(page, "start one with rooda fleet serve") {
		t.Errorf("the page does not say to start a server:\n%s", page)
	}
}

func TestRunsServeFleet(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": "working"}, step{"output": "still working", "delay": "3s"}, step{"output": successSignal + "\n"})
	f := newFleet(t, w)
	for _, name := range []string{"first", "second"} {
		f.fleet("add", "--name", name, "build", "-n", "3", "--ai-cmd", w.aiCmd())
	}
	address := f.serveFleetPage()
	page := fetch(t, address)
	if fleetRowStatus(page, "first") != "queued" || fleetRowStatus(page, "second") != "queued" || !strings.Contains(page, "<body data-version=") {
		t.Fatalf("before any worker, the page does not show both runs queued, live:\n%s", page)
	}
	queued := fetch(t, address+"version")

	worker := f.worker("worker", "--lease", "2s")
	where := fmt.Sprintf(":%d</td>", worker.Process.Pid)
	page = waitForFleetPage(t, address, "the first run running on the worker, the second queued", func(page string) bool {
		return fleetRowStatus(page, "first") == "running" && strings.Contains(page, where)
	})
	if got := fleetRowStatus(page, "second"); got != "queued" {
		t.Errorf("while the first runs on the worker's one slot, the second is %q, not queued", got)
	}
	running := fetch(t, address+"version")
	page = waitForFleetPage(t, address, "both runs ended success", func(page string) bool {
		return fleetRowStatus(page, "first") == "success" && fleetRowStatus(page, "second") == "success"
	})
	if n := strings.Count(page, `<td class="iterations">3</td>`); n != 2 {
		t.Errorf("%d runs show 3 iterations, want both:\n%s", n, page)
	}
	ended := fetch(t, address+"version")
	if queued == running || running == ended {
		t.Errorf("the page's version did not change with the fleet: %q, %q, %q", queued, running, ended)
	}
}

// TestFleetPageInABrowser: in a real Chromium, the page of `rooda runs
// serve --fleet` shows a run queued; once a worker has run it to its
// end, the page has reloaded by itself (nothing navigated it) and shows
// it success, on the worker; and no page writes an error to the console
// (its script allowed by the page's policy); the accounts' ledger shows
// below the runs, the fleet's budget in it. Screenshots are kept (go
// test -artifacts).
func TestFleetPageInABrowser(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": "working"}, step{"output": successSignal + "\n"})
	f := newFleet(t, w)
	f.fleet("add", "--name", "watched", "build", "-n", "3", "--ai-cmd", w.aiCmd())
	f.fleet("budget", "--max-cost-usd", "5")
	b := browsertest.Start(t)
	address := f.serveFleetPage()
	run := browse(t, b)
	run(chromedp.Navigate(address), chromedp.WaitVisible(chromedp.CSS("#fleet")))
	rows := `[...document.querySelectorAll("#fleet tr.run")].map(r => r.dataset.name + " " + r.dataset.status + " " + (r.querySelector(".worker") || {}).textContent)`
	if got := evaluate[[]string](t, b, rows); len(got) != 1 || got[0] != "watched queued -" {
		t.Fatalf("the fleet page: %q, want [watched queued -]", got)
	}
	b.Screenshot(t, "fleet-queued.png")
	// A mark the page loses when it reloads.
	evaluate[bool](t, b, `window.notReloaded = true`)

	worker := f.worker("worker", "--lease", "2s")
	host, _ := os.Hostname()
	want := fmt.Sprintf("watched success %s:%d", host, worker.Process.Pid)
	deadline := time.Now().Add(hangGuard)
	for {
		got, ok := evaluateDuring[[]string](b, rows)
		if ok && len(got) == 1 && got[0] == want {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the page never showed %q by itself: %q\n%s", want, got, f.workerLogs())
		}
		time.Sleep(200 * time.Millisecond)
	}
	if evaluate[bool](t, b, `window.notReloaded === true`) {
		t.Error("the page shows the run's end without having reloaded")
	}
	accounts := `[...document.querySelectorAll("#accounts tr.account")].map(r => r.dataset.name + " " + r.querySelector(".budget").textContent + " " + r.querySelector(".cost").textContent)`
	if got := evaluate[[]string](t, b, accounts); len(got) != 1 || got[0] != "@fleet max_cost_usd $5.00 $0.00 and 0 tokens" {
		t.Errorf("the page's accounts: %q, want the fleet's budget", got)
	}
	b.Screenshot(t, "fleet-ended.png")
	for _, m := range b.Errors() {
		t.Errorf("console: %s (%s:%d)", m, m.URL, m.Line)
	}
}
