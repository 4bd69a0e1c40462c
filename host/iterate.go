package host

import (
	"fmt"

	"go.starlark.net/starlark"

	"rooda/host/config"
	"rooda/host/engine"
	"rooda/host/loop"
)

// DryRunStatus is the status of an iterate() a dry run reported instead
// of running.
const DryRunStatus = "dry-run"

// Iterate runs one loop a script asked for, through the same engine as a
// YAML procedure. The host's rules come first: the command line's
// settings beat the script's (engine.Request.Script), the run-wide
// iteration budget caps every loop, an interrupt or the duration budget
// ends the script, and in a dry run the loop is reported, not run.
//
// The script's callbacks (plan.ContextFunc, plan.Judge) run on this
// goroutine, the thread's own.
func (r *Runtime) Iterate(thread *starlark.Thread, req engine.Request, contextFunc func(int) ([]string, error), judge func(*loop.Iteration) (loop.Outcome, error)) (loop.Result, error) {
	plan, err := engine.Prepare(req)
	if err != nil {
		return loop.Result{}, err
	}
	// An error in the script's own callback stops the script, with the
	// callback's backtrace; the loop only sees that it must end.
	var callbackErr error
	if contextFunc != nil {
		plan.ContextFunc = func(n int) ([]string, error) {
			ctx, err := contextFunc(n)
			callbackErr = err
			return ctx, err
		}
	}
	if judge != nil {
		plan.Judge = func(it *loop.Iteration) (loop.Outcome, error) {
			o, err := judge(it)
			callbackErr = err
			return o, err
		}
	}
	if r.opts.DryRun {
		if err := plan.DryRun(r.opts.Stdout, r.opts.Command); err != nil {
			return loop.Result{}, err
		}
		fmt.Fprintln(r.opts.Stdout)
		return loop.Result{Status: DryRunStatus}, nil
	}
	if err := plan.Err(); err != nil {
		return loop.Result{}, fmt.Errorf("cannot run %s:\n%w", plan.Procedure.Name, err)
	}
	capped, err := r.capIterations(plan)
	if err != nil {
		return loop.Result{}, err
	}
	ctx := Context(thread)
	res := plan.Execute(ctx, engine.Output{Stdout: r.opts.Stdout, Stderr: r.opts.Stderr, Kill: r.opts.Kill})
	r.iterations += res.Iterations
	r.last = res.Status
	switch {
	case ctx.Err() != nil:
		return res, stopCause(ctx)
	case callbackErr != nil:
		return res, callbackErr
	case capped && res.Status == loop.MaxIters:
		return res, r.iterationBudget()
	}
	return res, nil
}

// LastStatus is how the script's last iterate() ended, "" if it made
// none: the exit code of a script that ends without an error.
func (r *Runtime) LastStatus() loop.Status { return r.last }

// Config is the run's merged configuration.
func (r *Runtime) Config() *config.Config { return r.opts.Config }

// capIterations lowers the plan's iteration limit to what the run-wide
// budget has left, and says whether it did.
func (r *Runtime) capIterations(plan *engine.Plan) (bool, error) {
	budget := r.opts.MaxTotalIterations
	if budget <= 0 {
		return false, nil
	}
	left := budget - r.iterations
	if left <= 0 {
		return false, r.iterationBudget()
	}
	if max := plan.Settings.MaxIterations.V; max == 0 || max > left {
		plan.Settings.MaxIterations.V = left
		return true, nil
	}
	return false, nil
}

func (r *Runtime) iterationBudget() error {
	return &BudgetError{Budget: "--max-total-iterations", Limit: fmt.Sprint(r.opts.MaxTotalIterations), What: "iterations"}
}

// ExitCode is the exit code of a script that ended without an error: its
// last iterate()'s, or 0 if it made none or only reported them.
func (r *Runtime) ExitCode() int {
	if r.last == "" || r.last == DryRunStatus {
		return 0
	}
	return r.last.ExitCode()
}
