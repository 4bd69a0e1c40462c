package session

import (
	"context"

	"rooda/host/process"
)

// FakeAgent stands in for an AI CLI in script tests: it answers each
// iteration from a script of outputs and exit codes (the last repeating),
// keeps every prompt it is given, and starts no process. Its output is
// kept as a real agent's is, within max_output_buffer.
type FakeAgent struct {
	Outputs   []string
	ExitCodes []int
	// Prompts are the prompts received, one per iteration, in order.
	Prompts []string
}

// Run answers one iteration.
func (f *FakeAgent) Run(ctx context.Context, cmd process.Command) (process.Result, error) {
	n := len(f.Prompts)
	f.Prompts = append(f.Prompts, cmd.Prompt)
	ring := process.NewRing(cmd.MaxOutput)
	out := []byte(pick(f.Outputs, n, ""))
	ring.Write(out)
	if cmd.Stream != nil {
		cmd.Stream.Write(out)
	}
	return process.Result{
		Output:      ring.Bytes(),
		Total:       ring.Total(),
		Dropped:     ring.Dropped(),
		ExitCode:    pick(f.ExitCodes, n, 0),
		Interrupted: ctx.Err() != nil,
	}, nil
}

// pick is the nth of a script whose last entry repeats, or dflt.
func pick[T any](script []T, n int, dflt T) T {
	if len(script) == 0 {
		return dflt
	}
	return script[min(n, len(script)-1)]
}
