package cli

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunsServe: the real rooda runs serve, on a run the fake agent
// recorded, prints its URL as its first line, serves the list and the
// run's page, and ends with exit code 0 on SIGINT (serveRuns).
func TestRunsServe(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": "oops\n", "exit": 1}, step{"output": "working\n"}, step{"output": successSignal})
	w.run("build", "-n", "3").expect(t, 0)
	id := w.lastRunID()
	address := w.serveRuns()
	list := fetch(t, address)
	if !strings.Contains(list, `<a class="run-link" href="runs/`+id+`">`) || !strings.Contains(list, `data-status="success"`) {
		t.Errorf("the list lacks the run:\n%s", list)
	}
	page := fetch(t, address+"runs/"+id)
	if n := strings.Count(page, `<rect class="bar"`); n != 3 {
		t.Errorf("%d bars, want 3", n)
	}
	for _, want := range []string{`data-outcome="failure"`, `data-outcome="success"`, `<section class="iteration" id="it-2"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the run page lacks %s", want)
		}
	}
}

// fetch GETs url and fails the test unless it answers 200.
func fetch(t *testing.T, url string) string {
	t.Helper()
	status, body := answer(t, url)
	if status != 200 {
		t.Fatalf("%s: %d\n%s", url, status, body)
	}
	return body
}

// answer GETs url: its status code and body.
func answer(t *testing.T, url string) (int, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(body)
}

// TestRunsReport: rooda runs report last -o FILE writes the run's page,
// whole, to the file, and to stdout without -o.
func TestRunsReport(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": "working\n"}, step{"output": successSignal})
	w.run("build", "-n", "2").expect(t, 0)
	o := w.rooda("runs", "report", "last", "-o", "run.html")
	if o.code != 0 || o.stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", o.code, o.stdout, o.stderr)
	}
	data, err := os.ReadFile(filepath.Join(w.dir, "run.html"))
	if err != nil {
		t.Fatal(err)
	}
	report := string(data)
	if !strings.HasPrefix(report, "<!doctype html>") || strings.Count(report, `<rect class="bar"`) != 2 || !strings.HasSuffix(report, "</html>\n") {
		t.Errorf("the report is not the run's page:\n%s", report)
	}
	if stdout := w.rooda("runs", "report", "last").stdout; stdout != report {
		t.Errorf("runs report to stdout differs from the file")
	}
	if o := w.rooda("runs", "report", "nosuch"); o.code == 0 {
		t.Errorf("a report of no run succeeded")
	}
}
