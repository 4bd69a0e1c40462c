package runpage

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"rooda/host/agentstream"
	"rooda/host/git"
	"rooda/host/journal"
	"rooda/host/loop"
	"rooda/host/process"
	"rooda/host/runlog"
)

// step is one iteration of a recorded run.
type step struct {
	prompt, output, transcript string
	outcome                    loop.Outcome
	cause                      loop.Cause
	took, waited               time.Duration
	dropped                    int64
	files                      []string
	spent                      loop.Spend
}

// record writes a finished run named name under dir, as the recorder
// of a real run does, and returns its id.
func record(t *testing.T, dir, name, procedure string, steps ...step) string {
	t.Helper()
	r, err := runlog.Start(dir, name, []string{"rooda", "run", name}, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	l := r.NewLoop("", journal.Key{})
	l.LoopStarted(procedure, nil, []string{"fake-agent"}, nil)
	for i, s := range steps {
		l.IterationStarted(loop.Request{Iteration: i + 1, Prompt: s.prompt})
		it := &loop.Iteration{
			Number: i + 1, Prompt: s.prompt, Outcome: s.outcome, Cause: s.cause, Duration: s.took, Waited: s.waited,
			Result: process.Result{Output: []byte(s.output), Total: int64(len(s.output)) + s.dropped, Dropped: s.dropped}, Spent: s.spent, Changes: &git.Changes{InRepo: true, Files: s.files},
		}
		if s.transcript != "" {
			it.Decoded, it.Transcript = &agentstream.Summary{Format: "claude"}, []byte(s.transcript)
		}
		l.IterationFinished(it)
	}
	if err := r.Finish(loop.Success); err != nil {
		t.Fatal(err)
	}
	return r.ID()
}

// threeIterations is the run the issue asks the browser to see: a
// failure, an iteration after a limit wait, and a success.
func threeIterations(t *testing.T, dir string) string {
	return record(t, dir, "build", "build",
		step{prompt: "line one\nline two\n", output: "crashed", outcome: loop.OutcomeFailure, cause: loop.Cause("rate_limit"), took: 2 * time.Second, dropped: 100},
		step{prompt: "line one\nline 2\n", output: "did it", outcome: loop.OutcomeContinue, took: 4 * time.Second, waited: 30 * time.Second, files: []string{"main.go"},
			spent: loop.Spend{Tokens: agentstream.Usage{Input: 1000, Output: 200}, CostUSD: 0.01, Costed: true}},
		step{prompt: "line one\nline 2\nline three\n", output: "<promise>SUCCESS</promise>", outcome: loop.OutcomeSuccess, took: 6 * time.Second,
			spent: loop.Spend{Tokens: agentstream.Usage{Input: 500, Output: 100}, CostUSD: 0.005, Costed: true}},
	)
}

// get asks the handler of dir for path.
func get(t *testing.T, dir, path string) (*http.Response, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	Handler(dir, DefaultAddr).ServeHTTP(rec, httptest.NewRequest("GET", "http://127.0.0.1:8080"+path, nil))
	res := rec.Result()
	body, _ := io.ReadAll(res.Body)
	return res, string(body)
}

// mustContain fails for each of want that page lacks.
func mustContain(t *testing.T, what, page string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(page, w) {
			t.Errorf("%s lacks %q", what, w)
		}
	}
}

func count(page, pattern string) int { return len(regexp.MustCompile(pattern).FindAllString(page, -1)) }

// TestListPage: the list reads every run, newest first, with its status,
// procedure, iterations, duration and cost, and a relative link to it.
func TestListPage(t *testing.T) {
	dir := t.TempDir()
	older := record(t, dir, "plan", "plan", step{prompt: "p", outcome: loop.OutcomeSuccess})
	newer := threeIterations(t, dir)
	res, page := get(t, dir, "/")
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("status %d, %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	mustContain(t, "the list", page, "<!doctype html>", `<html lang="en">`, `<link rel="icon" href="data:,">`, `<table id="runs">`,
		`<tr class="run" data-id="`+newer+`" data-status="success">`, `<a class="run-link" href="runs/`+newer+`">`+newer+`</a>`,
		`<td class="name">build</td>`, `<td class="iterations">3</td>`, `<td class="cost">$0.02</td>`)
	if strings.Index(page, newer) > strings.Index(page, older) || count(page, `<tr class="run"`) != 2 {
		t.Errorf("want two runs, newest first:\n%s", page)
	}
}

