package cli

import (
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"rooda/internal/modelserver"
)

// TestRealGeminiQuotaIsWaitedFor: the real gemini, refused with a usage
// limit that resets ten minutes ahead (over the five it retries itself),
// gives up with a quota error that ends "…or switch to another /auth
// method"; rooda reads it as a usage limit, with the reset gemini names,
// and waits for it (Ctrl+C ends the wait) instead of ending the run as a
// login failure.
func TestRealGeminiQuotaIsWaitedFor(t *testing.T) {
	cli := realCLI(t, "gemini")
	r := newRealRun(t, cli, modelserver.UsageLimit(time.Now().Add(10*time.Minute)))
	cmd := exec.Command(binary(t), "build", "--ai-cmd-alias", cli.Name, "-n", "2", "--failure-threshold", "1")
	cmd.Dir, cmd.Env = r.dir, r.env
	s := r.start(cmd)
	r.waitForLog(s, ", then running iteration 1/2 again", "rooda never waited for gemini's usage limit")
	s.cmd.Process.Signal(syscall.SIGINT)
	o := r.wait(s)
	o.expect(t, 130, "WARN: Iteration 1/2: gemini: usage limit; waiting until ", "Interrupted")
	t.Logf("rooda said:\n%s", o.stderr)
	if strings.Contains(o.stderr, "cannot log in") || strings.Contains(o.stderr, "(failure") {
		t.Errorf("read as a login failure, or a failure counted:\n%s", o.stderr)
	}
	// gemini names the delay in whole seconds, from the time it stamps
	// its error with: the wait is ten minutes, less what the run took.
	if !regexp.MustCompile(`, (9m[0-9]+s|10m), then running`).MatchString(o.stderr) {
		t.Errorf("the wait is not about ten minutes:\n%s", o.stderr)
	}
	r.promptArrived()
}
