package engine

import (
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"time"

	"rooda/host/config"
	"rooda/host/git"
	"rooda/host/interrupt"
	"rooda/host/ledger"
	"rooda/host/logging"
	"rooda/host/loop"
	"rooda/host/process"
	"rooda/host/prompt"
	"rooda/host/sandbox"
	"rooda/host/units"
)

// Output is where a run writes: the agent's streamed output (when
// show_ai_output is on) to Stdout, the log to Stderr.
type Output struct {
	Stdout, Stderr io.Writer
	// Kill, when closed, ends the agent's grace period at once (a second
	// Ctrl+C).
	Kill <-chan struct{}
	// Now is the log's clock; nil is the wall clock.
	Now func() time.Time
	// Started is when the run started, which relative time stamps
	// (log_timestamp_format: relative) count from; zero is the loop's
	// start.
	Started time.Time
	// Record, when set, keeps the run's record and gives the context
	// added while the run goes on.
	Record Record
	// SpentElsewhere, when set, is what the run's other loops have spent
	// by now, those running at once included, which this loop's budgets
	// (max_cost_usd, max_tokens) count too.
	SpentElsewhere func() loop.Spend
	// LimitWaiting, when set, is told of each wait for an agent's limit
	// or outage as it begins (loop.notify's limit_wait).
	LimitWaiting func(loop.LimitWait)
	// Sleep, when set, is how the loop waits (for a limit, an outage, a
	// spinning agent): a script test's clock moves instead of time
	// passing.
	Sleep func(ctx context.Context, d time.Duration) error
	// Tap, when set, also receives what the agent says as it says it: its
	// text, or the readable transcript of a CLI's JSON, with or without
	// show_ai_output (the status line shows its last line).
	Tap io.Writer
	// AgentTrace, when set, gives each iteration's agent its part of the
	// trace as it starts, after the observers were told the iteration
	// started: its command line (argv, as it is or with more) and more of
	// its environment (TRACEPARENT for its span).
	AgentTrace func(argv []string) (args, env []string)
	// Dir, when set, is the agent's working directory (a worktree of
	// parallel()), whose git state each iteration's changes are read
	// from; "" is rooda's.
	Dir string
	// Loop, when set, names the loop on each line of its log: several
	// loops run at once.
	Loop string
	// Replay, when set, answers the iterations a resumed run had ended
	// (loop.Config.Replay).
	Replay func(n int) loop.Replayed
	// AsLeft runs the iteration that was in flight when the run stopped
	// on the workspace as its killed try left it (--as-left).
	AsLeft bool
	// Ledger, when set, keeps the accounts' ledger the loop shares with
	// every other loop of its agents' accounts (loop.Config.Accounts).
	Ledger ledger.Store
}

// started is when the run started: Started, else now by the log's
// clock.
func (o Output) started() time.Time {
	switch {
	case !o.Started.IsZero():
		return o.Started
	case o.Now != nil:
		return o.Now()
	}
	return time.Now()
}

// Record keeps a run's record (host/runlog): it sees every iteration, is
// told when each loop starts and ends, and reads the context the user
// adds while the run goes on.
type Record interface {
	loop.Observer
	// LoopStarted is told the loop's settings, its first agent's argv,
	// and the names of the agents that take turns.
	LoopStarted(procedure string, settings, agent, agents []string)
	LoopFinished(loop.Result)
	Additions() (blocks, fresh []string, refused []error)
	// OutputFile is where the iteration going on keeps its whole output.
	OutputFile() string
}

