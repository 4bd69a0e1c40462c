package loop

import "bytes"

// The promise signals of seed 001, exactly: case and spacing matter.
var (
	successSignal = []byte("<promise>SUCCESS</promise>")
	failureSignal = []byte("<promise>FAILURE</promise>")
)

// Signals are the promises found in an agent's output.
type Signals struct {
	Success bool
	Failure bool
}

// Scan looks for the promise signals anywhere in output. It runs once,
// after the agent has exited, over the whole kept output, so a signal
// split between two reads of the pipe is found.
func Scan(output []byte) Signals {
	return Signals{
		Success: bytes.Contains(output, successSignal),
		Failure: bytes.Contains(output, failureSignal),
	}
}
