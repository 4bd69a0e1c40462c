package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"rooda/host/config"
	"rooda/host/git"
	"rooda/host/logging"
	"rooda/host/loop"
	"rooda/host/process"
	"rooda/host/shown"
	"rooda/host/units"
)

// checkTimeout and checkOutput bound a check: it runs after every
// iteration, so it must not hold the loop or its memory.
const (
	checkTimeout = 10 * time.Minute
	checkOutput  = 64 << 10
)

// digest keeps the facts of the last iteration for the next prompt (seed
// 003): what the agent did, as rooda observed it, and the results of the
// checks, run when the next prompt is composed (so a last iteration runs
// none). Facts, not judgements.
type digest struct {
	ctx    context.Context
	checks []config.Check
	kill   <-chan struct{}
	facts  string // of the last iteration; "" before the first ends
}

func newDigest(ctx context.Context, checks []config.Check, kill <-chan struct{}) *digest {
	return &digest{ctx: ctx, checks: checks, kill: kill}
}

func (d *digest) IterationStarted(loop.Request) {}

func (d *digest) IterationFinished(it *loop.Iteration) {
	if it.Outcome == loop.OutcomeInterrupted {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Iteration: %d\n", it.Number)
	fmt.Fprintf(&b, "Outcome: %s\n", outcomeText(it.Outcome))
	fmt.Fprintf(&b, "Exit code: %d\n", it.Result.ExitCode)
	if it.Result.Signal != "" {
		fmt.Fprintf(&b, "Killed by: %s\n", it.Result.Signal)
	}
	fmt.Fprintf(&b, "Timed out: %s\n", yesNo(it.Result.TimedOut))
	fmt.Fprintf(&b, "Duration: %s\n", units.Duration(it.Duration))
	fmt.Fprintf(&b, "Signal: %s\n", it.Signals.String())
	if it.Cause != "" {
		fmt.Fprintf(&b, "Cause: %s\n", it.Cause)
	}
	fmt.Fprintf(&b, "Files changed: %s\n", filesText(it.Changes))
	if !it.Spent.IsZero() {
		fmt.Fprintf(&b, "Spent: %s\n", it.Spent)
	}
	d.facts = b.String()
}

// text is the digest for the next prompt: the last iteration's facts and
// the checks' results, each check logged as it ends.
func (d *digest) text(log *logging.Logger) string {
	if d.facts == "" || len(d.checks) == 0 {
		return d.facts
	}
	var b strings.Builder
	b.WriteString(d.facts + "Checks:\n")
	for _, c := range d.checks {
		result := d.run(c)
		log.Infof("Check %s", strings.TrimPrefix(strings.SplitN(result, "\n", 2)[0], "- "))
		b.WriteString(result)
	}
	return b.String()
}

// run runs one check with the shell (a check is a line a user would type:
// "go test ./... && go vet ./..."), bounded, and states its result with
// the end of its output.
func (d *digest) run(c config.Check) string {
	res, err := process.Run(d.ctx, process.Command{Argv: []string{"sh", "-c", c.Run}, Timeout: checkTimeout, MaxOutput: checkOutput, Kill: d.kill})
	switch {
	case res.Interrupted:
		return fmt.Sprintf("- %s: interrupted (%s)\n", c.Name, c.Run)
	case err != nil:
		return fmt.Sprintf("- %s: could not start (%v)\n", c.Name, err)
	case res.TimedOut:
		return fmt.Sprintf("- %s: timed out after %s (%s)\n", c.Name, units.Duration(checkTimeout), c.Run)
	case res.ExitCode == 0:
		return fmt.Sprintf("- %s: passed (%s)\n", c.Name, c.Run)
	}
	return fmt.Sprintf("- %s: failed, exit code %d (%s)\n%s", c.Name, res.ExitCode, c.Run, tail(string(res.Output), 10))
}

// tail is the last n lines of out, indented under their check.
func tail(out string, n int) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) == 1 && lines[0] == "" {
		return ""
	}
	lines = lines[max(0, len(lines)-n):]
	return "    " + strings.Join(lines, "\n    ") + "\n"
}

func outcomeText(o loop.Outcome) string {
	switch o {
	case loop.OutcomeContinue:
		return "continue (exit code 0, no signal)"
	case loop.OutcomeSuccess:
		return "success"
	case loop.OutcomeAbort:
		return "abort (the procedure's verdict)"
	}
	return "failure"
}

// digestFileLimit bounds the files changed that the digest names: enough
// for the next iteration to see what the last one worked on; past it the
// change is in bulk (generated files, a vendored tree, 50,000 new files
// make a prompt of 600 KB), and git tells the agent the rest if it asks.
const digestFileLimit = 100

func filesText(c *git.Changes) string {
	switch {
	case c == nil || !c.InRepo:
		return "unknown (not a git repository)"
	case len(c.Files) == 0:
		return "none"
	}
	return shown.ListOf(c.Files, c.More, digestFileLimit, "files")
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
