package session

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"rooda/host/agentstream"
	"rooda/host/loop"
	"rooda/host/process"
)

// FakeAgent stands in for an AI CLI in script tests: it answers each
// iteration (a turn) from scripts of what it says and does, the last entry
// of each repeating, keeps every prompt it is given, and starts no
// process. Its output is kept as a real agent's is, within
// max_output_buffer.
type FakeAgent struct {
	// Name, when set, is what the log, the record and it.agent call it;
	// else "fake_agent", or "fake_agent N" among several.
	Name      string
	Outputs   []string
	ExitCodes []int
	// Format is the CLI whose output it prints: each turn's output, usage,
	// cost and cause are written as that CLI's stream (agentstream.Write)
	// and read back by its decoder. Text prints the output as it is and
	// reports usage and cost beside it.
	Format agentstream.Format
	// Costs and Usage are what each turn reports spending; none when empty.
	Costs []float64
	Usage []agentstream.Usage
	// Causes are the errors its CLI reports, by turn ("" for none): a turn
	// with one exits 1 unless ExitCodes says otherwise.
	Causes []agentstream.Cause
	// Durations are how long each turn takes on a script test's clock.
	Durations []time.Duration
	// TimedOut are the turns that run into the iteration timeout: they
	// end as a real agent stopped then does, and take the timeout on the
	// clock unless Durations say otherwise.
	TimedOut []bool
	// Writes are the files each turn writes in its working directory,
	// by path relative to it.
	Writes []map[string]string
	// prompts are the prompts received, one per iteration, in order.
	prompts []string
	// mu orders the turns of loops that share the agent in parallel().
	mu sync.Mutex
}

// Check says what in f no agent could do: report what its CLI never
// reports, or write a file outside its working directory.
func (f *FakeAgent) Check() error {
	for i, cause := range f.Causes {
		if _, err := agentstream.Write(f.Format, agentstream.Reply{Cause: cause}); cause != "" && err != nil {
			return fmt.Errorf("causes[%d]: %w", i, err)
		}
	}
	if f.Format == agentstream.Text {
		return f.checkWrites()
	}
	for i, c := range f.Costs {
		if _, err := agentstream.Write(f.Format, agentstream.Reply{Cost: c, HasCost: true}); err != nil {
			return fmt.Errorf("costs[%d]: %w", i, err)
		}
	}
	for i, u := range f.Usage {
		if _, err := agentstream.Write(f.Format, agentstream.Reply{Usage: u}); err != nil {
			return fmt.Errorf("usage[%d]: %w", i, err)
		}
	}
	return f.checkWrites()
}

func (f *FakeAgent) checkWrites() error {
	for i, files := range f.Writes {
		for path := range files {
			if !filepath.IsLocal(path) {
				return fmt.Errorf("writes[%d]: %q is not a path inside the working directory", i, path)
			}
		}
	}
	return nil
}

// Received is a copy of the prompts received so far.
func (f *FakeAgent) Received() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.prompts)
}

// Run answers one iteration: it writes the turn's files, prints its
// output, and moves clock (a script test's; nil for none) by the time the
// turn takes. spent is what a text agent reports spending; a CLI's format
// carries it in the output, for the decoder to read.
func (f *FakeAgent) Run(ctx context.Context, cmd process.Command, clock *Clock) (res process.Result, spent loop.Spend, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := len(f.prompts)
	f.prompts = append(f.prompts, cmd.Prompt)
	if err := f.write(n, cmd.Dir); err != nil {
		return process.Result{}, loop.Spend{}, err
	}
	reply := agentstream.Reply{Text: pick(f.Outputs, n, ""), Usage: pick(f.Usage, n, agentstream.Usage{}), Cause: pick(f.Causes, n, "")}
	if len(f.Costs) > 0 {
		reply.Cost, reply.HasCost = pick(f.Costs, n, 0), true
	}
	out := []byte(reply.Text)
	if f.Format == agentstream.Text {
		spent = loop.Spend{Tokens: reply.Usage, CostUSD: reply.Cost, Costed: reply.HasCost}
	} else if out, err = agentstream.Write(f.Format, reply); err != nil {
		return process.Result{}, loop.Spend{}, err
	}
	ring := process.NewRing(cmd.MaxOutput)
	ring.Write(out)
	if cmd.Stream != nil {
		cmd.Stream.Write(out)
	}
	res = process.Result{
		Output:      ring.Bytes(),
		Total:       ring.Total(),
		Dropped:     ring.Dropped(),
		ExitCode:    pick(f.ExitCodes, n, 0),
		Interrupted: ctx.Err() != nil,
	}
	if reply.Cause != "" && len(f.ExitCodes) == 0 {
		res.ExitCode = 1 // a CLI that reports an error exits so
	}
	took := pick(f.Durations, n, 0)
	if pick(f.TimedOut, n, false) {
		// As process.Run ends an agent at its timeout: SIGTERM.
		res.TimedOut, res.ExitCode, res.Signal = true, 128+15, "SIGTERM"
		if len(f.Durations) == 0 {
			took = cmd.Timeout
		}
	}
	if clock != nil {
		clock.Advance(took)
	}
	return res, spent, nil
}

// write writes turn n's files in dir ("" is the working directory).
func (f *FakeAgent) write(n int, dir string) error {
	files := pick(f.Writes, n, nil)
	for _, path := range slices.Sorted(maps.Keys(files)) {
		full := filepath.Join(dir, path)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, []byte(files[path]), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// pick is the nth of a script whose last entry repeats, or dflt.
func pick[T any](script []T, n int, dflt T) T {
	if len(script) == 0 {
		return dflt
	}
	return script[min(n, len(script)-1)]
}
