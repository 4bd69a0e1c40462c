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

// held is a retry whose words say its server held the request without
// an answer (codex 0.169.0).
var held = agentstream.Event{Kind: agentstream.KindRetry, Retry: agentstream.Retry{Error: "stream disconnected before completion: idle timeout waiting for SSE", Cause: agentstream.CauseNetwork}}

// TestRetriesDoNotPutOffTheModelWait: a CLI that only retries requests
// its server holds, however often, is stopped at model_timeout, and the
// warning counts its retries and says the model hung.
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
				w.observe(held)
			}
		}
	}()
	why := fired(t, w)
	<-done
	if why.Cause != loop.CauseModelTimeout || !strings.Contains(why.Why, "waiting on the model: no text, tool call or tokens for 300ms (model_timeout), only ") ||
		!strings.Contains(why.Why, "retries by its CLI (the last: retry: stream disconnected before completion: idle timeout waiting for SSE); its server took the requests and never answered: a hung model, not an outage") {
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

// fakeClock is the watch's clock for the time a try took: it moves only
// when told.
type fakeClock struct{ at time.Time }

func (c *fakeClock) now() time.Time { return c.at }

// clocked is w with a fake clock for its tries; advance moves it on.
func clocked(w *watch) (advance func(time.Duration)) {
	c := &fakeClock{at: time.Now()}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.now, w.tryFrom = c.now, c.at
	return func(d time.Duration) {
		w.mu.Lock()
		defer w.mu.Unlock()
		c.at = c.at.Add(d)
	}
}

// unknown is a retry whose words do not tell a refused connection from
// a request held without an answer: claude's, with its next try's delay.
var unknown = agentstream.Event{Kind: agentstream.KindRetry, Retry: agentstream.Retry{Attempt: 1, Max: 10, Delay: 2 * time.Second, Cause: agentstream.CauseNetwork}}

// TestLongTriesAreAHungModel: where the words do not tell, tries that
// each lasted as long as a CLI's request timeout (the delays it announced
// between them not counted) reached a server that never answered: the
// outage's wait does not start, and model_timeout stops the agent, cause
// model_timeout, across the retries.
func TestLongTriesAreAHungModel(t *testing.T) {
	w := newWatch(400*time.Millisecond, time.Hour)
	w.mu.Lock()
	w.outageLimit = 50 * time.Millisecond
	w.mu.Unlock()
	advance := clocked(w)
	advance(heldTry)
	w.observe(unknown)
	advance(unknown.Retry.Delay + heldTry)
	w.observe(unknown)
	why := fired(t, w)
	if why.Cause != loop.CauseModelTimeout || !strings.HasSuffix(why.Why, "only 2 retries by its CLI (the last: retry 1/10 in 2s: no response (network)); its server took the requests and never answered: a hung model, not an outage") {
		t.Errorf("%+v", why)
	}
}

// TestShortTriesAreAnOutage: the same retries, whose tries ended at once
// after the delays announced, reached no server: an outage, stopped with
// cause network at the outage's limit; and, where model_timeout comes
// first, at model_timeout, with cause network still, for the loop to
// wait it out.
func TestShortTriesAreAnOutage(t *testing.T) {
	for _, tc := range []struct {
		name               string
		modelLimit, outage time.Duration
		want               string
	}{
		{"outage_limit", time.Hour, 300 * time.Millisecond, "its CLI could not reach the model's server for 300ms, only 2 retries (the last: retry 1/10 in 2s: no response (network))"},
		{"model_timeout", 300 * time.Millisecond, time.Hour, "waiting on the model: no text, tool call or tokens for 300ms (model_timeout), only 2 retries by its CLI (the last: retry 1/10 in 2s: no response (network))"},
	} {
		w := newWatch(tc.modelLimit, time.Hour)
		w.mu.Lock()
		w.outageLimit = tc.outage
		w.mu.Unlock()
		advance := clocked(w)
		advance(time.Second)
		w.observe(unknown)
		advance(unknown.Retry.Delay + heldTry - time.Second)
		w.observe(unknown)
		if why := fired(t, w); why.Cause != loop.CauseNetwork || why.Why != tc.want {
			t.Errorf("%s: %+v", tc.name, why)
		}
	}
}
