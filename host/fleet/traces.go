package fleet

import (
	"context"
	"net/url"
	"os"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// The events of a worker's span of a run (docs/telemetry-and-deployment.md).
const (
	// eventTakeover: the run was another worker's, whose lease lapsed.
	eventTakeover = "rooda.fleet.takeover"
	// eventLeaseLost: this worker's lease lapsed, or could not be
	// renewed, and the run is another's: it was stopped.
	eventLeaseLost = "rooda.fleet.lease_lost"
	// eventResumed: the run's record was found cut short and resumed.
	eventResumed = "rooda.fleet.resumed"
	// eventGivenBack: the run went back to the queue.
	eventGivenBack = "rooda.fleet.given_back"
)

// startRunSpan starts the worker's span of the run l holds: its name,
// the worker and the attempt, and when the run was taken over, the
// event that says from whom.
func (w *Worker) startRunSpan(ctx context.Context, l *Lease) (context.Context, trace.Span) {
	tracer := w.Tracer
	if tracer == nil {
		tracer = noop.NewTracerProvider().Tracer("")
	}
	st := l.State()
	ctx, span := tracer.Start(ctx, "fleet run "+st.Run.Name, trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(
			attribute.String("rooda.fleet.run", st.Run.Name),
			attribute.String("rooda.fleet.worker", w.Name),
			attribute.Int("rooda.fleet.attempt", st.Attempt),
			attribute.String("rooda.command", strings.Join(st.Run.Argv, " "))))
	if l.tookOver != "" {
		span.AddEvent(eventTakeover, trace.WithAttributes(attribute.String("rooda.fleet.previous_worker", l.tookOver)))
	}
	return ctx, span
}

// runEnv is what the worker adds to the environment of the rooda of a
// run, when it traces: the run's name and the worker as resource
// attributes of every span the run makes (its agents' too, which rooda
// gives OTEL_RESOURCE_ATTRIBUTES after these), and the worker's span as
// the run's parent (TRACEPARENT), so that its trace hangs under the
// worker's span of the run.
func (w *Worker) runEnv(ctx context.Context, st State) []string {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return nil
	}
	attrs := []string{
		"rooda.fleet.run=" + url.PathEscape(st.Run.Name),
		"rooda.fleet.worker=" + url.PathEscape(w.Name),
	}
	if mine := strings.TrimSpace(os.Getenv("OTEL_RESOURCE_ATTRIBUTES")); mine != "" {
		attrs = append([]string{mine}, attrs...)
	}
	env := []string{"OTEL_RESOURCE_ATTRIBUTES=" + strings.Join(attrs, ",")}
	carrier := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, carrier)
	for key, value := range carrier {
		env = append(env, strings.ToUpper(key)+"="+value)
	}
	return env
}

// leaseLost notes on the span that the worker lost the run.
func leaseLost(span trace.Span, err error) {
	span.AddEvent(eventLeaseLost, trace.WithAttributes(attribute.String("error.message", err.Error())))
	span.SetStatus(codes.Error, "lease lost")
}

// endRunSpan notes how the run ended.
func endRunSpan(span trace.Span, e Ending, cause error) {
	span.SetAttributes(attribute.String("rooda.status", e.Status), attribute.Int("process.exit.code", e.ExitCode),
		attribute.Int("rooda.iterations", e.Progress.Iterations))
	switch {
	case cause != nil:
		span.SetStatus(codes.Error, cause.Error())
	case e.ExitCode != 0:
		span.SetStatus(codes.Error, e.Status)
	}
}
