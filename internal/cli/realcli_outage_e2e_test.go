package cli

import (
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
	up, err := r.server.Down()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary(t), "build", "--ai-cmd-alias", cli.Name, "-n", "1", "--failure-threshold", "1")
	cmd.Dir, cmd.Env = r.dir, r.env
	s := r.start(cmd)
	said := r.waitForLogWithin(s, " before running iteration 1/1 again", "rooda never said it waits for the server", outageNotice)
	t.Logf("%s, its server down: rooda said it waits %s after its start: %s", cli.Name, time.Since(s.at).Round(time.Second), said)
	r.servedAgainAndWaitedOut(s, up, script, outageNotice)
}

// servedAgainAndWaitedOut serves script again where the run s waits for
// its model's server (up, from Server.Down), and checks that the run ends
// in a success after a wait, with no failure counted.
func (r *realRun) servedAgainAndWaitedOut(s started, up func(modelserver.Script) (*modelserver.Server, error), script modelserver.Script, notice time.Duration) outcome {
	r.t.Helper()
	back, err := up(script)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(back.Close)
	o := r.waitWithin(s, hangGuard+notice)
	o.expect(r.t, 0, "Success: the agent signaled SUCCESS in iteration 1/1")
	if strings.Contains(o.stderr, "(failure") {
		r.t.Errorf("a failure was counted:\n%s", o.stderr)
	}
	if m := r.meta(1); m.Waited < 1 || m.Outcome != "success" {
		r.t.Errorf("meta: %+v", m)
	}
	return o
}
