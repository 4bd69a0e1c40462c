package session

import (
	"fmt"
	"time"

	"go.starlark.net/starlark"

	"rooda/host"
	"rooda/host/logging"
	"rooda/host/process"
)

// commandOutput is how much of a run() command's output is kept.
const commandOutput = 1 << 20

// CommandSpec is what a script's run() asks.
type CommandSpec struct {
	// Line is a shell's command line, run by sh -c as checks: are, so
	// pipes and redirections mean what they say; Argv, when Line is "",
	// runs as it is, without a shell.
	Line string
	Argv []string
	// Timeout bounds it; Dir, when not "", is where it runs (a worktree).
	Timeout time.Duration
	Dir     string
	// Safe marks a command that only reads (cat tasks.txt, git ls-files),
	// which a dry run runs too, so that what the script does with its
	// output shows.
	Safe bool
	// Pos is where run() was called ("main.star:3"), for the dry run's
	// account of its placeholders.
	Pos string
}

// Command runs a script's run(): a bounded command, between iterations,
// through host/process like any agent, so its whole group is stopped on
// timeout or interrupt. In a dry run it runs only a safe command, and
// not in a worktree, which a dry run does not make; another gives a
// placeholder, which the dry run's end names, and ran is false.
func (s *Session) Command(thread *starlark.Thread, c CommandSpec) (res process.Result, ran bool, err error) {
	argv, shown := c.Argv, c.Line
	if c.Line != "" {
		argv = []string{"sh", "-c", c.Line}
	} else {
		shown = process.Join(c.Argv)
	}
	if s.opts.DryRun && (!c.Safe || c.Dir != "") {
		why := "not running"
		if c.Safe {
			why = "not running in a worktree, which a dry run does not make"
		}
		s.notes().Line(logging.Info, "dry_run_command", []any{"command", shown}, "[dry-run] %s: %s", why, shown)
		s.madeUp(fmt.Sprintf("run(%q) at %s: not run; dry_run True, exit_code 0, output \"\"", shown, c.Pos))
		return res, false, nil
	}
	if s.opts.DryRun {
		s.notes().Line(logging.Info, "dry_run_command", []any{"command", shown, "safe", true}, "[dry-run] running, as it is safe: %s", shown)
	}
	ctx := host.Context(thread)
	// Journaled once it ended, not when an interrupt stopped it: a
	// resumed run runs again a command that did not end.
	res, _, err = journaled(s, thread, call{"run", c.Pos, shown}, true, func() (process.Result, error) {
		res, err := process.Run(ctx, process.Command{Argv: argv, Dir: c.Dir, Timeout: c.Timeout, MaxOutput: commandOutput, Kill: s.opts.Kill})
		if err != nil {
			// A command that cannot start is a result, as in a shell: 127.
			return process.Result{ExitCode: 127, Output: []byte("cannot start: " + err.Error() + "\n")}, nil
		}
		if ctx.Err() != nil {
			return res, host.StopCause(ctx)
		}
		return res, nil
	})
	return res, true, err
}