// TestRunPage: the run page has its summary, a bar per iteration with its
// hover, the wait before the second, the spend chart, and per iteration
// a hidden section with its prompt, output, facts (what of the output was
// dropped included), files and prompt diff.
func TestRunPage(t *testing.T) {
	dir := t.TempDir()
	id := threeIterations(t, dir)
	res, page := get(t, dir, "/runs/"+id)
	if res.StatusCode != 200 {
		t.Fatalf("status %d: %s", res.StatusCode, page)
	}
	mustContain(t, "the run page", page, "<!doctype html>", `<html lang="en">`, `<link rel="icon" href="data:,">`,
		"<h1>Run <code>"+id+"</code></h1>", `<div id="summary">`, `<svg id="timeline"`, `<svg id="spend"`, `<nav id="iterations"`,
		`<a href="#it-1"><rect class="bar" data-iteration="1" data-outcome="failure"`,
		`<title>Iteration 1: failure, cause rate_limit, 2s</title>`,
		`<title>Iteration 2: continue, 4s, waited 30s for a limit</title>`,
		`<rect class="wait" data-iteration="2"`,
		`data-outcome="success"`, `<polyline class="spent"`, "$0.02",
		`<section class="iteration" id="it-3" data-iteration="3">`,
		`<h4>Prompt <small>(<a href="`+id+`/iterations/3/prompt">prompt.txt</a>, 27 bytes)</small></h4>`,
		`<pre class="prompt" data-src="`+id+`/iterations/3/prompt"></pre>`,
		`<pre class="output" data-src="`+id+`/iterations/3/output"></pre>`,
		`<dl class="facts">`, `<dt>Output</dt><dd>107 bytes, 100 dropped</dd>`, `<ul class="files"><li><code>main.go</code></li></ul>`,
		`<h4>Prompt diff against iteration 1</h4>`+"\n"+`<pre class="diff" data-src="`+id+`/diff?from=1&to=2"></pre>`,
		`<form class="diff-form" method="get" action="`+id+`/diff">`, `name="from"`, `name="to"`)
	if n := count(page, `<rect class="bar"`); n != 3 {
		t.Errorf("%d bars, want 3", n)
	}
	if n := count(page, `<rect class="wait"`); n != 1 {
		t.Errorf("%d waits, want 1", n)
	}
	if n := count(page, `<pre class="diff" data-src=`); n != 2 {
		t.Errorf("%d prompt diffs, want 2 (none for the first iteration)", n)
	}
	if strings.Contains(page, "location.reload") {
		t.Errorf("a finished run's page would reload")
	}
	for path, want := range map[string]string{
		"/runs/" + id + "/iterations/3/prompt": "line one\nline 2\nline three\n",
		"/runs/" + id + "/iterations/3/output": "<promise>SUCCESS</promise>",
	} {
		res, text := get(t, dir, path)
		if res.StatusCode != 200 || text != want || res.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
			t.Errorf("%s: status %d, %s, %q; want %q as plain text", path, res.StatusCode, res.Header.Get("Content-Type"), text, want)
		}
	}
	_, diff := get(t, dir, "/runs/"+id+"/diff?from=1&to=2")
	mustContain(t, "the diff the page loads", diff, `<span class="del">- line two</span>`, `<span class="add">&#43; line 2</span>`)
	if strings.Contains(page, "ran at once") {
		t.Errorf("a run of one loop is said to have had loops at once")
	}
}

// TestSpendChartEmpty: a run that reported nothing spent says so.
func TestSpendChartEmpty(t *testing.T) {
	dir := t.TempDir()
	id := record(t, dir, "build", "build", step{prompt: "p", outcome: loop.OutcomeContinue})
	_, page := get(t, dir, "/runs/"+id)
	mustContain(t, "the run page", page, `<text class="empty"`)
	if strings.Contains(page, "<polyline") {
		t.Errorf("a chart of nothing spent")
	}
}

// TestDiffPage: the diff of two prompts, and a clear 400 for numbers
// that are not iterations, a 404 for one the run does not have.
func TestDiffPage(t *testing.T) {
	dir := t.TempDir()
	id := threeIterations(t, dir)
	res, page := get(t, dir, "/runs/"+id+"/diff?from=1&to=3")
	if res.StatusCode != 200 {
		t.Fatalf("status %d: %s", res.StatusCode, page)
	}
	mustContain(t, "the diff page", page, `<pre class="diff">`, `<span class="del">- line two</span>`, `<span class="add">&#43; line three</span>`)
	for query, want := range map[string]int{"from=x&to=2": 400, "from=0&to=2": 400, "to=2": 400, "from=1&to=9": 404} {
		res, page := get(t, dir, "/runs/"+id+"/diff?"+query)
		if res.StatusCode != want || !strings.Contains(page, "<!doctype html>") {
			t.Errorf("%s: status %d, want %d", query, res.StatusCode, want)
		}
		if want == 400 && !strings.Contains(page, "is not an iteration number") {
			t.Errorf("%s: no clear message: %s", query, page)
		}
	}
}

