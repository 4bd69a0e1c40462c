package telemetry

import (
	"context"

	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"rooda/host/units"
)

// Process is the tracing of a long-lived program that is no run: a fleet
// worker, whose spans are its runs' takes. A nil *Process is tracing
// turned off.
type Process struct {
	provider Provider
	warn     *warnOnce
}

// StartProcess begins the tracing of a program, as Start does a run's
// (the same environment turns it on, the same exporter sends it), but
// with no root span: Tracer's spans are each a trace's root, or a child
// of the span their context holds. nil when tracing is off or this
// program links no exporter.
func StartProcess(warn func(format string, args ...any)) (*Process, error) {
	provider, once, err := newProvider(warn)
	if provider == nil || err != nil {
		return nil, err
	}
	return &Process{provider: provider, warn: once}, nil
}

// Tracer makes the program's spans; a no-op one when tracing is off.
func (p *Process) Tracer() trace.Tracer {
	if p == nil {
		return noop.NewTracerProvider().Tracer(scope)
	}
	return p.provider.Tracer(scope)
}

// Shutdown exports what is left, within ShutdownTimeout.
func (p *Process) Shutdown() {
	if p == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	if err := p.provider.Shutdown(ctx); err != nil {
		p.warn.Warnf("traces not exported within %s: %v", units.Duration(ShutdownTimeout), err)
	}
}
