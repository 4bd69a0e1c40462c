package cli

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// otlpCollector is an OTLP/HTTP endpoint: it keeps the spans of every
// export rooda sends to POST /v1/traces, decoded from protobuf.
type otlpCollector struct {
	*httptest.Server
	mu       sync.Mutex
	requests int
	spans    []*tracepb.Span
	// resources are the resource attributes each span came with, by
	// the span's id in hex.
	resources map[string][]*commonpb.KeyValue
	service   string
}

func newOTLPCollector(t *testing.T) *otlpCollector {
	c := &otlpCollector{}
	c.Server = httptest.NewServer(http.HandlerFunc(c.export))
	t.Cleanup(c.Close)
	return c
}

func (c *otlpCollector) export(w http.ResponseWriter, r *http.Request) {
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		z, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = z
	}
	data, err := io.ReadAll(body)
	var req coltracepb.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(data, &req)
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" || err != nil {
		http.Error(w, "not an OTLP trace export", http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests++
	for _, rs := range req.ResourceSpans {
		c.service = stringAttr(rs.Resource.GetAttributes(), "service.name")
		for _, ss := range rs.ScopeSpans {
			c.spans = append(c.spans, ss.Spans...)
			for _, span := range ss.Spans {
				if c.resources == nil {
					c.resources = map[string][]*commonpb.KeyValue{}
				}
				c.resources[hex.EncodeToString(span.SpanId)] = rs.Resource.GetAttributes()
			}
		}
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Write(out)
}

// received are the spans received so far, and in how many exports.
func (c *otlpCollector) received() ([]*tracepb.Span, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*tracepb.Span(nil), c.spans...), c.requests
}

// withoutTracing is env less any variable of OpenTelemetry's or a trace
// context, so that the test's own environment decides nothing.
func withoutTracing(env []string) []string {
	var kept []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "OTEL_") && !strings.HasPrefix(kv, "TRACE") {
			kept = append(kept, kv)
		}
	}
	return kept
}

// traced points the workspace's runs at the collector at endpoint, with
// more OTEL_* variables.
func (w *workspace) traced(endpoint string, more ...string) {
	w.env = append(append(withoutTracing(w.env), "OTEL_EXPORTER_OTLP_ENDPOINT="+endpoint), more...)
}

// attrs are a span's attributes by key.
func attrs(kvs []*commonpb.KeyValue) map[string]*commonpb.AnyValue {
	m := map[string]*commonpb.AnyValue{}
	for _, kv := range kvs {
		m[kv.Key] = kv.Value
	}
	return m
}

func stringAttr(kvs []*commonpb.KeyValue, key string) string {
	return attrs(kvs)[key].GetStringValue()
}

func intAttr(s *tracepb.Span, key string) int64 { return attrs(s.Attributes)[key].GetIntValue() }

// spanTree is the spans of one export by their parent: "" for the roots.
func spanTree(spans []*tracepb.Span) map[string][]*tracepb.Span {
	children := map[string][]*tracepb.Span{}
	for _, s := range spans {
		children[hex.EncodeToString(s.ParentSpanId)] = append(children[hex.EncodeToString(s.ParentSpanId)], s)
	}
	return children
}

// oneTrace fails the test unless every span is of one trace, and
// returns its id.
func oneTrace(t *testing.T, spans []*tracepb.Span) string {
	t.Helper()
	if len(spans) == 0 {
		t.Fatal("no span received")
	}
	id := spans[0].TraceId
	for _, s := range spans {
		if !bytes.Equal(s.TraceId, id) {
			t.Fatalf("spans of more than one trace: %x and %x", id, s.TraceId)
		}
	}
	return hex.EncodeToString(id)
}

// onlySpan is the one span of spans named name, in its tree.
func onlySpan(t *testing.T, spans []*tracepb.Span, name string) *tracepb.Span {
	t.Helper()
	if len(spans) != 1 || spans[0].Name != name {
		var names []string
		for _, s := range spans {
			names = append(names, s.Name)
		}
		t.Fatalf("want one span %q, got %q", name, names)
	}
	return spans[0]
}

