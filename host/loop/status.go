package loop

import "slices"

// Status is how a run ended: a loop's, or a whole run's (a script's may
// end without a loop, or in an error). Its values are the one vocabulary
// rooda names run endings with: in the progress log, the JSON events,
// run.json, runs list and show, and a script's result.status.
type Status string

const (
	Running     Status = "running"
	Success     Status = "success"     // the agent signaled SUCCESS
	MaxIters    Status = "max-iters"   // the iteration limit was reached
	Aborted     Status = "aborted"     // the failure threshold was reached, or the loop could not go on
	Interrupted Status = "interrupted" // SIGINT or SIGTERM
	Stalled     Status = "stalled"     // stall_iterations iterations in a row changed nothing
	Stopped     Status = "stopped"     // the procedure's verdict "stop" ended the loop, not as a failure
	// The endings of a whole run that no loop gives.
	Errored    Status = "error"   // the run failed: an error in a script, or a loop that could not start
	OverBudget Status = "budget"  // a budget was reached: the loop's own (max_cost_usd, max_duration …) or the run's (--max-steps …)
	Finished   Status = "done"    // a script ended without running a loop
	DryRun     Status = "dry-run" // a loop a dry run reported instead of running
	// Exited is a script that called exit(code, reason): its exit code is
	// the one it gave, not ExitCode's.
	Exited Status = "exited"
)

// Statuses are the endings of a run, in the order the README's table of
// them lists them.
var Statuses = []Status{Success, Stopped, MaxIters, Aborted, Interrupted, Stalled, OverBudget, Errored, Finished, Exited, DryRun}

// ExitCode is the process exit code for the status: 0 success or stopped
// (and a script that ran no loop, or only reported them), 1 aborted or an
// error, 2 max-iters, stalled or a budget: rooda's rules stopped a loop
// the agent had not failed; 130 interrupted. Exited's is the script's
// (1 here, for want of it).
func (s Status) ExitCode() int {
	switch s {
	case Success, Stopped, Finished, DryRun:
		return 0
	case MaxIters, Stalled, OverBudget:
		return 2
	case Interrupted:
		return 130
	}
	return 1
}

// worse ranks the statuses of loops for the exit of a parallel(): the
// loop that failed beats the one rooda's rules stopped, which beats the
// one that ended well.
var worse = []Status{DryRun, Finished, Success, Stopped, MaxIters, Stalled, OverBudget, Aborted, Errored, Interrupted}

// Worst is the worst of statuses by that rank, whatever order they came
// in: how loops that ran at once ended, together; "" for none.
func Worst(statuses ...Status) Status {
	var w Status
	for _, s := range statuses {
		if rank(s) > rank(w) {
			w = s
		}
	}
	return w
}

func rank(s Status) int {
	return slices.Index(worse, s)
}
