package cli

import (
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"rooda/internal/modelserver"
)

// realSilentLimit (TestRealCLIs' opencode_silent_limit): opencode waits out a long usage limit (a 429
// whose reset is 2 h away) without a word on its JSON stream; only its
// log, which the alias has it print on stderr, names the limit. rooda
// reads it: the silent CLI, stopped at model_timeout (silentTimeout), is
// a limit to wait for until its reset, not a hung model, and no failure
// is counted however long the run is watched after (a model_timeout
// more here; without the log's line, it would be a failure).
// silentTimeout is the case's model_timeout: long enough for opencode to
// start and meet its 429 with the whole suite running beside it (20 s
// was not, in CI's run under load, and 60 s once in eight such runs).
const silentTimeout = 120 * time.Second

func realSilentLimit(t *testing.T) {
	t.Parallel()
	cli := realCLI(t, "opencode")
	reset := time.Now().Add(2 * time.Hour)
	r := newRealRun(t, cli, modelserver.UsageLimit(reset))
	cmd := exec.Command(binary(t), "build", "--ai-cmd-alias", cli.Name, "-n", "3", "--failure-threshold", "1", "--model-timeout", silentTimeout.String())
	cmd.Dir, cmd.Env = r.dir, r.env
	s := r.start(cmd)
	said := r.waitForLogWithin(s, "Iteration 1/3: opencode: usage limit; waiting until "+reset.Format("15:04:05"), "rooda never said it waits for the limit's reset", limitNotice)
	t.Logf("rooda, %s after its start: %s", time.Since(s.at).Round(time.Second), said)
	time.Sleep(silentTimeout) // a model_timeout more: rooda waits, counting nothing
	s.cmd.Process.Signal(syscall.SIGINT)
	o := r.wait(s)
	for _, failed := range []string{"(failure", "Aborting", "model_timeout"} {
		if strings.Contains(o.stderr, failed) {
			t.Errorf("the limit was counted as a failure (%q):\n%s", failed, o.stderr)
		}
	}
	if turns := r.server.Turns(); len(turns) != 1 || turns[0].Status != 429 {
		t.Errorf("the limit was not waited for: turns %+v", turns)
	}
	r.promptArrived()
}
