package telemetry

import (
	"context"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"rooda/host/agentstream"
	"rooda/host/loop"
)

// Loop is the span of one loop of a run, and of its iteration going on.
// It is a loop.Observer: the loop tells it of each iteration before the
// agent starts, so that Env names the iteration's span. A loop's
// iterations run one after another, on its goroutine; a nil *Loop does
// nothing.
type Loop struct {
	// RunID names the run in what the agents' own telemetry exports.
	RunID     string
	agents    bool // telemetry: agents
	n         int  // the iteration going on
	tracer    trace.Tracer
	ctx       context.Context // the loop span's
	span      trace.Span
	procedure string
	// iteration is the span of the iteration going on, nil between
	// iterations.
	iteration trace.Span
}

// Loop starts the span of a loop of procedure whose agents take turns
// (their names), under the run's span; name is the loop's in
// parallel(), "" for a loop that runs alone.
func (r *Run) Loop(name, procedure string, agents []string) *Loop {
	if r == nil {
		return nil
	}
	attrs := []attribute.KeyValue{
		attribute.String("rooda.procedure", procedure),
		attribute.StringSlice("rooda.agents", agents)}
	spanName := "loop " + procedure
	if name != "" {
		// Loops at once (parallel()) are told apart by their names.
		spanName = "loop " + name
		attrs = append(attrs, attribute.String("rooda.loop", name))
	}
	ctx, span := r.tracer.Start(r.ctx, spanName, trace.WithAttributes(attrs...))
	return &Loop{tracer: r.tracer, ctx: ctx, span: span, procedure: procedure, agents: r.agents}
}

// IterationStarted starts the iteration's span: an invoke_agent CLIENT
// span, the agent being a remote one, named after the agent once known.
func (l *Loop) IterationStarted(req loop.Request) {
	if l == nil {
		return
	}
	l.endIteration() // one the loop never finished
	l.n = req.Iteration
	_, l.iteration = l.tracer.Start(l.ctx, "invoke_agent", trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "invoke_agent"),
		attribute.Int("rooda.iteration", req.Iteration),
		attribute.Int("rooda.max_iterations", req.MaxIterations),
		attribute.String("rooda.procedure", l.procedure)))
}

// IterationFinished ends the iteration's span with what came of it. A
// failed or interrupted iteration's span is an error.
func (l *Loop) IterationFinished(it *loop.Iteration) {
	if l == nil || l.iteration == nil {
		return
	}
	res := it.Result
	l.iteration.SetAttributes(nonEmpty(
		attribute.String("rooda.cause", string(it.Cause)),
		attribute.String("rooda.signal", res.Signal),
		attribute.String("rooda.account", it.Account))...)
	l.iteration.SetAttributes(
		attribute.String("rooda.agent", it.Agent),
		attribute.String("rooda.outcome", string(it.Outcome)),
		attribute.Int("process.exit.code", res.ExitCode),
		attribute.Int64("rooda.output_bytes", res.Total),
		attribute.Int64("rooda.dropped_bytes", res.Dropped),
		attribute.Float64("rooda.duration_seconds", it.Duration.Seconds()),
		attribute.Float64("rooda.waited_seconds", it.Waited.Seconds()))
	l.iteration.SetAttributes(spendAttributes(it.Spent)...)
	l.iteration.SetAttributes(agentAttributes(it)...)
	if it.Agent != "" {
		l.iteration.SetName("invoke_agent " + it.Agent)
	}
	failed := it.Outcome == loop.OutcomeFailure || it.Outcome == loop.OutcomeInterrupted
	if failed {
		l.iteration.SetAttributes(attribute.String("error.type", failure(it)))
	}
	setStatus(l.iteration, failed, failure(it))
	l.endIteration()
}

// providers are the gen_ai.provider.name of the CLIs whose models are
// one provider's; opencode and copilot reach many.
var providers = map[agentstream.Format]string{
	agentstream.Claude: "anthropic",
	agentstream.Codex:  "openai",
	agentstream.Gemini: "gcp.gemini",
}

// agentAttributes are the GenAI attributes of an iteration's agent: its
// name, and what its decoded stream said of its provider, model and
// session.
func agentAttributes(it *loop.Iteration) []attribute.KeyValue {
	attrs := []attribute.KeyValue{attribute.String("gen_ai.agent.name", it.Agent)}
	if d := it.Decoded; d != nil {
		attrs = append(attrs,
			attribute.String("gen_ai.provider.name", providers[d.Format]),
			attribute.String("gen_ai.request.model", d.Model),
			attribute.String("gen_ai.conversation.id", d.Session))
	}
	return nonEmpty(attrs...)
}

// nonEmpty are the attributes of kvs that say something: a cause only
// when the iteration failed, a signal only when one ended the agent.
func nonEmpty(kvs ...attribute.KeyValue) []attribute.KeyValue {
	var kept []attribute.KeyValue
	for _, kv := range kvs {
		if kv.Value.AsString() != "" {
			kept = append(kept, kv)
		}
	}
	return kept
}

// failure says why a failed iteration failed: its cause, else its
// outcome.
func failure(it *loop.Iteration) string {
	if it.Cause != "" {
		return string(it.Cause)
	}
	return string(it.Outcome)
}

// LimitWaiting adds a wait for an agent's limit or outage to the
// iteration's span, as an event: the iteration runs again at until;
// backoff when no reset was read and rooda chose the wait.
func (l *Loop) LimitWaiting(agent, cause string, until time.Time, wait time.Duration, backoff bool) {
	if l == nil || l.iteration == nil {
		return
	}
	l.iteration.AddEvent("rooda.limit_wait", trace.WithAttributes(
		attribute.String("rooda.agent", agent),
		attribute.String("rooda.cause", cause),
		attribute.String("rooda.limit.until", until.UTC().Format(time.RFC3339)),
		attribute.Float64("rooda.limit.wait_seconds", wait.Seconds()),
		attribute.Bool("rooda.limit.backoff", backoff)))
}

// Agent is the iteration's agent's part of the trace: its command line,
// argv with, under telemetry: agents, what turns its CLI's traces on
// (agentArgs), and its environment (env).
func (l *Loop) Agent(argv []string) (args, env []string) {
	if l == nil || l.iteration == nil {
		return argv, nil
	}
	if l.agents {
		argv = agentArgs(os.Getenv, argv)
	}
	return argv, l.env()
}

// env is what the iteration's agent is given of the trace: TRACEPARENT
// (W3C, 00-<trace>-<span>-<flags>) naming the iteration's span, and
// TRACESTATE when there is one; with telemetry: agents, what turns the
// CLIs' own traces on (agentEnv).
func (l *Loop) env() []string {
	if l == nil || l.iteration == nil {
		return nil
	}
	carrier := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(trace.ContextWithSpan(context.Background(), l.iteration), carrier)
	var env []string
	for _, key := range []string{"traceparent", "tracestate"} {
		if v := carrier.Get(key); v != "" {
			env = append(env, strings.ToUpper(key)+"="+v)
		}
	}
	if l.agents {
		env = append(env, agentEnv(os.Getenv, l.RunID, l.procedure, l.n)...)
	}
	return env
}

// End ends the loop's span (and an iteration's it never finished) with
// how the loop ended.
func (l *Loop) End(res loop.Result) {
	if l == nil {
		return
	}
	l.endIteration()
	endSpan(l.span, res.Status, res.Status.ExitCode(), res.Message, res.Iterations, res.Spent)
}

func (l *Loop) endIteration() {
	if l.iteration != nil {
		l.iteration.End()
		l.iteration = nil
	}
}
