package session

import (
	"os"

	"rooda/host/config"
	"rooda/host/engine"
	"rooda/host/loop"
	"rooda/host/statusline"
)

// showStatus puts a status line under the log of a run (a procedure's
// or a script's; not a REPL's, which the user types into) when stderr is a
// terminal that can draw one and the log is text at info or debug:
// -q, --log-format json, a pipe, TERM=dumb and loop.status_line: off have
// none. Every write to
// stderr (the log, print(), the final report) then goes through it, and
// the agent's output too when -v streams it to a terminal, so that none
// tears the line.
func (s *Session) showStatus() {
	if s.opts.DryRun || s.opts.Config == nil || s.logFormat() == "json" || config.StatusLine.In(&s.opts.Config.Loop).V == "off" {
		return
	}
	switch config.LogLevel.In(&s.opts.Config.Loop).V {
	case "warn", "error":
		return
	}
	line := statusline.OnTerminal(s.opts.Stderr)
	if line == nil {
		return
	}
	s.status = line
	if s.jobs != nil {
		s.jobs.Around(line.Hide, line.Show)
	}
	s.opts.Stderr = line.Writer(s.opts.Stderr)
	if f, ok := s.opts.Stdout.(*os.File); ok && statusline.IsTerminal(f) {
		s.opts.Stdout = line.Writer(f)
	}
}

// statusOutput adds the status line to where a loop writes, which the
// line names name (its procedure, or its loop's name): it sees the
// agent's output and the limit waits (and the iterations, as one of
// observers).
func (s *Session) statusOutput(out engine.Output, name string) engine.Output {
	if s.status == nil {
		return out
	}
	s.status.Loop(name)
	out.Tap = s.status.Agent()
	alsoOnLimitWait(&out, s.status.LimitWaiting)
	return out
}

// observers are a loop's observers: more, and the status line if there
// is one.
func (s *Session) observers(more ...loop.Observer) []loop.Observer {
	if s.status != nil {
		more = append(more, s.status)
	}
	return more
}

// closeStatus clears the status line for good: what follows starts on a
// clean line.
func (s *Session) closeStatus() {
	if s.status != nil {
		s.status.Close()
	}
}