// TestTraceOfARun: a two-iteration run with a structured alias exports
// one trace, named as the GenAI conventions name an agent system's: the
// run's invoke_workflow span, its loop's, and an invoke_agent CLIENT
// span for each iteration with its outcome, exit code, tokens, cost,
// provider, model and session, and its error.type when it failed; each
// agent was given its iteration's span as TRACEPARENT.
func TestTraceOfARun(t *testing.T) {
	t.Parallel()
	quiet := strings.ReplaceAll(transcript(t, "claude-stream-json", "tool_call_success"), `\u003cpromise\u003eSUCCESS\u003c/promise\u003e`, "")
	w := newWorkspace(t, step{"output": quiet}, step{"output": quiet, "exit": 3})
	c := newOTLPCollector(t)
	w.traced(c.URL)
	w.runAlias("claude-stream-json", "build", "-n", "2").expect(t, 2)
	spans, _ := c.received()
	trace := oneTrace(t, spans)
	if c.service != "rooda" {
		t.Errorf("service.name %q", c.service)
	}
	children := spanTree(spans)
	run := onlySpan(t, children[""], "invoke_workflow build")
	loop := onlySpan(t, children[hex.EncodeToString(run.SpanId)], "loop build")
	iterations := children[hex.EncodeToString(loop.SpanId)]
	if len(iterations) != 2 || len(spans) != 4 {
		t.Fatalf("want 2 iterations under the loop, 4 spans in all; got %d and %d", len(iterations), len(spans))
	}
	a := attrs(run.Attributes)
	if a["rooda.run.id"].GetStringValue() == "" || intAttr(run, "process.exit.code") != 2 || intAttr(run, "rooda.tokens.total") != 356 ||
		a["rooda.status"].GetStringValue() != "max-iters" || run.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR {
		t.Errorf("run span: %v %v", run.Attributes, run.Status)
	}
	if intAttr(loop, "rooda.iterations") != 2 || stringAttr(loop.Attributes, "rooda.procedure") != "build" {
		t.Errorf("loop span: %v", loop.Attributes)
	}
	want := map[int64]struct {
		outcome, cause string
		code           int64
		status         tracepb.Status_StatusCode
	}{1: {"continue", "", 0, tracepb.Status_STATUS_CODE_UNSET}, 2: {"failure", "agent_failed", 3, tracepb.Status_STATUS_CODE_ERROR}}
	for _, it := range iterations {
		n := intAttr(it, "rooda.iteration")
		a := attrs(it.Attributes)
		st := want[n]
		if a["rooda.outcome"].GetStringValue() != st.outcome || a["rooda.cause"].GetStringValue() != st.cause || intAttr(it, "process.exit.code") != st.code || it.Status.GetCode() != st.status {
			t.Errorf("iteration %d: %v %v", n, it.Attributes, it.Status)
		}
		if intAttr(it, "gen_ai.usage.input_tokens") != 143 || intAttr(it, "gen_ai.usage.output_tokens") != 35 ||
			a["rooda.cost_usd"].GetDoubleValue() != 0.000285 || intAttr(it, "rooda.output_bytes") == 0 || a["rooda.agent"].GetStringValue() == "" {
			t.Errorf("iteration %d's spend: %v", n, it.Attributes)
		}
		agent := a["gen_ai.agent.name"].GetStringValue()
		if it.Kind != tracepb.Span_SPAN_KIND_CLIENT || it.Name != "invoke_agent "+agent || a["gen_ai.operation.name"].GetStringValue() != "invoke_agent" ||
			a["gen_ai.provider.name"].GetStringValue() != "anthropic" || a["gen_ai.request.model"].GetStringValue() != "claude-opus-4-8" ||
			a["gen_ai.conversation.id"].GetStringValue() != "5f1c2a7e-0b1d-4c1e-9d7a-2f3e4b5c6d7e" || a["error.type"].GetStringValue() != st.cause {
			t.Errorf("iteration %d, %s (%v): %v", n, it.Name, it.Kind, it.Attributes)
		}
		env := readText(t, filepath.Join(w.dir, "env-"+string(rune('0'+n))+".txt"))
		if parent := "TRACEPARENT=00-" + trace + "-" + hex.EncodeToString(it.SpanId) + "-01\n"; !strings.Contains(env, parent) {
			t.Errorf("iteration %d's agent saw:\n%swant %s", n, env, parent)
		}
	}
}

