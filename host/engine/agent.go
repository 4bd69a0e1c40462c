package engine

import (
	"context"
	"io"
	"strconv"

	"rooda/host/agentstream"
	"rooda/host/config"
	"rooda/host/loop"
	"rooda/host/process"
	"rooda/host/sandbox"
)

// runner runs the agent for one iteration, telling it where it is through
// ROODA_ITERATION, ROODA_MAX_ITERATIONS and ROODA_PROCEDURE. An agent
// whose output is a CLI's JSON stream is decoded as it prints: its
// signals are looked for in what it said, -v shows a readable transcript
// instead of the JSON, and its tokens and cost are counted. The loop
// calls it again for the same iteration after a wait for a limit or an
// outage. traced, when set, gives the agent its part of the trace
// (Output.AgentTrace).
func (p *Plan) runner(base process.Command, shown io.Writer, traced func([]string) ([]string, []string)) func(context.Context, loop.Request) (loop.Reply, error) {
	return func(ctx context.Context, req loop.Request) (loop.Reply, error) {
		cmd := base
		if c := p.chosenFor(req.Iteration); c != nil {
			cmd.Argv = c.argv
		} else if len(p.Rotation) > 0 {
			cmd.Argv = of(p, p.Rotation, req.Iteration)
		}
		cmd.Prompt = req.Prompt
		cmd.Env = []string{
			"ROODA_ITERATION=" + strconv.Itoa(req.Iteration),
			"ROODA_MAX_ITERATIONS=" + maxText(req.MaxIterations),
			"ROODA_PROCEDURE=" + p.Procedure.Name,
		}
		if traced != nil {
			var env []string
			cmd.Argv, env = traced(cmd.Argv)
			cmd.Env = append(cmd.Env, env...)
		}
		return p.attempt(ctx, req.Iteration, cmd, shown)
	}
}

// attempt runs the agent once, decoding what it prints when its format
// is a CLI's JSON stream. What it says is shown (shownTo) as it arrives:
// its text, or the readable transcript of its JSON.
func (p *Plan) attempt(ctx context.Context, n int, cmd process.Command, shown io.Writer) (loop.Reply, error) {
	format := p.formatOf(n)
	if format == agentstream.Text {
		cmd.Stream = shown
		res, spent, confined, err := p.run(ctx, n, cmd)
		return loop.Reply{Result: res, Spent: spent, Sandbox: confined}, err
	}
	// The transcript is shown, and its last bytes go to the record.
	transcript := process.NewRing(cmd.MaxOutput)
	var decoded io.Writer = transcript
	if shown != nil {
		decoded = io.MultiWriter(shown, transcript)
	}
	dec := agentstream.New(format, decoded)
	cmd.Stream = dec
	// Its events, not its bytes, say whether it works: the watch stops
	// it, in place of idle_timeout's count of bytes.
	w := newWatch(config.ModelTimeout.In(p.Settings).V, cmd.IdleTimeout)
	dec.Observe(w.observe)
	cmd.Stop, cmd.IdleTimeout = w.stop, 0
	res, _, confined, err := p.run(ctx, n, cmd)
	stop := w.end()
	dec.Close()
	sum := dec.Summary()
	if !res.Stopped {
		stop = nil // it ended on its own as the watch fired
	}
	return loop.Reply{Result: res, Decoded: &sum, Transcript: transcript.Bytes(), Spent: p.spent(sum, p.agentOf(n)), Stop: stop, Sandbox: confined}, err
}

// run runs the agent process, or what stands in for it, which may say
// what a text agent spent; confined is what the sandbox applied, nil for
// none.
func (p *Plan) run(ctx context.Context, n int, cmd process.Command) (res process.Result, spent loop.Spend, confined *sandbox.Spec, err error) {
	if p.Runner != nil {
		res, spent, err = p.Runner(ctx, n, cmd)
		return res, spent, nil, err
	}
	done, confined, err := p.confine(&cmd, n)
	defer done()
	if err != nil {
		return process.Result{}, loop.Spend{}, nil, err
	}
	res, err = process.Run(ctx, cmd)
	if err == nil && confined != nil {
		if why := sandbox.NotStarted(res.ExitCode, res.Output); why != nil {
			// Started through the trampoline, the agent could not be.
			return process.Result{}, loop.Spend{}, confined, why
		}
	}
	return res, loop.Spend{}, confined, err
}

// spent is what a decoded output says the agent used: its CLI's cost,
// else its tokens priced by model_prices — by the model the CLI named,
// else by the agent's name (codex names no model) — else its tokens
// alone.
func (p *Plan) spent(sum agentstream.Summary, agent string) loop.Spend {
	s := loop.Spend{Tokens: sum.Usage}
	if sum.CostReported {
		s.CostUSD, s.Costed = sum.CostUSD, true
		return s
	}
	for _, name := range []string{sum.Model, agent} {
		if price, ok := p.PriceOf(name); ok {
			u := sum.Usage
			s.CostUSD, s.Costed = price.Cost(u.Input, u.Output, u.CacheRead, u.CacheWrite), true
			break
		}
	}
	return s
}

// agentOf names iteration n's agent.
func (p *Plan) agentOf(n int) string {
	if c := p.chosenFor(n); c != nil {
		return c.name
	}
	if len(p.Agents) == 0 {
		return "the agent"
	}
	return of(p, p.Agents, n)
}
