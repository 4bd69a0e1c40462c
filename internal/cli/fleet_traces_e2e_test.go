package cli

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// spansNamed are the spans of spans whose name is name.
func spansNamed(spans []*tracepb.Span, name string) []*tracepb.Span {
	var named []*tracepb.Span
	for _, s := range spans {
		if s.Name == name {
			named = append(named, s)
		}
	}
	return named
}

// waitForSpans waits until the collector holds spans named each of names,
// and returns every span it holds.
func (c *otlpCollector) waitForSpans(t *testing.T, names ...string) []*tracepb.Span {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for {
		spans, _ := c.received()
		missing := ""
		for _, name := range names {
			if len(spansNamed(spans, name)) == 0 {
				missing = name
			}
		}
		if missing == "" {
			return spans
		}
		if time.Now().After(deadline) {
			var got []string
			for _, s := range spans {
				got = append(got, s.Name)
			}
			t.Fatalf("no span %q received within %s; received %q", missing, hangGuard, got)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// hasEvent is the attributes of span's event named name, and whether it
// has one.
func eventOf(span *tracepb.Span, name string) (map[string]string, bool) {
	for _, e := range span.Events {
		if e.Name == name {
			attributes := map[string]string{}
			for k, v := range attrs(e.Attributes) {
				attributes[k] = v.GetStringValue()
			}
			return attributes, true
		}
	}
	return nil, false
}

// TestFleetTraces: a worker whose environment asks for traces sends a
// span of each run it works, "fleet run NAME", with the run's name, the
// worker (host and pid) and the attempt; the run's own trace (rooda's
// invoke_workflow, sent by rooda-full) is its child, in the same trace,
// and every span of the run carries the run's name and the worker as
// resource attributes.
func TestFleetTraces(t *testing.T) {
	t.Parallel()
	collector := newOTLPCollector(t)
	w := newWorkspace(t, step{"output": successSignal + "\n"})
	f := newFleet(t, w)
	f.fleet("add", "--name", "traced", "build", "-n", "1", "--ai-cmd", w.aiCmd())
	w.traced(collector.URL, "OTEL_RESOURCE_ATTRIBUTES=team=infra")
	worker := f.worker("worker", "--lease", "2s")
	if st := f.waitEnded(1)[0]; st.Status != "success" {
		t.Fatalf("the run: %+v\n%s", st, f.workerLogs())
	}
	stop(worker) // which exports its spans as it stops
	spans := collector.waitForSpans(t, "fleet run traced", "invoke_workflow build")
	run, root := spansNamed(spans, "fleet run traced")[0], spansNamed(spans, "invoke_workflow build")[0]
	host, _ := os.Hostname()
	self := fmt.Sprintf("%s:%d", host, worker.Process.Pid)
	if a := attrs(run.Attributes); a["rooda.fleet.run"].GetStringValue() != "traced" || a["rooda.fleet.worker"].GetStringValue() != self ||
		a["rooda.fleet.attempt"].GetIntValue() != 1 || a["rooda.status"].GetStringValue() != "success" {
		t.Errorf("the worker's span of the run: %v, want run traced, worker %s, attempt 1, success", a, self)
	}
	if hex.EncodeToString(root.TraceId) != hex.EncodeToString(run.TraceId) || hex.EncodeToString(root.ParentSpanId) != hex.EncodeToString(run.SpanId) {
		t.Errorf("the run's trace is not under the worker's span: trace %x parent %x, the worker's span %x of trace %x", root.TraceId, root.ParentSpanId, run.SpanId, run.TraceId)
	}
	collector.mu.Lock()
	resource := attrs(collector.resources[hex.EncodeToString(root.SpanId)])
	collector.mu.Unlock()
	if resource["rooda.fleet.run"].GetStringValue() != "traced" || resource["rooda.fleet.worker"].GetStringValue() != self || resource["team"].GetStringValue() != "infra" {
		t.Errorf("the run's spans' resource: %v, want rooda.fleet.run traced, rooda.fleet.worker %s, and the worker's own team=infra", resource, self)
	}
}

// TestFleetTracesATakeover: a worker killed outright mid-run sends
// nothing more; the worker that takes the run once its lease lapsed
// sends its span of the run, attempt 2, with the event
// rooda.fleet.takeover naming the worker killed, and rooda.fleet.resumed
// naming the record it resumed.
func TestFleetTracesATakeover(t *testing.T) {
	t.Parallel()
	collector := newOTLPCollector(t)
	w := newWorkspace(t)
	starts := filepath.Join(w.dir, "starts")
	script, err := json.Marshal(map[string]any{"record": w.dir, "starts": starts, "steps": []step{
		{"output": "working"},
		{"output": "still working", "delay": "60s", "again": step{"output": successSignal + "\n"}},
	}})
	must(t, err)
	w.write("script.json", string(script))
	f := newFleet(t, w)
	f.fleet("add", "--name", "taken", "build", "-n", "3", "--ai-cmd", w.aiCmd())
	w.traced(collector.URL)
	killed := f.worker("worker-a", "--lease", "2s")
	waitForLine(t, starts, "script.json 2")
	must(t, killed.Process.Kill())
	killed.Wait()
	taker := f.worker("worker-b", "--lease", "2s")
	if st := f.waitEnded(1)[0]; st.Status != "success" || st.Attempt != 2 {
		t.Fatalf("the run: %+v\n%s", st, f.workerLogs())
	}
	stop(taker)
	spans := collector.waitForSpans(t, "fleet run taken")
	host, _ := os.Hostname()
	var second *tracepb.Span
	for _, s := range spansNamed(spans, "fleet run taken") {
		if attrs(s.Attributes)["rooda.fleet.attempt"].GetIntValue() == 2 {
			second = s
		}
	}
	if second == nil {
		t.Fatalf("no span of attempt 2 of the run: %v", spansNamed(spans, "fleet run taken"))
	}
	if got := attrs(second.Attributes)["rooda.fleet.worker"].GetStringValue(); got != fmt.Sprintf("%s:%d", host, taker.Process.Pid) {
		t.Errorf("attempt 2's span names worker %s, not worker-b's", got)
	}
	if e, ok := eventOf(second, "rooda.fleet.takeover"); !ok || e["rooda.fleet.previous_worker"] != fmt.Sprintf("%s:%d", host, killed.Process.Pid) {
		t.Errorf("attempt 2's span: takeover event %v (%v), want one naming worker-a (pid %d); events %v", e, ok, killed.Process.Pid, second.Events)
	}
	if e, ok := eventOf(second, "rooda.fleet.resumed"); !ok || !strings.Contains(e["rooda.fleet.record"], "-build-") {
		t.Errorf("attempt 2's span: resumed event %v (%v), want one naming the record", e, ok)
	}
}

// TestFleetTracesALeaseLost: a worker paused (SIGSTOP) past its lease,
// continued, learns that its run is another's: its span of the run has
// the event rooda.fleet.lease_lost and status Error. The worker that took
// the run meanwhile says, in its span of attempt 2, that it took it over
// from the paused one, and that it gave it back (the paused worker's
// rooda still going in the workspace).
func TestFleetTracesALeaseLost(t *testing.T) {
	t.Parallel()
	collector := newOTLPCollector(t)
	f, starts := newLongRun(t, "paused")
	f.w.traced(collector.URL)
	paused := f.worker("worker-a", "--lease", "2s")
	waitForLine(t, starts, "script.json 2")
	must(t, paused.Process.Signal(syscall.SIGSTOP))
	taker := f.worker("worker-b", "--lease", "2s")
	f.waitForWorkerLog("paused: record ", "is still going here; given back for later")
	must(t, paused.Process.Signal(syscall.SIGCONT))
	f.waitForWorkerLog("paused: lease lost, run stopped: ", "the run's state changed since it was read")
	if st := f.waitEnded(1)[0]; st.Status != "success" {
		t.Fatalf("the run: %+v\n%s", st, f.workerLogs())
	}
	stop(paused)
	stop(taker)
	host, _ := os.Hostname()
	pausedName := fmt.Sprintf("%s:%d", host, paused.Process.Pid)
	byAttempt := map[int64]*tracepb.Span{}
	for _, s := range spansNamed(collector.waitForSpans(t, "fleet run paused"), "fleet run paused") {
		byAttempt[attrs(s.Attributes)["rooda.fleet.attempt"].GetIntValue()] = s
	}
	first, second := byAttempt[1], byAttempt[2]
	if first == nil || second == nil {
		t.Fatalf("the spans of attempts 1 and 2: %v", byAttempt)
	}
	if e, ok := eventOf(first, "rooda.fleet.lease_lost"); !ok || !strings.Contains(e["error.message"], "changed since it was read") || first.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR {
		t.Errorf("the paused worker's span: lease_lost %v (%v), status %v; events %v", e, ok, first.Status, first.Events)
	}
	if e, ok := eventOf(second, "rooda.fleet.takeover"); !ok || e["rooda.fleet.previous_worker"] != pausedName {
		t.Errorf("attempt 2's span: takeover %v (%v), want from %s", e, ok, pausedName)
	}
	if _, ok := eventOf(second, "rooda.fleet.given_back"); !ok {
		t.Errorf("attempt 2's span has no given_back event: %v", second.Events)
	}
}
