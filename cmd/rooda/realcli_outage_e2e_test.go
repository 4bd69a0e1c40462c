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

// outageNotice bounds how long, from its start, rooda may take to say
// that it waits for the model's server, with the default settings: the
// CLI's own retries come first (claude's ten take about 3 minutes), and
// an agent that only retries for want of its server (codex and gemini,
// which retry without end) is stopped after 2 minutes of it.
const outageNotice = 5 * time.Minute

// serverDownIsWaitedOut: with the model's server down and the default
// settings (no timeout flag), rooda says within outageNotice of its start
// that it waits before running the iteration again; the server comes
// back, the same iteration succeeds, and no failure is counted.
func serverDownIsWaitedOut(t *testing.T, cli realcli.Installed) {
	script := modelserver.Script{modelserver.Text("All done. " + successSignal)}
	r := newRealRun(t, cli, script...)
	addr := strings.TrimPrefix(r.server.URL, "http://")
	r.server.Close()
	cmd := exec.Command(binary(t), "build", "--ai-cmd-alias", cli.Name, "-n", "1", "--failure-threshold", "1")
	cmd.Dir, cmd.Env = r.dir, r.env
	s := r.start(cmd)
	said := waitForText(t, s.stderr, " before running iteration 1/1 again", s.at.Add(outageNotice))
	t.Logf("%s, its server down: rooda said it waits %s after its start: %s", cli.Name, time.Since(s.at).Round(time.Second), said)
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

// waitForText waits until buf holds text, until deadline at most, and
// returns its line; it fails the test if it never does.
func waitForText(t *testing.T, buf *bytes.Buffer, text string, deadline time.Time) string {
	t.Helper()
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
			t.Fatalf("no %q by %s:\n%s", text, deadline.Format("15:04:05"), log)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
