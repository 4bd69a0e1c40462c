package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
	"time"

	"rooda/internal/modelserver"
	"rooda/internal/realcli"
)

// outageNotice bounds how long rooda may take to say that it waits for
// the model's server: the CLI's own retries come first (claude's ten
// take about 3 minutes).
const outageNotice = 5 * time.Minute

// outageUnread are the CLIs whose outage rooda cannot tell from a hang
// yet, and why: their try ends at the iteration timeout, a failure.
var outageUnread = map[string]string{
	"gemini": "gemini reports its retries (\"Attempt 3 failed. Retrying with backoff... fetch failed\") on stderr, outside its JSON, and never gives up",
}

// serverDownIsWaitedOut: with the model's server down, rooda says within
// outageNotice that it waits before running the iteration again; the
// server comes back, the same iteration succeeds, and no failure is
// counted. codex and gemini retry without end, so an iteration timeout
// ends each try; max_limit_wait bounds the run if the server never came
// back.
func serverDownIsWaitedOut(t *testing.T, cli realcli.Installed) {
	script := modelserver.Script{modelserver.Text("All done. " + successSignal)}
	r := newRealRun(t, cli, script...)
	addr := strings.TrimPrefix(r.server.URL, "http://")
	r.server.Close()
	cmd := exec.Command(binary(t), "build", "--ai-cmd-alias", cli.Name, "-n", "1", "--failure-threshold", "1",
		"--iteration-timeout", "120", "--max-limit-wait", "5m")
	cmd.Dir, cmd.Env = r.dir, r.env
	s := r.start(cmd)
	if why, unread := outageUnread[cli.Name]; unread {
		o := r.waitWithin(s, outageNotice)
		o.expect(t, 1, "[timeout]", "(failure, consecutive: 1/1)")
		if strings.Contains(o.stderr, "again") {
			t.Errorf("rooda now waits out %s's outage: take it out of outageUnread\n%s", cli.Name, o.stderr)
		}
		t.Logf("%s: not read as an outage: %s", cli.Name, why)
		return
	}
	said := waitForText(t, s.stderr, " before running iteration 1/1 again", outageNotice)
	t.Logf("%s, its server down: %s", cli.Name, said)
	back, err := modelserver.Listen(addr, script)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(back.Close)
	o := r.waitWithin(s, hangGuard+outageNotice)
	o.expect(t, 0, "Success: the agent signaled SUCCESS in iteration 1/1")
	if strings.Contains(o.stderr, "(failure") {
		t.Errorf("a failure was counted:\n%s", o.stderr)
	}
	if m := r.meta(1); m.Waited < 1 || m.Outcome != "success" {
		t.Errorf("meta: %+v", m)
	}
}

// waitForText waits until buf holds text, for at most within, and
// returns its line; it fails the test if it never does.
func waitForText(t *testing.T, buf *bytes.Buffer, text string, within time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		log := buf.String()
		if i := strings.Index(log, text); i >= 0 {
			start := strings.LastIndexByte(log[:i], '\n') + 1
			end := i + len(text)
			if j := strings.IndexByte(log[end:], '\n'); j >= 0 {
				end += j
			}
			return log[start:end]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q within %s:\n%s", text, within, log)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