// TestUnknownRunsAre404: only a recorded run's exact id is served; a
// path of dots or a part of an id never reaches the file system.
func TestUnknownRunsAre404(t *testing.T) {
	dir := t.TempDir()
	id := threeIterations(t, dir)
	os.WriteFile(filepath.Join(filepath.Dir(dir), "secret.json"), []byte("TOP-SECRET-CONTENT"), 0o644)
	for _, path := range []string{"/runs/nope", "/runs/..%2F..%2Fetc", "/runs/%2E%2E", "/runs/..%2Fsecret.json/version", "/runs/" + id[:10], "/runs/nope/diff?from=1&to=2", "/runs/nope/version", "/favicon.ico", "/elsewhere"} {
		res, page := get(t, dir, path)
		if res.StatusCode != 404 || strings.Contains(page, "TOP-SECRET-CONTENT") {
			t.Errorf("%s: status %d, want 404", path, res.StatusCode)
		}
	}
}

// TestHeaders: every response says what the page may do: nothing but its
// own style and script, by their hashes, and the type as given.
func TestHeaders(t *testing.T) {
	dir := t.TempDir()
	id := threeIterations(t, dir)
	for _, path := range []string{"/", "/runs/" + id, "/runs/nope"} {
		res, _ := get(t, dir, path)
		csp := res.Header.Get("Content-Security-Policy")
		if !strings.HasPrefix(csp, "default-src 'none';") || strings.Contains(csp, "unsafe") || res.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: CSP %q, nosniff %q", path, csp, res.Header.Get("X-Content-Type-Options"))
		}
	}
}

// TestInlineStyleAndScriptMatchTheirHashes: the CSP allows the inline
// style and the live script by their hashes, which must be those of the
// bytes in the page, or the browser refuses them.
func TestInlineStyleAndScriptMatchTheirHashes(t *testing.T) {
	dir := t.TempDir()
	r, _ := going(t, dir)
	id := r.ID()
	res, page := get(t, dir, "/runs/"+id)
	csp := res.Header.Get("Content-Security-Policy")
	for element, want := range map[string]int{"style": 1, "script": 2} {
		all := regexp.MustCompile(`(?s)<`+element+`>(.*?)</`+element+`>`).FindAllStringSubmatch(page, -1)
		if len(all) != want {
			t.Fatalf("%d <%s> in the page of a run going on, want %d", len(all), element, want)
		}
		for _, m := range all {
			sum := sha256.Sum256([]byte(m[1]))
			if h := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; !regexp.MustCompile(element + `-src [^;]*` + regexp.QuoteMeta(h)).MatchString(csp) {
				t.Errorf("the <%s>'s hash %s is not what the CSP allows: %s", element, h, csp)
			}
		}
	}
}

// going records a run that is going on, in its first iteration: this
// test's process is its rooda, alive. It returns the run's record and
// its loop's.
func going(t *testing.T, dir string) (*runlog.Recorder, *runlog.LoopRecord) {
	t.Helper()
	r, err := runlog.Start(dir, "build", nil, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	l := r.NewLoop("", journal.Key{})
	l.LoopStarted("build", nil, nil, nil)
	l.IterationStarted(loop.Request{Iteration: 1, Prompt: "p"})
	return r, l
}

// TestGoingRunReloads: the page of a run going on checks its version and
// reloads when it changes; the version changes as an iteration starts
// and as the run ends, and then the page has no script.
func TestGoingRunReloads(t *testing.T) {
	dir := t.TempDir()
	r, l := going(t, dir)
	id := r.ID()
	_, page := get(t, dir, "/runs/"+id)
	_, before := get(t, dir, "/runs/"+id+"/version")
	mustContain(t, "the page of a run going on", page, `<body data-version="`+before+`">`, "<script>", "/version", "location.reload()",
		`<rect class="bar" data-iteration="1" data-outcome="running"`)
	l.IterationStarted(loop.Request{Iteration: 2, Prompt: "p"})
	_, started := get(t, dir, "/runs/"+id+"/version")
	if started == before {
		t.Errorf("the version %q did not change as an iteration started", started)
	}
	r.Finish(loop.Success)
	if _, ended := get(t, dir, "/runs/"+id+"/version"); ended == started {
		t.Errorf("the version %q did not change as the run ended", ended)
	}
	if _, page := get(t, dir, "/runs/"+id); strings.Contains(page, "location.reload") || strings.Contains(page, "data-version") {
		t.Errorf("the page of a run that ended still reloads")
	}
}

// TestServedByName: served with --addr NAME:PORT, the pages answer
// requests for that name, whatever the port (a tunnel's), as well as for
// localhost and addresses, and refuse other names.
func TestServedByName(t *testing.T) {
	dir := t.TempDir()
	id := threeIterations(t, dir)
	h := Handler(dir, "builds.lan:8080")
	for host, want := range map[string]int{"builds.lan:8080": 200, "BUILDS.lan:9000": 200, "localhost:8080": 200, "192.0.2.7:8080": 200, "[::1]:8080": 200, "other.lan:8080": 421, "builds.lan.evil.example:8080": 421} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "http://"+host+"/runs/"+id, nil))
		if rec.Code != want {
			t.Errorf("Host %s: status %d, want %d", host, rec.Code, want)
		}
	}
}

