package engine

import (
	"fmt"
	"sync"
	"time"

	"rooda/host/agentstream"
	"rooda/host/loop"
	"rooda/host/process"
	"rooda/host/units"
)

// watch reads a decoded agent's events as they come and stops it (closes
// stop) when they show it cannot succeed (a login refused: claude would
// retry it for three minutes) or that it has waited too long: on its
// model, no tool running, for modelLimit without an event that shows
// work; on a tool it called, for toolLimit without the tool's result. A
// retry, a reconnect or a keep-alive is no work: codex with its server
// down writes "Reconnecting..." every minute, for ever. A limit of 0 is
// none. An agent that has only retried for want of its server since its
// last work, for outageLimit (networkRetryLimit), is stopped with cause
// network, so that the loop waits the outage out. A try that reached a
// server which never answered is no outage but a hung model (heldTry):
// however often the CLI tries again, it fails at model_timeout, which
// runs from the agent's last work across its retries.
type watch struct {
	modelLimit, toolLimit, outageLimit time.Duration
	stop                               chan struct{}

	mu    sync.Mutex
	timer *time.Timer // the wait going on; nil when it has no limit
	// outage fires outageLimit after the first of the network retries
	// since the last work; nil when the last retry had another cause.
	outage *time.Timer
	ended  bool
	// open counts the tool calls without a result; tool is the last
	// called, for the warning.
	open int
	tool agentstream.Event
	// retries counts the retries since the last work, last is the last.
	retries int
	last    agentstream.Retry
	// tryFrom is when the CLI's current try began: at its start, its last
	// work, or its last retry's delay after that retry; held is set when
	// the last retry's try reached a server that never answered.
	tryFrom time.Time
	held    bool
	now     func() time.Time
	why     *loop.Stop // set once the agent is stopped
	// stopped is how long the agent was suspended since a time
	// (process.StoppedSince).
	stopped func(time.Time) time.Duration
}

func newWatch(modelLimit, toolLimit time.Duration) *watch {
	w := &watch{modelLimit: modelLimit, toolLimit: toolLimit, outageLimit: networkRetryLimit, stop: make(chan struct{}), stopped: process.StoppedSince, now: time.Now}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.tryFrom = w.now()
	w.wait()
	return w
}

// observe takes one decoded event (agentstream.Decoder.Observe).
func (w *watch) observe(e agentstream.Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ended || w.why != nil {
		return
	}
	switch {
	case e.Fatal():
		w.halt(&loop.Stop{Cause: loop.CauseAuth, Why: "its CLI said it cannot succeed (" + said(e) + "), so it was stopped at once"})
		return
	case e.Kind == agentstream.KindRetry:
		w.retries++
		w.last = e.Retry
		w.retried()
		return
	case !e.ShowsWork():
		return
	case e.OpensTool():
		w.open++
		w.tool = e
	case e.ClosesTool():
		w.open = max(w.open-1, 0)
	}
	w.retries, w.held, w.tryFrom = 0, false, w.now()
	w.stopTimer(&w.outage)
	w.wait()
}

// networkRetryLimit is how long an agent may retry for want of its server
// (retries whose cause is network, and nothing else, since its last
// work) before it is stopped, cause network, for the loop to wait the
// outage out (host/loop's wait.go). The CLI's own retries recover a blip
// (a restarted server, a dropped connection) without losing what the
// agent did so far in the iteration, and most blips last seconds; so
// they get 2 minutes, about what claude's ten retries take. codex and
// gemini retry without end, codex once a minute: it is stopped about 3
// minutes in, and the loop says it waits for the network well within
// 5 minutes, where model_timeout (10 minutes) would take longer.
const networkRetryLimit = 2 * time.Minute

// heldTry is how long a try without a response must have lasted to be a
// hung model where the CLI's words do not tell (claude's "unknown",
// gemini's "fetch failed"): the CLIs give up on a server that holds their
// request after their own request timeout, gemini's the shortest at about
// 65 s (claude's 5 minutes, codex and the others wait longer), while a
// refused connection or a failed lookup ends a try in milliseconds and a
// connect timeout in 10 s (Node's fetch). The delay a CLI announces
// before its next try is not counted; gemini's backoff, which it does not
// announce, is at most 30 s and 30% jitter.
const heldTry = 60 * time.Second