// TestNoTraceWhenUnset: without the OTEL_* variables nothing is sent and
// the agent is given no TRACEPARENT; OTEL_SDK_DISABLED=true turns an
// endpoint off; a dry run, of a procedure or a script, sends nothing.
func TestNoTraceWhenUnset(t *testing.T) {
	t.Parallel()
	c := newOTLPCollector(t)
	for _, extra := range [][]string{nil, {"OTEL_EXPORTER_OTLP_ENDPOINT=" + c.URL, "OTEL_SDK_DISABLED=true"}} {
		w := newWorkspace(t, step{})
		w.env = append(withoutTracing(w.env), extra...)
		w.run("build", "-n", "1").expect(t, 2)
		if env := readText(t, filepath.Join(w.dir, "env-1.txt")); strings.Contains(env, "TRACE") {
			t.Errorf("with %q the agent saw:\n%s", extra, env)
		}
	}
	w := newWorkspace(t, step{})
	w.traced(c.URL)
	w.write("main.star", `iterate(compose("p", act = [fragment(content = "Act.")]), max_iterations = 1)`+"\n")
	w.run("build", "-n", "1", "--dry-run").expect(t, 0)
	w.runScript("main.star", "--ai-cmd", w.aiCmd(), "--dry-run").expect(t, 0)
	if _, requests := c.received(); requests != 0 {
		t.Errorf("the collector received %d exports", requests)
	}
}

// TestTraceOfAScript: a script's two iterate() loops are two loop spans
// under the one span of the script run.
func TestTraceOfAScript(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{})
	w.write("main.star", `
p = compose("p", act = [fragment(content = "Act.")])
iterate(p, max_iterations = 1)
iterate(p, max_iterations = 2)
`)
	c := newOTLPCollector(t)
	w.traced(c.URL)
	w.env = append(w.env, "ROODA_LOOP_AI_CMD="+w.aiCmd())
	w.runScript("main.star").expect(t, 2)
	spans, _ := c.received()
	oneTrace(t, spans)
	children := spanTree(spans)
	run := onlySpan(t, children[""], "invoke_workflow main")
	loops := children[hex.EncodeToString(run.SpanId)]
	if len(loops) != 2 {
		t.Fatalf("want 2 loops under the run, got %d", len(loops))
	}
	total := 0
	for _, l := range loops {
		total += len(children[hex.EncodeToString(l.SpanId)])
	}
	if total != 3 || intAttr(run, "rooda.iterations") != 3 {
		t.Errorf("want 3 iterations in the loops and the run's span, got %d and %v", total, run.Attributes)
	}
}

// TestCollectorThatNeverAnswers: a collector that accepts and never
// answers costs the run a bounded wait at its end, and one warning.
func TestCollectorThatNeverAnswers(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			defer conn.Close() // held open, unanswered, until the test ends
		}
	}()
	w := newWorkspace(t, step{})
	w.traced("http://" + l.Addr().String())
	o := w.run("build", "-n", "1")
	o.expect(t, 2)
	// rooda bounds the export by 3 s; without that bound the exporter's
	// own timeout, 10 s, would hold it.
	if o.took > 8*time.Second {
		t.Errorf("rooda took %s to end", o.took)
	}
	if n := strings.Count(o.stderr, "traces not exported"); n != 1 {
		t.Errorf("want one warning of the export, got %d:\n%s", n, o.stderr)
	}
}

// grpcCollector is an OTLP/gRPC endpoint: it counts the spans it is
// sent.
type grpcCollector struct {
	coltracepb.UnimplementedTraceServiceServer
	mu    sync.Mutex
	spans []*tracepb.Span
}

func (c *grpcCollector) Export(_ context.Context, req *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			c.spans = append(c.spans, ss.Spans...)
		}
	}
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

