package loop

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
	// The endings of a whole run that no loop gives.
	Errored    Status = "error"   // the run failed: an error in a script, or a loop that could not start
	OverBudget Status = "budget"  // a run-wide budget (--max-steps, --max-duration …) was reached
	Finished   Status = "done"    // a script ended without running a loop
	DryRun     Status = "dry-run" // a loop a dry run reported instead of running
)

// Statuses are the endings of a run, in the order the README's table of
// them lists them.
var Statuses = []Status{Success, MaxIters, Aborted, Interrupted, Stalled, OverBudget, Errored, Finished, DryRun}

// ExitCode is the process exit code for the status: 0 success (and a
// script that ran no loop, or only reported them), 1 aborted or an error,
// 2 max-iters, stalled or a budget: rooda's rules stopped a loop the agent
// had not failed; 130 interrupted.
func (s Status) ExitCode() int {
	switch s {
	case Success, Finished, DryRun:
		return 0
	case MaxIters, Stalled, OverBudget:
		return 2
	case Interrupted:
		return 130
	}
	return 1
}