// Execute runs the loop with the plan's agent. The plan must have passed
// its checks (Err is nil). Cancelling ctx interrupts the run; its cause
// names the interrupt in the log.
func (p *Plan) Execute(ctx context.Context, out Output, observers ...loop.Observer) loop.Result {
	s := p.Settings
	log := logging.Configured(out.Stderr, config.LogLevel.In(s).V, config.LogFormat.In(s).V)
	if out.Now != nil {
		log.WithClock(out.Now)
	}
	log.WithTimestamps(config.LogTimestampFormat.In(s).V, out.started())
	log.WithLoop(out.Loop)
	p.warnf, p.errorf = log.Warnf, log.Errorf
	for _, l := range s.Lines() {
		log.Debugf("Setting %s", l)
	}
	log.Debugf("Agent command: %q", p.Argv)
	for _, short := range p.SandboxShortfalls() {
		log.Warnf("Sandbox: %s", short)
	}
	for _, c := range p.Checks {
		if c.Warning {
			log.Warnf("%s", c.Text)
		}
	}
	// What the agents of a killed rooda left, this run or another's.
	for _, dir := range sandbox.Sweep() {
		log.Debugf("Removed %s, left by a rooda that was killed", dir)
	}
	p.refusals = newRefusalLog(log)
	defer p.agentDirs.removeSpare()
	// The loop sees the interrupt only once it is announced, so the
	// announcement always comes before the summary.
	announced, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	defer cancel(nil)
	defer context.AfterFunc(ctx, func() {
		announce(log, ctx)
		cancel(context.Cause(ctx))
	})()
	cmd := process.Command{
		Argv:        p.Argv,
		Timeout:     config.IterationTimeout.In(s).V,
		IdleTimeout: config.IdleTimeout.In(s).V,
		MaxOutput:   config.MaxOutputBuffer.In(s).V,
		Kill:        out.Kill,
		Dir:         out.Dir,
	}
	// What an iteration changed is looked at once, for the record, the
	// digest, the stall rule, the script and the snapshot of its start
	// alike.
	workspace := git.NewWorkspaceIn(out.Dir)
	defer workspace.Close()
	var dig *digest
	if config.Digest.In(s).V {
		dig = newDigest(announced, s.Checks.V, out.Kill)
		observers = append(observers, dig)
	}
	var rec Record
	var outputFile func() string
	if out.Record != nil {
		rec = out.Record
		rec.LoopStarted(p.Procedure.Name, s.Lines(), p.Argv, p.Agents)
		observers = append(observers, rec)
		outputFile = rec.OutputFile
		if st := newStarts(out.Dir, workspace, rec, log, out.AsLeft); st != nil {
			observers = append(observers, st)
			defer st.end()
		}
	}
	promptOf := p.sections(rec, dig, log)
	cfg := loop.Config{
		Procedure:        p.Procedure.Name,
		MaxIterations:    s.MaxIterations.V,
		MinIterations:    config.MinIterations.In(s).V,
		FailureThreshold: config.FailureThreshold.In(s).V,
		Timeout:          config.IterationTimeout.In(s).V,
		IdleTimeout:      config.IdleTimeout.In(s).V,
		MaxOutput:        config.MaxOutputBuffer.In(s).V,
		Prompt:           promptOf,
		Agent:            p.runner(cmd, shownTo(out, config.ShowAIOutput.In(s).V), out.AgentTrace),
		Turn:             p.turn,
		TakeOut:          p.takeOut,
		Promises:         p.Promises,
		Log:              log,
		Observers:        observers,
		OutputFile:       outputFile,
		Verdict:          p.Verdict,
		Now:              out.Now,
		StallIterations:  config.StallIterations.In(s).V,
		Budget:           loop.Budget{MaxCostUSD: config.MaxCostUSD.In(s).V, MaxTokens: int64(config.MaxTokens.In(s).V), MaxDuration: config.MaxDuration.In(s).V, Others: out.SpentElsewhere},
		Workspace:        workspace,
		MaxLimitWait:     config.MaxLimitWait.In(s).V,
		LimitWaiting:     out.LimitWaiting,
		// A script test's stand-in agent ends at once, often silent.
		NoSpinWait:        p.Runner != nil,
		CostUncountedSaid: p.costUncountedSaid,
		Sleep:             out.Sleep,
		Replay:            out.Replay,
	}
	if out.Ledger != nil && p.Runner == nil {
		cfg.Accounts = p.accounts(out)
	}
	res := loop.Run(announced, cfg)
	if out.Record != nil {
		out.Record.LoopFinished(res)
	}
	return res
}

// shownTo is where the agent's output is shown as it arrives: stdout
// with show_ai_output, and the tap; nil for nowhere.
func shownTo(out Output, verbose bool) io.Writer {
	var to []io.Writer
	if verbose {
		to = append(to, out.Stdout)
	}
	if out.Tap != nil {
		to = append(to, out.Tap)
	}
	switch len(to) {
	case 0:
		return nil
	case 1:
		return to[0]
	}
	return io.MultiWriter(to...)
}

// sections composes each prompt with what the run adds to the
// procedure's: the context added while it goes on, read anew each time
// (the log names the iteration that first receives each addition), and
// the digest of the previous iteration.
func (p *Plan) sections(rec Record, dig *digest, log *logging.Logger) func(prompt.Iteration) (string, error) {
	return func(it prompt.Iteration) (string, error) {
		var extra prompt.Sections
		if rec != nil && !it.Replayed {
			var fresh []string
			var refused []error
			extra.Running, fresh, refused = rec.Additions()
			for _, err := range refused {
				log.Warnf("%v", err)
			}
			if len(fresh) > 0 {
				log.Infof("Iteration %d receives the context added while running: %s", it.Number, strings.Join(fresh, ", "))
			}
		}
		if dig != nil && it.Number > 1 {
			extra.Digest = dig.text(log)
		}
		text, gone, err := p.compose(it, extra)
		for _, name := range gone {
			log.Warnf("Iteration %d: context file %s is gone since the run started; the prompt gives what it held then", it.Number, name)
		}
		return text, err
	}
}

// announce says at once that an interrupt was received, and what happens
// next: the loop's summary comes only when the agent has stopped.
func announce(log *logging.Logger, ctx context.Context) {
	if budget := interrupt.Budget(ctx); budget != nil {
		// No signal was received: the run's budget (--max-duration) ended it.
		msg := budget.Error()
		log.Warnf("%s%s: stopping the agent and its processes (SIGTERM, SIGKILL after %s)",
			strings.ToUpper(msg[:1]), msg[1:], units.Duration(process.DefaultGrace))
		return
	}
	cause := context.Cause(ctx)
	if !errors.As(cause, new(interrupt.Signal)) {
		// The run stopped itself (a resume refused in another loop).
		log.Warnf("The run stops: stopping the agent and its processes (SIGTERM, SIGKILL after %s)", units.Duration(process.DefaultGrace))
		return
	}
	log.Warnf("Received %v: stopping the agent and its processes (SIGTERM, SIGKILL after %s; again to kill now)",
		cause, units.Duration(process.DefaultGrace))
}

func maxText(n int) string {
	if n <= 0 {
		return "unlimited"
	}
	return strconv.Itoa(n)
}