// stuckWriter is a client that never reads: its first write blocks until
// released, after saying it began.
type stuckWriter struct {
	httptest.ResponseRecorder
	began, release chan struct{}
}

func (s *stuckWriter) Write(b []byte) (int, error) {
	close(s.began)
	<-s.release
	return len(b), nil
}

func (s *stuckWriter) WriteString(text string) (int, error) { return s.Write([]byte(text)) }

// TestSlowDiffReaderHoldsNoOtherDiff: diffs are made one at a time, but a
// client that does not read its diff page holds no other diff up once
// its page is made.
func TestSlowDiffReaderHoldsNoOtherDiff(t *testing.T) {
	dir := t.TempDir()
	id := threeIterations(t, dir)
	h := Handler(dir, DefaultAddr)
	stuck := &stuckWriter{ResponseRecorder: *httptest.NewRecorder(), began: make(chan struct{}), release: make(chan struct{})}
	defer close(stuck.release)
	go h.ServeHTTP(stuck, httptest.NewRequest("GET", "http://127.0.0.1:8080/runs/"+id+"/diff?from=1&to=2", nil))
	<-stuck.began
	done := make(chan int, 1)
	go func() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "http://127.0.0.1:8080/runs/"+id+"/diff?from=2&to=3", nil))
		done <- rec.Code
	}()
	select {
	case code := <-done:
		if code != http.StatusOK {
			t.Errorf("the second diff: status %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a client that does not read its diff holds the next diff up")
	}
}

// TestRunPageBoundsItsLists: an iteration that changed thousands of
// files gives a page that names the first hundred and counts the rest.
func TestRunPageBoundsItsLists(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for i := range 5000 {
		files = append(files, fmt.Sprintf("gen/file-%05d.go", i))
	}
	id := record(t, dir, "build", "build", step{prompt: "p", output: "o", outcome: loop.OutcomeContinue, files: files})
	_, page := get(t, dir, "/runs/"+id)
	if n := strings.Count(page, "<li><code>gen/file-"); n != pageListLimit {
		t.Errorf("the page names %d files, want %d", n, pageListLimit)
	}
	mustContain(t, "the run page", page, "… and 4,900 more files (meta.json names every one)")
}

// TestResumedRunPage: the page of a resumed run says when it was resumed,
// and which iteration ran again.
func TestResumedRunPage(t *testing.T) {
	dir := t.TempDir()
	r, l := going(t, dir)
	l.IterationFinished(&loop.Iteration{Number: 1, Prompt: "p", Outcome: loop.OutcomeContinue})
	l.IterationStarted(loop.Request{Iteration: 2, Prompt: "p", Again: true})
	l.IterationFinished(&loop.Iteration{Number: 2, Prompt: "p", Outcome: loop.OutcomeSuccess})
	r.Finish(loop.Success)
	path := filepath.Join(dir, r.ID(), "run.json")
	var run map[string]any
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(data, &run)
	run["resumes"] = []map[string]any{{"at": "2026-11-26T03:00:00Z", "pid": 7}}
	data, _ = json.Marshal(run)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, page := get(t, dir, "/runs/"+r.ID())
	mustContain(t, "the page of a resumed run", page, "<dt>Resumed</dt><dd>2026-11-26T03:00:00Z</dd>",
		"<dt>Ran again</dt><dd>in flight when the run was cut short, it ran again when the run was resumed</dd>")
	if strings.Count(page, "<dt>Ran again</dt>") != 1 {
		t.Errorf("more than the iteration that ran again says so")
	}
}
