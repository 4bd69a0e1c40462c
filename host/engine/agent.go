package engine

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"rooda/host/agentstream"
	"rooda/host/config"
	"rooda/host/logging"
	"rooda/host/loop"
	"rooda/host/process"
)

// runner runs the agent for one iteration, telling it where it is through
// ROODA_ITERATION, ROODA_MAX_ITERATIONS and ROODA_PROCEDURE. An agent
// whose output is a CLI's JSON stream is decoded as it prints: its
// signals are looked for in what it said, -v shows a readable transcript
// instead of the JSON, and its tokens and cost are counted. A usage limit
// that resets within max_limit_wait is waited for, and the same
// iteration runs again: no iteration is spent on it, but what its tries
// spent counts. env, when set, adds to the agent's environment
// (TRACEPARENT).
func (p *Plan) runner(base process.Command, shown io.Writer, log *logging.Logger, waiting func(LimitWait), env func() []string) func(context.Context, loop.Request) (loop.Reply, error) {
	return func(ctx context.Context, req loop.Request) (loop.Reply, error) {
		cmd := base
		if c := p.chosenFor(req.Iteration); c != nil {
			cmd.Argv = c.argv
		} else if len(p.Rotation) > 0 {
			cmd.Argv = p.Rotation[(req.Iteration-1)%len(p.Rotation)]
		}
		cmd.Prompt = req.Prompt
		cmd.Env = []string{
			"ROODA_ITERATION=" + strconv.Itoa(req.Iteration),
			"ROODA_MAX_ITERATIONS=" + maxText(req.MaxIterations),
			"ROODA_PROCEDURE=" + p.Procedure.Name,
		}
		if env != nil {
			cmd.Env = append(cmd.Env, env()...)
		}
		var waited time.Duration
		var spent loop.Spend // by the tries that hit the limit
		for again := false; ; again = true {
			reply, err := p.attempt(ctx, req.Iteration, cmd, shown)
			reply.Waited = waited
			spent = spent.Add(reply.Spent)
			reply.Spent = spent
			wait, ok := p.limitWait(reply.Decoded, log, req, waited, again)
			if !ok || err != nil {
				return reply, err
			}
			if waiting != nil {
				waiting(wait)
			}
			select {
			case <-time.After(wait.Wait):
				waited += wait.Wait
			case <-ctx.Done():
				return reply, err
			}
		}
	}
}

// attempt runs the agent once, decoding what it prints when its format
// is a CLI's JSON stream. What it says is shown (shownTo) as it arrives:
// its text, or the readable transcript of its JSON.
func (p *Plan) attempt(ctx context.Context, n int, cmd process.Command, shown io.Writer) (loop.Reply, error) {
	format := p.formatOf(n)
	if format == agentstream.Text {
		cmd.Stream = shown
		res, spent, err := p.run(ctx, n, cmd)
		return loop.Reply{Result: res, Spent: spent}, err
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
	res, _, err := p.run(ctx, n, cmd)
	stop := w.end()
	dec.Close()
	sum := dec.Summary()
	if !res.Stopped {
		stop = nil // it ended on its own as the watch fired
	}
	return loop.Reply{Result: res, Decoded: &sum, Transcript: transcript.Bytes(), Spent: p.spent(sum, p.agentOf(n)), Stop: stop}, err
}

// run runs the agent process, or what stands in for it, which may say
// what a text agent spent.
func (p *Plan) run(ctx context.Context, n int, cmd process.Command) (process.Result, loop.Spend, error) {
	if p.Runner != nil {
		return p.Runner(ctx, n, cmd)
	}
	res, err := process.Run(ctx, cmd)
	return res, loop.Spend{}, err
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

// limitWait is how long to wait before running the iteration again, when
// its agent hit a usage or rate limit that resets within max_limit_wait
// of the iteration's first try (waited is what it waited so far); false
// when it did not, or the limit resets later, or a limit that had reset
// before this try (again) is still there: a failure, cause rate_limited,
// which it says. A reset already past is tried again at once, once.
func (p *Plan) limitWait(sum *agentstream.Summary, log *logging.Logger, req loop.Request, waited time.Duration, again bool) (LimitWait, bool) {
	if sum == nil || sum.ResetAt.IsZero() || (sum.Cause != agentstream.CauseUsageLimit && sum.Cause != agentstream.CauseRateLimited) {
		return LimitWait{}, false
	}
	wait := max(time.Until(sum.ResetAt), 0)
	n := req.Iteration
	label, name := loop.Label(n, req.MaxIterations), p.agentOf(n)
	limit := config.MaxLimitWait.In(p.Settings).V
	what := strings.ReplaceAll(string(sum.Cause), "_", " ")
	if wait == 0 && again {
		log.Warnf("Iteration %s: %s: %s; it was to reset at %s, and is still there", label, name, what, sum.ResetAt.Local().Format("15:04:05"))
		return LimitWait{}, false
	}
	if limit == 0 || waited+wait > limit {
		log.Warnf("Iteration %s: %s: %s; it resets at %s, beyond max_limit_wait (%s)", label, name, what, sum.ResetAt.Local().Format("15:04"), config.FormatTimeout(limit))
		return LimitWait{}, false
	}
	w := LimitWait{Iteration: n, Agent: name, Cause: string(sum.Cause), Until: sum.ResetAt, Wait: wait,
		Message: fmt.Sprintf("Iteration %s: %s: %s; waiting until %s, %s, then running iteration %s again", label, name, what, sum.ResetAt.Local().Format("15:04:05"), logging.Duration(wait), label)}
	log.Event(logging.Warn, "limit_wait", []any{"iteration", n, "agent", name, "cause", w.Cause, "until", sum.ResetAt.UTC().Format(time.RFC3339), "wait_seconds", wait.Seconds()}, "%s", w.Message)
	return w, true
}

// LimitWait is a wait for an agent's usage or rate limit to reset, as it
// begins: the iteration runs again at Until.
type LimitWait struct {
	Iteration int
	Agent     string
	Cause     string
	Until     time.Time
	Wait      time.Duration
	// Message is the log's line of it.
	Message string
}

// agentOf names iteration n's agent.
func (p *Plan) agentOf(n int) string {
	if c := p.chosenFor(n); c != nil {
		return c.name
	}
	if len(p.Agents) == 0 {
		return "the agent"
	}
	return p.Agents[(n-1)%len(p.Agents)]
}
