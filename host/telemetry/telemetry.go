// Package telemetry exports a run as an OpenTelemetry trace, named as
// the GenAI semantic conventions name an agent system's: the run is an
// invoke_workflow span, each loop a child of it, and each iteration an
// invoke_agent CLIENT span, child of its loop, with the agent's
// provider, model, session, tokens and error type; rooda's own
// attributes are under rooda.*. No prompt or output is exported. The
// spans go over OTLP (http/protobuf, or grpc) by the official Go SDK's
// exporters, which package telemetry/otlp registers here with the SDK
// (UseExporter): a program that does not link it (rooda) makes no trace,
// and links no SDK.
// Each agent is given its iteration's span as TRACEPARENT, so that a CLI
// that emits telemetry of its own joins the same trace (the setting
// telemetry: agents turns a CLI's on: Loop.Agent).
//
// Tracing is on only when OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set, and neither
// OTEL_SDK_DISABLED=true nor OTEL_TRACES_EXPORTER=none turns it off.
// Otherwise Start returns nil, and a nil *Run or *Loop does nothing: no
// provider, no exporter, no goroutine. An endpoint that is not a URL is
// an error before the run starts. The SDK reads the other OTEL_*
// variables itself (headers, timeout, compression, sampler, resource).
package telemetry

import (
	"context"
	"os"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"rooda/host/loop"
	"rooda/host/units"
)

// ShutdownTimeout bounds the export at the end of a run: a collector
// that is down or never answers costs the run at most this, then a
// warning.
const ShutdownTimeout = 3 * time.Second

// scope names the instrumentation in every span it makes.
const scope = "rooda"

// Run is the trace of one run: its root span and the SDK that exports it.
// Its methods may be called from several goroutines (loops that run at
// once); a nil *Run is tracing turned off.
type Run struct {
	// agents turns the agent CLIs' own traces on (telemetry: agents).
	agents   bool
	provider Provider
	tracer   trace.Tracer
	ctx      context.Context // the root span's
	root     trace.Span
	warn     *warnOnce
	ended    sync.Once
}

// Enabled reports whether the environment (getenv, as os.Getenv) asks
// for traces.
func Enabled(getenv func(string) string) bool {
	named := false
	for _, name := range endpointVariables {
		// The SDK takes a blank value for none, and sends to localhost.
		named = named || strings.TrimSpace(getenv(name)) != ""
	}
	if !named {
		return false
	}
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return false
	}
	return strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")) != "none"
}

// protocol is the OTLP protocol the environment asks for traces: the
// traces' own variable beats the general one; http/protobuf by default.
func protocol(getenv func(string) string) string {
	for _, name := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		if p := strings.TrimSpace(getenv(name)); p != "" {
			return p
		}
	}
	return "http/protobuf"
}

// Start begins the trace of a run of workflow (a procedure's or a
// script's name; its root span is "invoke_workflow <workflow>"), or
// returns nil when tracing is off or this program links no exporter
// (Exporting). It fails when an endpoint variable is malformed. warn says what went wrong with the
// export; it is called at most once per run, since a collector that is
// down fails every export alike. A TRACEPARENT in rooda's own
// environment (a CI job's span) is the run's parent.
//
// With agents, each agent's own traces are turned on too (agentEnv).
func Start(workflow string, agents bool, warn func(format string, args ...any)) (*Run, error) {
	provider, once, err := newProvider(warn)
	if provider == nil || err != nil {
		return nil, err
	}
	r := start(provider, workflow, once)
	r.agents = agents
	return r, nil
}

// newProvider is the SDK that exports this program's spans as the
// environment asks, and the warning it says failures with; nil when
// tracing is off or cannot be (said through warn). It fails when an
// endpoint variable is malformed.
func newProvider(warn func(format string, args ...any)) (Provider, *warnOnce, error) {
	if !Enabled(os.Getenv) {
		return nil, nil, nil
	}
	proto := protocol(os.Getenv)
	if err := checkEndpoints(os.Getenv, proto); err != nil {
		return nil, nil, err
	}
	if !Exporting() {
		// The program that could export was not found: rooda said so
		// as it started (internal/cli's exportersOrWarn).
		return nil, nil, nil
	}
	once := &warnOnce{warn: warn}
	// The SDK reports failed exports, and a malformed
	// OTEL_RESOURCE_ATTRIBUTES as it is made, through the global handler,
	// whose default prints to stderr past rooda's log.
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { once.Warnf("traces not exported: %v", err) }))
	provider, err := newSDK(context.Background(), proto, once.Warnf)
	if err != nil {
		once.Warnf("no traces exported: %v", err)
		return nil, nil, nil
	}
	return provider, once, nil
}

