package engine

import (
	"strings"
	"testing"
	"time"

	"rooda/host/agentstream"
	"rooda/host/loop"
)

// watchGuard bounds a wait for the watch to fire: a guard against a hang,
// not a measure of speed.
const watchGuard = 10 * time.Second

var (
	retry = agentstream.Event{Kind: agentstream.KindRetry, Retry: agentstream.Retry{Error: "waiting for network", Cause: agentstream.CauseNetwork}}
	text  = agentstream.Event{Kind: agentstream.KindAssistant, Text: "Looking."}
	call  = agentstream.Event{Kind: agentstream.KindToolCall, Tool: "Bash", Args: "make test"}
)

// fired waits for w to stop the agent and returns why, or fails.
func fired(t *testing.T, w *watch) *loop.Stop {
	t.Helper()
	select {
	case <-w.stop:
		return w.end()
	case <-time.After(watchGuard):
		t.Fatal("the watch never fired")
		return nil
	}
}

// TestRetriesDoNotPutOffTheModelWait: a CLI that only retries, however
// often, is stopped at model_timeout, and the warning counts its
// retries.
func TestRetriesDoNotPutOffTheModelWait(t *testing.T) {
	w := newWatch(300*time.Millisecond, time.Hour)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-w.stop:
				close(done)
				return
			case <-time.After(20 * time.Millisecond):
				w.observe(retry)
			}
		}
	}()
	why := fired(t, w)
	<-done
	if why.Cause != loop.CauseModelTimeout || !strings.Contains(why.Why, "waiting on the model: no text, tool call or tokens for 300ms (model_timeout), only ") ||
		!strings.Contains(why.Why, "retries by its CLI (the last: retry: waiting for network)") {
		t.Errorf("%+v", why)
	}
}

// TestWorkPutsOffTheModelWait: text from the model restarts the wait;
// once it stops, the wait runs out.
func TestWorkPutsOffTheModelWait(t *testing.T) {
	w := newWatch(300*time.Millisecond, time.Hour)
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(30 * time.Millisecond) {
		w.observe(text)
		select {
		case <-w.stop:
			t.Fatalf("stopped while the model wrote: %+v", w.end())
		default:
		}
	}
	if why := fired(t, w); why.Cause != loop.CauseModelTimeout {
		t.Errorf("%+v", why)
	}
}

// TestOpenToolWaitsForTheToolLimit: while a tool call has no result, the
// tool's limit applies, not the model's (shorter here): the warning names
// the tool. Its result brings back the model's.
func TestOpenToolWaitsForTheToolLimit(t *testing.T) {
	w := newWatch(50*time.Millisecond, 400*time.Millisecond)
	w.observe(call)
	if why := fired(t, w); why.Cause != loop.CauseIdle || why.Why != "waiting on a tool: Bash (make test) had no result for 400ms (idle_timeout)" {
		t.Errorf("%+v", why)
	}
	w = newWatch(50*time.Millisecond, time.Hour)
	w.observe(call)
	w.observe(agentstream.Event{Kind: agentstream.KindToolResult, Tool: "Bash"})
	if why := fired(t, w); why.Cause != loop.CauseModelTimeout {
		t.Errorf("%+v", why)
	}
}

// TestFatalEventStopsAtOnce: a refused login stops the agent as it is
// read, with what the CLI said, whatever the limits (none here).
func TestFatalEventStopsAtOnce(t *testing.T) {
	w := newWatch(0, 0)
	w.observe(text)
	select {
	case <-w.stop:
		t.Fatal("stopped without cause")
	default:
	}
	w.observe(agentstream.Event{Kind: agentstream.KindRetry, Retry: agentstream.Retry{Attempt: 1, Max: 10, Status: 401, Error: "authentication_failed", Cause: agentstream.CauseAuth}})
	select {
	case <-w.stop:
	default:
		t.Fatal("a refused login did not stop the agent")
	}
	if why := w.end(); why.Cause != loop.CauseAuth || why.Why != "its CLI said it cannot succeed (retry 1/10: 401 authentication_failed), so it was stopped at once" {
		t.Errorf("%+v", why)
	}
}

// TestStoppedTimeIsNoWait: the time the agent spent stopped (Ctrl+Z) is
// not counted against its wait: stopped all along, it is never overdue;
// stopped no more, it is, at its limit.
func TestStoppedTimeIsNoWait(t *testing.T) {
	w := newWatch(200*time.Millisecond, time.Hour)
	stoppedAll := true
	w.mu.Lock()
	w.stopped = func(since time.Time) time.Duration {
		if stoppedAll {
			return time.Since(since)
		}
		return 0
	}
	w.mu.Unlock()
	select {
	case <-w.stop:
		t.Fatalf("stopped while suspended: %+v", w.end())
	case <-time.After(time.Second):
	}
	w.mu.Lock()
	stoppedAll = false
	w.mu.Unlock()
	if why := fired(t, w); why.Cause != loop.CauseModelTimeout {
		t.Errorf("%+v", why)
	}
}

// outageWatch is a watch with no model or tool limit whose outage limit
// is limit.
func outageWatch(limit time.Duration) *watch {
	w := newWatch(time.Hour, time.Hour)
	w.mu.Lock()
	w.outageLimit = limit
	w.mu.Unlock()
	return w
}

// TestNetworkRetriesStopTheAgent: a CLI that only retries for want of
// its server is stopped at the outage limit, long before model_timeout,
// with cause network, so that the loop waits the outage out.
func TestNetworkRetriesStopTheAgent(t *testing.T) {
	w := outageWatch(300 * time.Millisecond)
	w.observe(text)
	w.observe(retry)
	w.observe(retry)
	why := fired(t, w)
	if why.Cause != loop.CauseNetwork || why.Why != "its CLI could not reach the model's server for 300ms, only 2 retries (the last: retry: waiting for network)" {
		t.Errorf("%+v", why)
	}
}

// TestOutageWaitIsOnlyNetworkRetries: work, or a retry of another cause,
// between network retries starts the outage's wait again: an agent that
// keeps doing either is not stopped for an outage; once only network
// retries come, it is.
func TestOutageWaitIsOnlyNetworkRetries(t *testing.T) {
	rateLimited := agentstream.Event{Kind: agentstream.KindRetry, Retry: agentstream.Retry{Status: 429, Cause: agentstream.CauseRateLimited}}
	for _, between := range []agentstream.Event{text, rateLimited} {
		w := outageWatch(300 * time.Millisecond)
		for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			w.observe(retry)
			w.observe(between)
			select {
			case <-w.stop:
				t.Fatalf("%s between network retries: stopped: %+v", between.Kind, w.end())
			default:
			}
		}
		w.observe(retry)
		if why := fired(t, w); why.Cause != loop.CauseNetwork {
			t.Errorf("%+v", why)
		}
	}
}
