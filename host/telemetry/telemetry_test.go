package telemetry

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"rooda/host/agentstream"
	"rooda/host/loop"
	"rooda/host/process"
)

func TestEnabled(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want bool
	}{
		{nil, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x", "OTEL_SDK_DISABLED": "TRUE"}, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x", "OTEL_SDK_DISABLED": "false"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x", "OTEL_TRACES_EXPORTER": "none"}, false},
		{map[string]string{"OTEL_SERVICE_NAME": "x"}, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": " "}, false},
	} {
		if got := Enabled(func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("Enabled(%v) = %v", tc.env, got)
		}
	}
}

// unsetTracing clears the variables that turn tracing on, for one test.
func unsetTracing(t *testing.T) {
	for _, k := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER",
		"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "TRACEPARENT", "TRACESTATE"} {
		t.Setenv(k, "")
	}
}

// TestOffMakesNothing: without an endpoint no provider is made, no
// goroutine started, and the nil run and loop do nothing.
func TestOffMakesNothing(t *testing.T) {
	unsetTracing(t)
	before := runtime.NumGoroutine()
	r, err := Start("build", false, func(string, ...any) { t.Error("warned") })
	if r != nil || err != nil {
		t.Fatalf("Start made a run: %v, %v", r, err)
	}
	l := r.Loop("", "build", nil)
	l.IterationStarted(loop.Request{Iteration: 1})
	if env := l.env(); env != nil {
		t.Errorf("Env = %q", env)
	}
	l.LimitWaiting("claude", "usage_limit", time.Now(), time.Second, false)
	l.IterationFinished(&loop.Iteration{Number: 1})
	l.End(loop.Result{})
	r.End(RunEnd{})
	if after := runtime.NumGoroutine(); after > before {
		t.Errorf("%d goroutines before, %d after", before, after)
	}
}

