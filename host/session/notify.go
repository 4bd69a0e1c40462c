package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"rooda/host/config"
	"rooda/host/interrupt"
	"rooda/host/logging"
	"rooda/host/loop"
	"rooda/host/process"
	"rooda/host/units"
)

// The events loop.notify's command is told of.
const (
	NotifyRunFinished = "run_finished"
	NotifyLimitWait   = "limit_wait"
	NotifyLoginFailed = "login_failed"
)

// A notifier is a user's script: it gets a short time and little room,
// so that a hung or chatty one cannot hold the run's end.
const (
	notifyTimeout = 30 * time.Second
	notifyOutput  = 16 << 10
	// notifyPatience is how long a notifier runs before the log says
	// that rooda waits for it.
	notifyPatience = 2 * time.Second
)

// Notice is what loop.notify's command reads on stdin, one JSON object:
// the event, the run it is of, and what is known of it so far.
type Notice struct {
	Event     string `json:"event"`
	RunID     string `json:"run_id"`
	Procedure string `json:"procedure"`
	// Status is how the run ended, or "waiting" for a limit wait.
	Status string `json:"status"`
	// ExitCode is rooda's exit code, once the run or its loop has ended.
	ExitCode   *int `json:"exit_code,omitempty"`
	Iterations int  `json:"iterations"`
	// A limit wait's iteration, agent, cause, its end and its length.
	Iteration   int     `json:"iteration,omitempty"`
	Agent       string  `json:"agent,omitempty"`
	Cause       string  `json:"cause,omitempty"`
	Until       string  `json:"until,omitempty"`
	WaitSeconds float64 `json:"wait_seconds,omitempty"`
	// Backoff is set when no reset was read (an outage, a limit that
	// named none): rooda chose the wait, and tries again at Until.
	Backoff bool `json:"backoff,omitempty"`
	// CostUSD and Tokens are what the run's agents spent, when known.
	CostUSD *float64 `json:"cost_usd,omitempty"`
	Tokens  *int64   `json:"tokens,omitempty"`
	Message string   `json:"message"`
}

// notifyFinished tells the notifier how the run ended; the error is the
// interrupt that stopped it.
func (s *Session) notifyFinished(end runEnd) error {
	code := end.code
	return s.notify(Notice{Event: NotifyRunFinished, Status: string(end.status), ExitCode: &code, Message: end.message})
}

// notifyLoginFailed tells the notifier that a loop stopped because its
// agent cannot log in: nothing will go on until someone logs it in.
func (s *Session) notifyLoginFailed(res loop.Result) {
	if !errors.As(res.Err, new(*loop.LoginError)) {
		return
	}
	code := res.Status.ExitCode()
	s.notify(Notice{Event: NotifyLoginFailed, Status: string(res.Status), ExitCode: &code, Message: res.Err.Error()})
}

// notifyLimitWait tells the notifier that the run waits for an agent's
// limit to reset, or its outage to pass; the loop calls it as the wait
// begins. Of an outage's backoff, only the first wait is news: a notice
// for each of the waits of a night would bury it.
func (s *Session) notifyLimitWait(w loop.LimitWait) {
	if w.Again {
		return
	}
	s.notify(Notice{Event: NotifyLimitWait, Status: "waiting", Iteration: w.Iteration, Agent: w.Agent, Cause: w.Cause,
		Until: w.Until.UTC().Format(time.RFC3339), WaitSeconds: w.Wait.Seconds(), Backoff: w.Backoff, Message: w.Message})
}

// notify runs loop.notify's command, if there is one, with n on stdin.
// Its failure is a warning: a notice lost must not fail the run. It runs
// also when the run was interrupted, which is news too; a signal while it
// runs stops it, and is returned.
func (s *Session) notify(n Notice) error {
	line := config.Notify.In(&s.opts.Config.Loop).V
	if line == "" || s.opts.DryRun || s.opts.Test {
		return nil
	}
	s.mu.Lock()
	n.RunID, n.Procedure, n.Iterations = s.runID(), s.opts.Name, s.iterations
	n.CostUSD, n.Tokens = spendOf(s.spent)
	s.mu.Unlock()
	ctx := context.WithoutCancel(s.ctx)
	if s.untilSignal != nil {
		var cancel context.CancelFunc
		ctx, cancel = s.untilSignal(ctx)
		defer cancel()
	}
	waiting := time.AfterFunc(notifyPatience, func() {
		s.Log().Event(logging.Info, "notify_wait", []any{"notice", n.Event},
			"notify (%s): waiting for loop.notify's command to end (at most %s); Ctrl+C stops it", n.Event, units.Duration(notifyTimeout))
	})
	err := runNotifier(ctx, line, n, s.opts.Kill)
	waiting.Stop()
	if err != nil {
		s.Log().Event(logging.Warn, "notify_failed", []any{"notice", n.Event, "error", err.Error()}, "notify (%s): %v", n.Event, err)
	}
	if ctx.Err() != nil {
		return interrupt.Stopped(ctx)
	}
	return nil
}

// runNotifier runs the command line with the notice on stdin, and says
// why it failed: it could not start, timed out, was interrupted, or
// exited non-zero.
func runNotifier(ctx context.Context, line string, n Notice, kill <-chan struct{}) error {
	argv, err := process.Split(line)
	if err != nil {
		return err
	}
	data, err := json.Marshal(n)
	if err != nil {
		return err
	}
	res, err := process.Run(ctx, process.Command{Argv: argv, Prompt: string(data) + "\n", Timeout: notifyTimeout, MaxOutput: notifyOutput, Kill: kill})
	switch {
	case err != nil:
		return err
	case res.Interrupted:
		return fmt.Errorf("stopped: %w", interrupt.Stopped(ctx))
	case res.TimedOut:
		return fmt.Errorf("timed out after %s", units.Duration(notifyTimeout))
	case res.ExitCode != 0:
		return fmt.Errorf("exit code %d%s", res.ExitCode, said(res.Output))
	}
	return nil
}

// said is the last line the notifier wrote, as a failure's warning
// quotes an agent (loop.LastLines), after ": "; "" when it wrote none.
func said(output []byte) string {
	if last := loop.LastLines(output, 1, 200); len(last) > 0 {
		return ": " + last[0]
	}
	return ""
}

// spendOf is what a notice says of a spend: the cost when known, the
// tokens when any were counted.
func spendOf(s loop.Spend) (cost *float64, tokens *int64) {
	if s.Costed {
		cost = &s.CostUSD
	}
	if total := s.TotalTokens(); total > 0 {
		tokens = &total
	}
	return cost, tokens
}

// runID is the record's id, "" when the run is not recorded.
func (s *Session) runID() string {
	if s.rec == nil {
		return ""
	}
	return s.rec.ID()
}
