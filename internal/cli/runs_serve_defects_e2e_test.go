package cli

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"

	"rooda/internal/browsertest"
)

// rawGet sends a GET for path to the server at address (http://HOST:PORT/)
// with the Host header host and the headers given, by hand: Go's client
// would put the address it dials in Host. It returns the status code,
// the response's headers and its body.
func rawGet(t *testing.T, address, host, path string, headers ...string) (int, http.Header, string) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(address, "http://"), "/"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	request := "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n"
	for _, h := range headers {
		request += h + "\r\n"
	}
	if _, err := io.WriteString(conn, request+"\r\n"); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, string(body)
}

// TestRunsServeAnswersOnlyItsOwnHost (issue 27, item 5): a web page whose
// name is rebound to 127.0.0.1 reaches rooda runs serve with its own name
// in Host; the records, prompts and outputs included, must not be given
// to it. The real server answers a foreign Host with 421 and a short
// text naming what it answers, another site's fetch with 403, and no
// response allows a cross-origin read; localhost, 127.0.0.1 and [::1]
// with the port, and a person following a link from elsewhere, are
// answered.
func TestRunsServeAnswersOnlyItsOwnHost(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": "the secret output SECRET-OUTPUT\n" + successSignal})
	w.run("build", "-n", "1").expect(t, 0)
	id := w.lastRunID()
	address := w.serveRuns()
	port := address[strings.LastIndex(address, ":")+1 : len(address)-1]
	for _, path := range []string{"/", "/runs/" + id, "/runs/" + id + "/version"} {
		for _, host := range []string{"evil.example:" + port, "evil.example", "127.0.0.1.evil.example:" + port, "localhost.evil.example", ""} {
			status, header, body := rawGet(t, address, host, path)
			if status != http.StatusMisdirectedRequest || strings.Contains(body, id) || strings.Contains(body, "SECRET-OUTPUT") {
				t.Errorf("Host %q, %s: status %d, want 421 and nothing of the records:\n%s", host, path, status, body)
			}
			if host != "" && !strings.Contains(body, "answers only requests for localhost") {
				t.Errorf("Host %q: the refusal does not say what is answered: %q", host, body)
			}
			if allow := header.Get("Access-Control-Allow-Origin"); allow != "" {
				t.Errorf("Host %q, %s: Access-Control-Allow-Origin %q", host, path, allow)
			}
		}
	}
	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "LOCALHOST:" + port, "[::1]:" + port} {
		if status, header, body := rawGet(t, address, host, "/runs/"+id); status != 200 || !strings.Contains(body, id) || header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("Host %q: status %d, CORS %q; want the page, to this machine's own names", host, status, header.Get("Access-Control-Allow-Origin"))
		}
	}
	host := "127.0.0.1:" + port
	crossSiteFetch := []string{"Sec-Fetch-Site: cross-site", "Sec-Fetch-Mode: cors", "Sec-Fetch-Dest: empty", "Origin: http://evil.example"}
	if status, _, body := rawGet(t, address, host, "/runs/"+id, crossSiteFetch...); status != http.StatusForbidden || strings.Contains(body, id) {
		t.Errorf("another site's fetch: status %d, want 403:\n%s", status, body)
	}
	if status, _, _ := rawGet(t, address, host, "/runs/"+id, "Sec-Fetch-Site: same-site", "Sec-Fetch-Mode: no-cors", "Sec-Fetch-Dest: script"); status != http.StatusForbidden {
		t.Errorf("another port's page loading the run as a script: status %d, want 403", status)
	}
	for _, own := range [][]string{
		{"Sec-Fetch-Site: cross-site", "Sec-Fetch-Mode: navigate", "Sec-Fetch-Dest: document"},
		{"Sec-Fetch-Site: same-origin", "Sec-Fetch-Mode: cors", "Sec-Fetch-Dest: empty"},
		{"Sec-Fetch-Site: none", "Sec-Fetch-Mode: navigate", "Sec-Fetch-Dest: document"},
	} {
		if status, _, _ := rawGet(t, address, host, "/runs/"+id, own...); status != 200 {
			t.Errorf("%q: status %d, want the page", own, status)
		}
	}
}

