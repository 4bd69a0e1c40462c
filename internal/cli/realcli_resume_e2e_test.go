package cli

import (
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"rooda/internal/modelserver"
	"rooda/internal/realcli"
)

// resumesAfterAKill: rooda killed (SIGKILL) while the CLI waits on its
// model in iteration 2 is resumed with runs resume: iteration 1, which
// ended, is answered from the journal without the CLI (the model server
// sees no request for it again), iteration 2 runs again and succeeds,
// and the record says so.
func resumesAfterAKill(t *testing.T, cli realcli.Installed) {
	r := newRealRun(t, cli, modelserver.Text("Part one is done."), modelserver.Hang(), modelserver.Text("All done. "+successSignal))
	cmd := exec.Command(binary(t), "build", "--ai-cmd-alias", cli.Name, "-n", "3")
	cmd.Dir, cmd.Env = r.dir, r.env
	s := r.start(cmd)
	r.waitForLog(s, "Iteration 2/3 starting", "rooda never started iteration 2")
	waitUntil(t, "the CLI of iteration 2 asked its model", func() bool { return len(r.server.Turns()) >= 2 }, s.stderr.String)
	s.cmd.Process.Signal(syscall.SIGKILL)
	killedWait(t, s)
	asked := len(r.server.Turns())
	resume := exec.Command(binary(t), "runs", "resume")
	resume.Dir, resume.Env = r.dir, r.env
	o := r.wait(r.start(resume))
	o.expect(t, 0, "Iteration 1/3: from the journal, not run again (continue)", "Iteration 2/3 starting again (it was in flight when the run stopped)", "Success: the agent signaled SUCCESS in iteration 2/3")
	if again := len(r.server.Turns()) - asked; again < 1 || strings.Contains(o.stderr, "Iteration 1/3 starting") {
		t.Errorf("%d turns after the resume; iteration 1 ran again: %v\n%s", again, strings.Contains(o.stderr, "Iteration 1/3 starting"), o.stderr)
	}
	if m := r.meta(2); !m.RanAgain || m.Outcome != "success" {
		t.Errorf("meta of iteration 2: %+v", m)
	}
	t.Logf("%s: killed in iteration 2 and resumed: %s", cli.Name, o.took.Round(100e6))
}
