package session

import (
	"context"

	"rooda/host/config"
	"rooda/host/engine"
	"rooda/host/loop"
	"rooda/host/telemetry"
)

// startTrace starts the run's trace, of the workflow named name (a
// procedure's or a script's), when the OTEL_* variables ask for one, and fails when they name no
// place it can go; a dry run has nothing to trace.
func (s *Session) startTrace(name string) error {
	if s.opts.DryRun {
		return nil
	}
	var err error
	agents := config.Telemetry.In(&s.opts.Config.Loop).V == "agents"
	s.trace, err = telemetry.Start(name, agents, s.Log().Warnf)
	return err
}

// execute runs a loop of plan with out and the run's observers, in a
// span of the run's trace when there is one: its agent is given the
// iteration's span as TRACEPARENT, its limit waits are events.
func (s *Session) execute(ctx context.Context, plan *engine.Plan, out engine.Output, observers ...loop.Observer) loop.Result {
	span := s.trace.Loop(out.Loop, plan.Procedure.Name, plan.Agents)
	if span != nil {
		span.RunID = s.runID()
		out.AgentTrace = span.Agent
		observers = append(observers, span)
		alsoOnLimitWait(&out, func(w loop.LimitWait) { span.LimitWaiting(w.Agent, w.Cause, w.Until, w.Wait, w.Backoff) })
	}
	res := plan.Execute(ctx, out, s.observers(observers...)...)
	span.End(res)
	return res
}

// endTrace ends the run's trace with how the run ended, and exports it.
func (s *Session) endTrace(end runEnd) {
	s.trace.End(telemetry.RunEnd{RunID: s.runID(), Command: s.opts.Command, Status: end.status, Code: &end.code, Message: end.message, Iterations: s.iterations, Spent: s.spent})
}