// TestRecordSymlinksAreNotFollowed (issue 27, item 6): a record lies in
// the workspace, where the agent writes; links it leaves there to a file
// outside the runs directory — as a prompt, an output, a whole iteration,
// a run.json — must not be followed by runs show, runs report, runs diff
// or runs serve. Each says the file is a symbolic link instead, and the
// file's content appears nowhere.
func TestRecordSymlinksAreNotFollowed(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": "working\n"}, step{"output": "working\n"}, step{"output": successSignal})
	w.run("build", "-n", "3").expect(t, 0)
	id := w.lastRunID()
	runDir := filepath.Join(w.dir, ".rooda", "runs", id)
	secrets := t.TempDir()
	const secret = "SECRET-KEY-abc123"
	if err := os.WriteFile(filepath.Join(secrets, "id_ed25519"), []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(secrets, "0003"), 0o755)
	for _, name := range []string{"prompt.txt", "output.txt", "meta.json"} {
		os.WriteFile(filepath.Join(secrets, "0003", name), []byte(secret), 0o600)
	}
	link := func(target, at string) {
		t.Helper()
		path := filepath.Join(runDir, at)
		if err := os.RemoveAll(path); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, path); err != nil {
			t.Fatal(err)
		}
	}
	link(filepath.Join(secrets, "id_ed25519"), "iterations/0001/prompt.txt")
	link(filepath.Join(secrets, "id_ed25519"), "iterations/0001/output.txt")
	link(filepath.Join(secrets, "id_ed25519"), "iterations/0002/meta.json")
	link(filepath.Join(secrets, "0003"), "iterations/0003")

	said := func(what string, o outcome) {
		t.Helper()
		if strings.Contains(o.stdout+o.stderr, secret) {
			t.Errorf("%s followed a link out of the record:\n%s%s", what, o.stdout, o.stderr)
		}
	}
	for _, file := range []string{"--prompt", "--output"} {
		o := w.rooda("runs", "show", "last", "--iteration", "1", file)
		said("runs show --iteration 1 "+file, o)
		if o.code == 0 || !strings.Contains(o.stderr, "a symbolic link, which is not followed") {
			t.Errorf("runs show --iteration 1 %s: exit %d, stderr %q; want it refused as a symbolic link", file, o.code, o.stderr)
		}
	}
	for _, n := range []string{"2", "3"} {
		said("runs show --iteration "+n, w.rooda("runs", "show", "last", "--iteration", n))
		said("runs show --iteration "+n+" --json", w.rooda("runs", "show", "last", "--iteration", n, "--json"))
		said("runs show --iteration "+n+" --prompt", w.rooda("runs", "show", "last", "--iteration", n, "--prompt"))
	}
	said("runs diff 1 2", w.rooda("runs", "diff", "last", "1", "2"))
	said("runs diff 2 3", w.rooda("runs", "diff", "last", "2", "3"))
	report := w.rooda("runs", "report", "last")
	said("runs report", report)
	if !strings.Contains(report.stdout, "prompt.txt: a symbolic link, which is not followed") {
		t.Errorf("the report does not say iteration 1's prompt is a symbolic link:\n%s", report.stdout)
	}

	address := w.serveRuns()
	page := fetch(t, address+"runs/"+id)
	_, diff := answer(t, address+"runs/"+id+"/diff?from=2&to=3")
	for _, served := range append([]string{page, fetch(t, address), diff}, servedFiles(t, address, id, page)...) {
		if strings.Contains(served, secret) {
			t.Errorf("runs serve followed a link out of the record:\n%s", served)
		}
	}

	link(filepath.Join(secrets, "id_ed25519"), "run.json")
	o := w.rooda("runs", "show", "last")
	said("runs show of a run.json that is a link", o)
	if o := w.rooda("runs", "list"); !strings.Contains(o.stdout, "unreadable") || strings.Contains(o.stdout, secret) {
		t.Errorf("runs list of a run.json that is a link:\n%s%s", o.stdout, o.stderr)
	}
}

// servedFiles are what a run page's script loads, its records' texts
// and prompt diffs, whatever the status, and the texts it links to for
// records it could not read.
func servedFiles(t *testing.T, address, id, page string) []string {
	t.Helper()
	var served []string
	for _, m := range regexp.MustCompile(`(?:data-src|href)="(`+regexp.QuoteMeta(id)+`/[^"]+)"`).FindAllStringSubmatch(page, -1) {
		_, body := answer(t, address+"runs/"+html.UnescapeString(m[1]))
		served = append(served, body)
	}
	for n := 1; n <= 3; n++ {
		for _, text := range []string{"prompt", "output", "transcript"} {
			_, body := answer(t, fmt.Sprintf("%sruns/%s/iterations/%d/%s", address, id, n, text))
			served = append(served, body)
		}
	}
	if len(served) < 12 {
		t.Errorf("the run page loads %d texts and diffs, want at least 3:\n%s", len(served)-9, page)
	}
	return served
}