// retried starts the outage's wait at a first network retry since the
// last work whose try reached no server, and ends it at a retry of
// another cause or a held try: only a run of tries that reached no
// server is an outage.
func (w *watch) retried() {
	now := w.now()
	tried := now.Sub(w.tryFrom)
	w.tryFrom = now.Add(w.last.Delay)
	w.held = w.last.Cause == agentstream.CauseNetwork && isHeld(w.last, tried)
	if w.last.Cause != agentstream.CauseNetwork || w.held {
		w.stopTimer(&w.outage)
		return
	}
	if w.outage == nil {
		w.arm(&w.outage, time.Now(), w.outageLimit, w.outageLimit, w.outageOver)
	}
}

// isHeld reports whether the try of a retry without a response, which
// lasted tried, reached a server that held it: as its words say, or, when
// they do not tell, as long as it lasted.
func isHeld(r agentstream.Retry, tried time.Duration) bool {
	switch r.Reach() {
	case agentstream.ReachHeld:
		return true
	case agentstream.ReachUnknown:
		return tried >= heldTry
	}
	return false
}

// outageOver is the stop of an agent that retried only for want of its
// server for outageLimit.
func (w *watch) outageOver() *loop.Stop {
	return &loop.Stop{Cause: loop.CauseNetwork, Why: fmt.Sprintf("its CLI could not reach the model's server for %s, only %s (the last: %s)",
		units.Duration(w.outageLimit), retryCount(w.retries), w.last.Describe())}
}

// stopTimer stops the timer in slot, if any.
func (w *watch) stopTimer(slot **time.Timer) {
	if *slot != nil {
		(*slot).Stop()
		*slot = nil
	}
}

// said is what a fatal event says, in a few words.
func said(e agentstream.Event) string {
	if e.Kind == agentstream.KindRetry {
		return e.Retry.Describe()
	}
	return fmt.Sprintf("error (%s): %s", e.Cause, e.Text)
}

// wait starts the wait the agent is in now, from now: on a tool while
// one is open, else on the model.
func (w *watch) wait() {
	w.stopTimer(&w.timer)
	limit, onTool := w.modelLimit, w.open > 0
	if onTool {
		limit = w.toolLimit
	}
	if limit <= 0 {
		return
	}
	w.arm(&w.timer, time.Now(), limit, limit, func() *loop.Stop { return w.overdue(onTool, limit) })
}

// arm sets slot to a timer that stops the agent, for why, when limit of
// the wait begun at since has passed, the agent running: time it spent
// stopped (Ctrl+Z) does not count, and the timer, fired early for it, is
// armed again for what is left.
func (w *watch) arm(slot **time.Timer, since time.Time, limit, after time.Duration, why func() *loop.Stop) {
	var t *time.Timer
	t = time.AfterFunc(after, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.ended || w.why != nil || *slot != t {
			return // ended, or a wait that was stopped or started again
		}
		if left := limit - (time.Since(since) - w.stopped(since)); left > 0 {
			w.arm(slot, since, limit, left, why)
			return
		}
		w.halt(why())
	})
	*slot = t
}

// overdue says which wait ran out.
func (w *watch) overdue(onTool bool, limit time.Duration) *loop.Stop {
	if onTool {
		tool := w.tool.Tool
		if w.tool.Args != "" {
			tool += " (" + w.tool.Args + ")"
		}
		return &loop.Stop{Cause: loop.CauseIdle, Why: fmt.Sprintf("waiting on a tool: %s had no result for %s (idle_timeout)", tool, units.Duration(limit))}
	}
	why := fmt.Sprintf("waiting on the model: no text, tool call or tokens for %s (model_timeout)", units.Duration(limit))
	if w.retries > 0 {
		why += fmt.Sprintf(", only %s by its CLI (the last: %s)", retryCount(w.retries), w.last.Describe())
	}
	if w.retries > 0 && w.last.Cause == agentstream.CauseNetwork && !w.held {
		// Its tries reached no server: an outage, however long, which
		// the loop waits out.
		return &loop.Stop{Cause: loop.CauseNetwork, Why: why}
	}
	if w.held {
		why += "; its server took the requests and never answered: a hung model, not an outage"
	}
	return &loop.Stop{Cause: loop.CauseModelTimeout, Why: why}
}

func retryCount(n int) string {
	if n == 1 {
		return "1 retry"
	}
	return fmt.Sprintf("%d retries", n)
}

// halt stops the agent for why.
func (w *watch) halt(why *loop.Stop) {
	w.why = why
	close(w.stop)
}

// end ends the watch: the agent is gone. It returns why the watch
// stopped it, nil if it did not.
func (w *watch) end() *loop.Stop {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ended = true
	w.stopTimer(&w.timer)
	w.stopTimer(&w.outage)
	return w.why
}
