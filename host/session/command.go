package session

import (
	"time"

	"go.starlark.net/starlark"

	"rooda/host"
	"rooda/host/logging"
	"rooda/host/process"
)

// commandOutput is how much of a run() command's output is kept.
const commandOutput = 1 << 20

// Command runs a script's run(): a bounded command, between iterations,
// through host/process like any agent, so its whole group is stopped on
// timeout or interrupt. A line is a shell's command line, run by sh -c as
// checks: are, so pipes and redirections mean what they say; argv, when
// line is "", runs as it is, without a shell. In a dry run it runs
// nothing and says so; ran is false then. dir, when not "", is where it
// runs (a worktree).
func (s *Session) Command(thread *starlark.Thread, line string, argv []string, timeout time.Duration, dir string) (res process.Result, ran bool, err error) {
	shown := line
	if line != "" {
		argv = []string{"sh", "-c", line}
	} else {
		shown = process.Join(argv)
	}
	if s.opts.DryRun {
		s.notes().Line(logging.Info, "dry_run_command", []any{"command", shown}, "[dry-run] not running: %s", shown)
		return res, false, nil
	}
	ctx := host.Context(thread)
	res, err = process.Run(ctx, process.Command{Argv: argv, Dir: dir, Timeout: timeout, MaxOutput: commandOutput, Kill: s.opts.Kill})
	if err != nil {
		// A command that cannot start is a result, as in a shell: 127.
		return process.Result{ExitCode: 127, Output: []byte("cannot start: " + err.Error() + "\n")}, true, nil
	}
	if ctx.Err() != nil {
		return res, true, host.StopCause(ctx)
	}
	return res, true, nil
}