// start begins the run's root span with provider, under the span
// rooda's environment names, if any.
func start(provider Provider, workflow string, warn *warnOnce) *Run {
	r := &Run{provider: provider, tracer: provider.Tracer(scope), warn: warn}
	r.ctx, r.root = r.tracer.Start(parentFromEnv(context.Background()), "invoke_workflow "+workflow,
		trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(
			attribute.String("gen_ai.operation.name", "invoke_workflow"),
			attribute.String("gen_ai.workflow.name", workflow)))
	return r
}

// Provider is the SDK's tracer provider, as a run's trace uses it.
type Provider interface {
	trace.TracerProvider
	// Shutdown ends the provider, exporting what is left.
	Shutdown(ctx context.Context) error
}

// NewSDK makes the SDK that exports each run's trace over protocol, the
// one the environment asks for; warn says what it could not set up and
// went on without.
type NewSDK func(ctx context.Context, protocol string, warn func(format string, args ...any)) (Provider, error)

// newSDK is package telemetry/otlp's (UseExporter), nil in a program
// that does not link it.
var newSDK NewSDK

// UseExporter makes sdk what makes the SDK and its exporter of each
// run's trace. Package telemetry/otlp calls it as it initialises, so
// that this package, which every rooda links, links neither the SDK
// (3% of a start's samples, docs/performance.md) nor gRPC and protobuf.
func UseExporter(sdk NewSDK) { newSDK = sdk }

// Exporting reports whether this program links an exporter
// (UseExporter), without which Start makes no trace.
func Exporting() bool { return newSDK != nil }

// parentFromEnv is ctx with the span that TRACEPARENT and TRACESTATE in
// rooda's environment name, if any.
func parentFromEnv(ctx context.Context) context.Context {
	carrier := propagation.MapCarrier{"traceparent": os.Getenv("TRACEPARENT"), "tracestate": os.Getenv("TRACESTATE")}
	return propagation.TraceContext{}.Extract(ctx, carrier)
}

// RunEnd is what the root span says of how the run ended.
type RunEnd struct {
	RunID   string
	Command []string
	Status  loop.Status
	// Code is the run's exit code when it is not Status's: the one a
	// script gave exit(). nil is Status's.
	Code    *int
	Message string
	// Iterations counts the iterations of every loop; Spent is what
	// their agents used.
	Iterations int
	Spent      loop.Spend
}

// End ends the run's span with how the run ended and exports what is
// left, within ShutdownTimeout. Only its first call counts.
func (r *Run) End(end RunEnd) {
	if r == nil {
		return
	}
	r.ended.Do(func() {
		r.root.SetAttributes(
			attribute.String("rooda.run.id", end.RunID),
			attribute.String("rooda.command", strings.Join(end.Command, " ")))
		code := end.Status.ExitCode()
		if end.Code != nil {
			code = *end.Code
		}
		endSpan(r.root, end.Status, code, end.Message, end.Iterations, end.Spent)
		ctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
		defer cancel()
		if err := r.provider.Shutdown(ctx); err != nil {
			r.warn.Warnf("traces not exported within %s: %v", units.Duration(ShutdownTimeout), err)
		}
	})
}

// endSpan ends the span of a run or a loop with how it ended: its status
// and exit code, its iterations and their spend; one that did not exit 0
// is an error, saying message.
func endSpan(span trace.Span, status loop.Status, code int, message string, iterations int, spent loop.Spend) {
	span.SetAttributes(
		attribute.String("rooda.status", string(status)),
		attribute.Int("process.exit.code", code),
		attribute.Int("rooda.iterations", iterations))
	span.SetAttributes(spendAttributes(spent)...)
	setStatus(span, code != 0, message)
	span.End()
}

// setStatus marks span failed, saying why, or leaves it unset.
func setStatus(span trace.Span, failed bool, why string) {
	if failed {
		span.SetStatus(codes.Error, why)
	}
}

// spendAttributes are the tokens and cost of a spend: the cost only when
// known, never a guess.
func spendAttributes(s loop.Spend) []attribute.KeyValue {
	u := s.Tokens
	attrs := []attribute.KeyValue{
		// The conventions count the tokens read from and written to the
		// prompt cache in the input, and apart as well.
		attribute.Int64("gen_ai.usage.input_tokens", u.Input+u.CacheRead+u.CacheWrite),
		attribute.Int64("gen_ai.usage.output_tokens", u.Output),
		attribute.Int64("gen_ai.usage.cache_read.input_tokens", u.CacheRead),
		attribute.Int64("gen_ai.usage.cache_creation.input_tokens", u.CacheWrite),
		attribute.Int64("rooda.tokens.total", s.TotalTokens()),
	}
	if s.Costed {
		attrs = append(attrs, attribute.Float64("rooda.cost_usd", s.CostUSD))
	}
	return attrs
}

// warnOnce passes on the first warning of a run and drops the others.
type warnOnce struct {
	once sync.Once
	warn func(format string, args ...any)
}

func (w *warnOnce) Warnf(format string, args ...any) {
	w.once.Do(func() {
		if w.warn != nil {
			w.warn(format, args...)
		}
	})
}
