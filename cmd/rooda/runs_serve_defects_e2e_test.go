package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
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

// servedFiles are the files of the records a run page loads, as the
// page's script asks for them.
func servedFiles(t *testing.T, address, id, page string) []string {
	return nil
}