// TestTraceOverGRPC: OTEL_EXPORTER_OTLP_PROTOCOL=grpc sends the same
// spans to a gRPC collector.
func TestTraceOverGRPC(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	server := grpc.NewServer()
	c := &grpcCollector{}
	coltracepb.RegisterTraceServiceServer(server, c)
	go server.Serve(l)
	defer server.Stop()
	w := newWorkspace(t, step{})
	w.traced("http://"+l.Addr().String(), "OTEL_EXPORTER_OTLP_PROTOCOL=grpc")
	w.run("build", "-n", "2").expect(t, 2)
	c.mu.Lock()
	defer c.mu.Unlock()
	onlySpan(t, spanTree(c.spans)[""], "invoke_workflow build")
	if len(c.spans) != 4 {
		t.Errorf("want 4 spans, got %d", len(c.spans))
	}
}

// TestLimitWaitIsAnEvent: a wait for a usage limit is an event of the
// iteration's span, with its end and its length; the try after it is
// the same iteration, under the same span.
func TestLimitWaitIsAnEvent(t *testing.T) {
	t.Parallel()
	limit := strings.ReplaceAll(transcript(t, "claude-stream-json", "usage_limit_reset"), "1795446000", "{{unix+1}}")
	w := newWorkspace(t, step{"output": limit, "exit": 1, "again": step{"output": transcript(t, "claude-stream-json", "tool_call_success")}})
	c := newOTLPCollector(t)
	w.traced(c.URL)
	w.runAlias("claude-stream-json", "build", "-n", "1").expect(t, 0)
	spans, _ := c.received()
	trace := oneTrace(t, spans)
	var it *tracepb.Span
	for _, s := range spans {
		if intAttr(s, "rooda.iteration") == 1 {
			it = s
		}
	}
	if it == nil || len(it.Events) != 1 || it.Events[0].Name != "rooda.limit_wait" {
		t.Fatalf("iteration 1: %v", it)
	}
	event := attrs(it.Events[0].Attributes)
	if event["rooda.limit.until"].GetStringValue() == "" || event["rooda.limit.wait_seconds"].GetDoubleValue() > 1 || event["rooda.cause"].GetStringValue() != "usage_limit" {
		t.Errorf("event: %v", it.Events[0].Attributes)
	}
	env := readText(t, filepath.Join(w.dir, "env-1.txt"))
	if !strings.Contains(env, "TRACEPARENT=00-"+trace+"-"+hex.EncodeToString(it.SpanId)+"-01\n") {
		t.Errorf("the try after the wait saw:\n%s", env)
	}
}

// TestTelemetryAgentsTurnsTheCLIsOn: with telemetry: agents, the agent
// is given what turns its CLI's own traces on, and resource attributes
// naming the run and the iteration; without it, none of that.
func TestTelemetryAgentsTurnsTheCLIsOn(t *testing.T) {
	t.Parallel()
	c := newOTLPCollector(t)
	for _, agents := range []bool{false, true} {
		w := newWorkspace(t, step{"output": successSignal})
		w.traced(c.URL)
		args := []string{"build", "-n", "1"}
		if agents {
			args = append(args, "--telemetry", "agents")
		}
		w.run(args...).expect(t, 0)
		env := readText(t, filepath.Join(w.dir, "env-1.txt"))
		wants := []string{"CLAUDE_CODE_ENABLE_TELEMETRY=1", "OTEL_TRACES_EXPORTER=otlp", "GEMINI_TELEMETRY_ENABLED=true",
			"GEMINI_TELEMETRY_OTLP_ENDPOINT=" + c.URL + "\n", "OTEL_RESOURCE_ATTRIBUTES=rooda.run.id=" + filepath.Base(w.runDir()) + ",rooda.procedure=build,rooda.iteration=1\n"}
		for _, want := range wants {
			if strings.Contains(env, want) != agents {
				t.Errorf("telemetry agents %v: %q in the agent's environment is %v:\n%s", agents, want, !agents, env)
			}
		}
	}
}
