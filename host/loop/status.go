package loop

// Status is how a run ended.
type Status string

const (
	Running     Status = "running"
	Success     Status = "success"     // the agent signaled SUCCESS
	MaxIters    Status = "max-iters"   // the iteration limit was reached
	Aborted     Status = "aborted"     // the failure threshold was reached, or the loop could not go on
	Interrupted Status = "interrupted" // SIGINT or SIGTERM
)

// ExitCode is the process exit code for the status: 0 success, 1 aborted,
// 2 max-iters, 130 interrupted.
func (s Status) ExitCode() int {
	switch s {
	case Success:
		return 0
	case MaxIters:
		return 2
	case Interrupted:
		return 130
	}
	return 1
}
