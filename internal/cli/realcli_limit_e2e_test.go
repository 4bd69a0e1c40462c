package cli

import (
	"os/exec"
	"testing"
	"time"

	"rooda/internal/modelserver"
	"rooda/internal/realcli"
)

// limitNotice bounds how long, from its start, rooda may take to say that
// it waits out a limit that names no reset, with the default settings:
// the CLI's own retries of the 429 come first (on a loaded 2-core machine
// claude's ten took 3m3s, gemini's 3m41s).
const limitNotice = 5 * time.Minute

// limitWithoutResetIsWaitedOut: the model's server answers every request
// with a 429 that names no time to retry at (no retry-after, no reset in
// the body) until the CLI gives up on its own; with the default settings
// (no timeout flag), rooda reads a limit with no readable reset, says it
// waits 30 s, the first step of its backoff, before running the same
// iteration again, and counts no failure. The limit is lifted meanwhile:
// the iteration runs again and succeeds.
func limitWithoutResetIsWaitedOut(t *testing.T, cli realcli.Installed) {
	r := newRealRun(t, cli, modelserver.Status(429))
	cmd := exec.Command(binary(t), "build", "--ai-cmd-alias", cli.Name, "-n", "1")
	cmd.Dir, cmd.Env = r.dir, r.env
	s := r.start(cmd)
	said := r.waitForLogWithin(s, "; waiting 30s before running iteration 1/1 again", "rooda never said it waits out the limit", limitNotice)
	t.Logf("%s, limited with no reset: rooda said it waits %s after its start, after %d requests: %s",
		cli.Name, time.Since(s.at).Round(time.Second), len(r.server.Requests()), said)
	r.promptArrived()
	up, err := r.server.Down() // the limit is lifted: the same address answers
	if err != nil {
		t.Fatal(err)
	}
	o := r.servedAgainAndWaitedOut(s, up, modelserver.Script{modelserver.Text("All done. " + successSignal)}, limitNotice)
	t.Logf("%s: the run took %s:\n%s", cli.Name, o.took.Round(time.Second), o.stderr)
}