// TestRunPageOfALargeRecord (issue 27, item 10): a run page inlined every
// iteration's whole prompt and output, so a record of ~100 MB made a page
// of as much and took hundreds of MB of memory per request. The page of
// a record whose first iteration kept a 48 MiB prompt and a 48 MiB
// output is now small, and the server answers it, eight at once, and
// gives the files themselves (whole, and a piece by Range), and refuses
// to diff that prompt (rooda runs diff does), while its peak resident
// memory stays under 64 MiB: less than one of those files held whole
// besides the program.
func TestRunPageOfALargeRecord(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": "working\n"}, step{"output": successSignal})
	w.run("build", "-n", "2").expect(t, 0)
	id := w.lastRunID()
	iteration := filepath.Join(w.dir, ".rooda", "runs", id, "iterations", "0001")
	const size = 48 << 20
	line := strings.Repeat("the agent said this, at length; ", 3) + "\n"
	large := strings.Repeat(line, size/len(line)+1)[:size]
	for _, name := range []string{"prompt.txt", "output.txt"} {
		if err := os.WriteFile(filepath.Join(iteration, name), []byte(large), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	address, pid := w.serveRunsProcess()
	var pages sync.WaitGroup
	for range 8 {
		pages.Go(func() {
			if status, page := answer(t, address+"runs/"+id); status != 200 || len(page) > 256<<10 {
				t.Errorf("the run page: status %d, %d bytes; want it whole and under 256 KiB", status, len(page))
			}
		})
	}
	pages.Wait()
	status, header, piece := rawGet(t, address, "127.0.0.1"+address[strings.LastIndex(address, ":"):len(address)-1], "/runs/"+id+"/iterations/1/output", "Range: bytes=1000-1999")
	if status != http.StatusPartialContent || piece != large[1000:2000] || header.Get("Content-Range") != fmt.Sprintf("bytes 1000-1999/%d", size) {
		t.Errorf("a piece of the output: status %d, %q, %d bytes; want 206 and bytes 1000-1999", status, header.Get("Content-Range"), len(piece))
	}
	if status, whole := answer(t, address+"runs/"+id+"/iterations/1/prompt"); status != 200 || whole != large {
		t.Errorf("the whole prompt: status %d, %d bytes; want the %d recorded", status, len(whole), size)
	}
	if status, diff := answer(t, address+"runs/"+id+"/diff?from=1&to=2"); status != 404 || !strings.Contains(diff, "too large to diff here; rooda runs diff "+id+" 1 2 shows it") {
		t.Errorf("the diff of a 48 MiB prompt: status %d; want it refused, naming rooda runs diff:\n%.2000s", status, diff)
	}
	if peak := peakRSS(t, pid); peak > 64<<20 {
		t.Errorf("rooda runs serve reached %d MiB resident serving a record of 96 MiB; want under 64 MiB", peak>>20)
	} else {
		t.Logf("peak resident memory of rooda runs serve: %.1f MiB", float64(peak)/(1<<20))
	}
}

// peakRSS is the peak resident memory of process pid so far (VmHWM).
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("NOT TESTED: no /proc to read the memory of: %v", err)
	}
	for line := range strings.Lines(string(data)) {
		if kb, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(kb), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n << 10
		}
	}
	t.Fatalf("no VmHWM in /proc/%d/status", pid)
	return 0
}

// TestLargeOutputInABrowser (issue 27, item 10): in a real Chromium, an
// iteration's output of 600 KiB is shown a piece at a time: its first
// 256 KiB when the iteration is opened, and a button shows the rest; the
// text shown at the end is the output exactly, characters cut between two
// pieces included.
func TestLargeOutputInABrowser(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": successSignal})
	w.run("build", "-n", "1").expect(t, 0)
	id := w.lastRunID()
	output := strings.Repeat("naïve 日本語 output, line by line\n", 600<<10/40)
	if err := os.WriteFile(filepath.Join(w.dir, ".rooda", "runs", id, "iterations", "0001", "output.txt"), []byte(output), 0o644); err != nil {
		t.Fatal(err)
	}
	b := browsertest.Start(t)
	address := w.serveRuns()
	run := browse(t, b)
	run(chromedp.Navigate(address+"runs/"+id+"#it-1"), chromedp.WaitVisible(chromedp.CSS(`#it-1 pre.output[data-state="partial"]`)))
	if shown := evaluate[int](t, b, `new Blob([document.querySelector("#it-1 pre.output").textContent]).size`); shown > 256<<10 || shown < 250<<10 {
		t.Errorf("%d bytes of the output shown at first, want its first piece, 256 KiB", shown)
	}
	if more := evaluate[string](t, b, `document.querySelector("#it-1 button.more").textContent`); !strings.HasPrefix(more, "Show more (256 KiB of ") {
		t.Errorf("the button reads %q", more)
	}
	b.Screenshot(t, "large-output.png")
	run(chromedp.Click(chromedp.CSS("#it-1 button.more")), chromedp.WaitVisible(chromedp.CSS(`#it-1 pre.output[data-state="partial"][data-shown="524288"]`)),
		chromedp.Click(chromedp.CSS("#it-1 button.more")), chromedp.WaitVisible(chromedp.CSS(`#it-1 pre.output[data-state="loaded"]`)))
	if shown := evaluate[string](t, b, `document.querySelector("#it-1 pre.output").textContent`); shown != output {
		t.Errorf("the output shown (%d bytes) is not the output recorded (%d bytes)", len(shown), len(output))
	}
	if n := evaluate[int](t, b, `document.querySelectorAll("#it-1 button.more").length`); n != 0 {
		t.Errorf("the button stays once the whole output is shown")
	}
	for _, m := range b.Errors() {
		t.Errorf("console: %s (%s:%d)", m, m.URL, m.Line)
	}
}