// TestNoExporterNoTrace: in a program that links no exporter (rooda,
// without package otlp) an endpoint makes no trace and no warning, for
// rooda warned as it started; a malformed one is still an error.
func TestNoExporterNoTrace(t *testing.T) {
	unsetTracing(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")
	if Exporting() {
		t.Fatal("package telemetry links an exporter of its own")
	}
	r, err := Start("build", false, func(string, ...any) { t.Error("warned") })
	if r != nil || err != nil {
		t.Errorf("Start made a run: %v, %v", r, err)
	}
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http//bad")
	if _, err := Start("build", false, nil); err == nil {
		t.Error("a malformed endpoint passed")
	}
}

// TestMalformedEndpoints: an endpoint the SDK would replace by localhost,
// or could send nothing to, is an error naming the variable and its
// value; gRPC's own target schemes pass as they are.
func TestMalformedEndpoints(t *testing.T) {
	for _, tc := range []struct {
		name, value, protocol, want string
	}{
		{"OTEL_EXPORTER_OTLP_ENDPOINT", "http//bad", "http/protobuf", `OTEL_EXPORTER_OTLP_ENDPOINT="http//bad" is not an OTLP endpoint: it does not start with http:// or https://`},
		{"OTEL_EXPORTER_OTLP_ENDPOINT", ":::", "grpc", `OTEL_EXPORTER_OTLP_ENDPOINT=":::" is not an OTLP endpoint: missing protocol scheme` + "\nWrite it as a URL, as http://localhost:4317, or unset it to export no traces."},
		{"OTEL_EXPORTER_OTLP_ENDPOINT", "localhost:notaport", "http/protobuf", "does not start with http:// or https://\nWrite it as a URL, as http://localhost:4318"},
		{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://localhost:notaport/v1/traces", "http/protobuf", `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT="http://localhost:notaport/v1/traces" is not an OTLP endpoint: invalid port ":notaport" after host`},
		{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://:4318", "grpc", "it names no host"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT", "localhost:4317", "grpc", ""},
		{"OTEL_EXPORTER_OTLP_ENDPOINT", "dns:///collector:4317", "grpc", ""},
		{"OTEL_EXPORTER_OTLP_ENDPOINT", " HTTPS://collector.example/otlp ", "http/protobuf", ""},
	} {
		err := checkEndpoints(func(k string) string { return map[string]string{tc.name: tc.value}[k] }, tc.protocol)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s=%q over %s: error %v, want %q", tc.name, tc.value, tc.protocol, err, tc.want)
		}
	}
}

// recorded runs a run of one loop of two iterations, the second failed
// after a limit wait and ended by a signal, in memory, and returns its spans by name and the
// TRACEPARENT of each iteration's agent.
func recorded(t *testing.T) (map[string]tracetest.SpanStub, []string) {
	unsetTracing(t)
	exporter := keeping{tracetest.NewInMemoryExporter()}
	r := start(sdktrace.NewTracerProvider(sdktrace.WithSyncer(exporter)), "build", &warnOnce{})
	l := r.Loop("", "build", []string{"claude"})
	var parents []string
	spent := loop.Spend{Tokens: agentstream.Usage{Input: 10, Output: 5, CacheRead: 2}, CostUSD: 0.5, Costed: true}
	for n, outcome := range []loop.Outcome{loop.OutcomeContinue, loop.OutcomeFailure} {
		l.IterationStarted(loop.Request{Iteration: n + 1, MaxIterations: 2})
		parents = append(parents, l.env()...)
		res := process.Result{ExitCode: n, Total: 100, Dropped: 1}
		var decoded *agentstream.Summary
		if outcome == loop.OutcomeFailure {
			l.LimitWaiting("claude", "usage_limit", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), 5*time.Second, false)
			res.Signal = "SIGKILL"
			decoded = &agentstream.Summary{Format: agentstream.Claude, Model: "claude-opus-4-8", Session: "5f1c2a7e"}
		}
		// The second's account is the ledger's; the first ran without one.
		account := map[bool]string{true: "claude:3f9a"}[outcome == loop.OutcomeFailure]
		l.IterationFinished(&loop.Iteration{Number: n + 1, Agent: "claude", Account: account, Outcome: outcome, Cause: causeOf(outcome), Spent: spent, Result: res, Decoded: decoded})
	}
	l.End(loop.Result{Status: loop.Aborted, Iterations: 2, Message: "aborted"})
	r.End(RunEnd{RunID: "id", Command: []string{"rooda", "run", "build"}, Status: loop.Aborted, Message: "aborted", Iterations: 2, Spent: spent.Add(spent)})
	spans := map[string]tracetest.SpanStub{}
	for _, s := range exporter.GetSpans() {
		name := s.Name
		if n := attr(s, "rooda.iteration"); n.Type() != attribute.INVALID {
			name += fmt.Sprintf(" #%d", n.AsInt64())
		}
		spans[name] = s
	}
	return spans, parents
}

// keeping is an in-memory exporter that keeps its spans past the
// shutdown that Run.End does.
type keeping struct{ *tracetest.InMemoryExporter }

func (keeping) Shutdown(context.Context) error { return nil }

func causeOf(o loop.Outcome) loop.Cause {
	if o == loop.OutcomeFailure {
		return loop.Cause("agent_failed")
	}
	return ""
}

func attr(s tracetest.SpanStub, key string) attribute.Value {
	for _, kv := range s.Attributes {
		if string(kv.Key) == key {
			return kv.Value
		}
	}
	return attribute.Value{}
}

// TestSpans: the iterations are children of the loop, the loop of the
// run, in one trace, named and kinded as the GenAI conventions name an
// invoke_workflow and its invoke_agent calls; each agent's TRACEPARENT
// names its iteration; the failed iteration and run are errors, the
// iteration with its error.type; the limit wait is an event.
func TestSpans(t *testing.T) {
	spans, parents := recorded(t)
	run, lp, first, second := spans["invoke_workflow build"], spans["loop build"], spans["invoke_agent claude #1"], spans["invoke_agent claude #2"]
	if len(spans) != 4 {
		t.Fatalf("spans: %v", spans)
	}
	if run.SpanKind != trace.SpanKindInternal || first.SpanKind != trace.SpanKindClient || attr(run, "gen_ai.operation.name").AsString() != "invoke_workflow" ||
		attr(run, "gen_ai.workflow.name").AsString() != "build" || attr(first, "gen_ai.operation.name").AsString() != "invoke_agent" {
		t.Errorf("kinds %v %v; run %v\nfirst %v", run.SpanKind, first.SpanKind, run.Attributes, first.Attributes)
	}
	for key, want := range map[string]string{"gen_ai.agent.name": "claude", "gen_ai.provider.name": "anthropic", "gen_ai.request.model": "claude-opus-4-8",
		"gen_ai.conversation.id": "5f1c2a7e", "error.type": "agent_failed"} {
		if got := attr(second, key).AsString(); got != want {
			t.Errorf("iteration 2's %s = %q, want %q", key, got, want)
		}
	}
	if attr(first, "error.type").Type() != attribute.INVALID || attr(first, "gen_ai.provider.name").Type() != attribute.INVALID {
		t.Errorf("iteration 1, a success of an agent not decoded: %v", first.Attributes)
	}
	if attr(second, "gen_ai.usage.cache_read.input_tokens").AsInt64() != 2 {
		t.Errorf("cache read: %v", second.Attributes)
	}
	traceID := run.SpanContext.TraceID()
	if lp.Parent.SpanID() != run.SpanContext.SpanID() || first.Parent.SpanID() != lp.SpanContext.SpanID() || second.Parent.SpanID() != lp.SpanContext.SpanID() || second.SpanContext.TraceID() != traceID {
		t.Errorf("not a tree run → loop → iterations")
	}
	for i, it := range []tracetest.SpanStub{first, second} {
		want := fmt.Sprintf("TRACEPARENT=00-%s-%s-01", traceID, it.SpanContext.SpanID())
		if i >= len(parents) || parents[i] != want {
			t.Errorf("iteration %d's agent was given %q, want %q", i+1, parents, want)
		}
	}
	if first.Status.Code != codes.Unset || second.Status.Code != codes.Error || second.Status.Description != "agent_failed" || run.Status.Code != codes.Error {
		t.Errorf("statuses: %v %v %v", first.Status, second.Status, run.Status)
	}
	if attr(second, "rooda.outcome").AsString() != "failure" || attr(second, "process.exit.code").AsInt64() != 1 || attr(second, "gen_ai.usage.input_tokens").AsInt64() != 12 ||
		attr(second, "rooda.cost_usd").AsFloat64() != 0.5 || attr(second, "rooda.dropped_bytes").AsInt64() != 1 || attr(second, "rooda.agent").AsString() != "claude" {
		t.Errorf("iteration 2: %v", second.Attributes)
	}
	if attr(second, "rooda.cause").AsString() != "agent_failed" || attr(second, "rooda.signal").AsString() != "SIGKILL" ||
		attr(first, "rooda.cause").Type() != attribute.INVALID || attr(first, "rooda.signal").Type() != attribute.INVALID {
		t.Errorf("cause and signal, only when there is one: %v\n%v", first.Attributes, second.Attributes)
	}
	if attr(second, "rooda.account").AsString() != "claude:3f9a" || attr(first, "rooda.account").Type() != attribute.INVALID {
		t.Errorf("the account, only with a ledger: %v\n%v", first.Attributes, second.Attributes)
	}
	if len(second.Events) != 1 || second.Events[0].Name != "rooda.limit_wait" || len(first.Events) != 0 {
		t.Errorf("events: %v %v", first.Events, second.Events)
	}
	if attr(run, "rooda.tokens.total").AsInt64() != 34 || attr(run, "rooda.cost_usd").AsFloat64() != 1 || attr(run, "process.exit.code").AsInt64() != 1 || attr(lp, "rooda.iterations").AsInt64() != 2 {
		t.Errorf("run %v\nloop %v", run.Attributes, lp.Attributes)
	}
}

// TestParentFromEnvironment: a TRACEPARENT given to rooda (a CI job's
// span) is the parent of the run's span.
func TestParentFromEnvironment(t *testing.T) {
	unsetTracing(t)
	const parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	t.Setenv("TRACEPARENT", parent)
	exporter := keeping{tracetest.NewInMemoryExporter()}
	r := start(sdktrace.NewTracerProvider(sdktrace.WithSyncer(exporter)), "build", &warnOnce{})
	r.End(RunEnd{Status: loop.Success})
	spans := exporter.GetSpans()
	if len(spans) != 1 || spans[0].Parent.SpanID().String() != "b7ad6b7169203331" || spans[0].SpanContext.TraceID().String() != "0af7651916cd43dd8448eb211c80319c" {
		t.Errorf("spans: %v", spans)
	}
}

// TestLoopsAtOnceAreNamed: the spans of loops that run at once, in
// parallel(), carry their names, so that a trace tells them apart.
func TestLoopsAtOnceAreNamed(t *testing.T) {
	unsetTracing(t)
	exporter := keeping{tracetest.NewInMemoryExporter()}
	r := start(sdktrace.NewTracerProvider(sdktrace.WithSyncer(exporter)), "rooda script run tasks.star", &warnOnce{})
	for _, name := range []string{"task-a", "task-b"} {
		r.Loop(name, "build", nil).End(loop.Result{Status: loop.Success, Iterations: 1})
	}
	r.End(RunEnd{RunID: "id", Status: loop.Success, Iterations: 2})
	names := map[string]string{}
	for _, s := range exporter.GetSpans() {
		names[s.Name] = attr(s, "rooda.loop").AsString()
	}
	if names["loop task-a"] != "task-a" || names["loop task-b"] != "task-b" {
		t.Errorf("spans and their rooda.loop: %v", names)
	}
}

// TestAgentEnv: with telemetry: agents, an agent is given what turns on
// claude's and gemini's traces, gemini's endpoint without the signal's
// path, and resource attributes naming the run and iteration after the
// user's own; codex's command line gets its trace exporter, no other's;
// without it, TRACEPARENT alone.
func TestAgentEnv(t *testing.T) {
	env := map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces", "OTEL_RESOURCE_ATTRIBUTES": "team=core"}
	got := strings.Join(agentEnv(func(k string) string { return env[k] }, "20261126-abc", "build", 3), "\n")
	for _, want := range []string{"CLAUDE_CODE_ENABLE_TELEMETRY=1", "OTEL_TRACES_EXPORTER=otlp", "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf", "GEMINI_TELEMETRY_TRACES_ENABLED=true",
		"GEMINI_TELEMETRY_OTLP_ENDPOINT=http://collector:4318\n", "GEMINI_TELEMETRY_OTLP_PROTOCOL=http", "GEMINI_TELEMETRY_LOG_PROMPTS=false",
		"OTEL_RESOURCE_ATTRIBUTES=team=core,rooda.run.id=20261126-abc,rooda.procedure=build,rooda.iteration=3"} {
		if !strings.Contains(got+"\n", want) {
			t.Errorf("agent env lacks %q:\n%s", want, got)
		}
	}
	codex := agentArgs(func(k string) string { return env[k] }, []string{"/usr/bin/codex", "exec", "--json", "-"})
	if want := []string{"/usr/bin/codex", "-c", `otel.trace_exporter={otlp-http={endpoint="http://collector:4318/v1/traces",protocol="binary"}}`, "exec", "--json", "-"}; !slices.Equal(codex, want) {
		t.Errorf("codex's command line: %q, want %q", codex, want)
	}
	quoted := agentArgs(func(k string) string { return map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": `http://h/a"b\c`}[k] }, []string{"codex"})
	if want := `otel.trace_exporter={otlp-http={endpoint="http://h/a\"b\\c/v1/traces",protocol="binary"}}`; len(quoted) != 3 || quoted[2] != want {
		t.Errorf("an endpoint with a quote and a backslash: %q, want %q", quoted, want)
	}
	if claude := agentArgs(func(k string) string { return env[k] }, []string{"claude", "-p"}); !slices.Equal(claude, []string{"claude", "-p"}) {
		t.Errorf("claude's command line: %q", claude)
	}
	unsetTracing(t)
	exporter := keeping{tracetest.NewInMemoryExporter()}
	for _, agents := range []bool{false, true} {
		r := start(sdktrace.NewTracerProvider(sdktrace.WithSyncer(exporter)), "build", &warnOnce{})
		r.agents = agents
		l := r.Loop("", "build", nil)
		l.IterationStarted(loop.Request{Iteration: 1})
		t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318")
		argv, env := l.Agent([]string{"codex", "exec"})
		if given := strings.Join(env, "\n"); strings.Contains(given, "CLAUDE_CODE_ENABLE_TELEMETRY") != agents || !strings.Contains(given, "TRACEPARENT=") {
			t.Errorf("agents %v: %s", agents, given)
		}
		if slices.Contains(argv, "-c") != agents {
			t.Errorf("agents %v: codex's command line %q", agents, argv)
		}
	}
	if argv, env := (*Loop)(nil).Agent([]string{"codex", "exec"}); !slices.Equal(argv, []string{"codex", "exec"}) || env != nil {
		t.Errorf("no trace: %q, %q", argv, env)
	}
}
