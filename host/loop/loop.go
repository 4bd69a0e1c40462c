package loop

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"rooda/host/agentstream"
	"rooda/host/git"
	"rooda/host/interrupt"
	"rooda/host/logging"
	"rooda/host/process"
	"rooda/host/prompt"
	"rooda/host/sandbox"
	"rooda/host/suggest"
	"rooda/host/units"
)

// Config is one run of the loop.
type Config struct {
	Procedure string
	// MaxIterations of 0 means unlimited.
	MaxIterations int
	// MinIterations: a success before this iteration, the agent's
	// SUCCESS or the Verdict's verdict, does not end the loop (seed 004);
	// 0 or 1 means any may.
	MinIterations    int
	FailureThreshold int
	// Timeout and MaxOutput are enforced by Agent; the loop only names
	// them in its messages.
	Timeout     time.Duration
	IdleTimeout time.Duration
	MaxOutput   int
	// Prompt composes the exact prompt of an iteration.
	Prompt func(prompt.Iteration) (string, error)
	// Agent runs one iteration's agent. Its error means the agent could not
	// start, which counts as a failed iteration.
	Agent func(context.Context, Request) (Reply, error)
	// Turn, when set, says before each iteration's prompt who runs it:
	// the agent of a rotation, or the one a script's function chose. Each
	// iteration carries its agent's name and role, so that a script, the
	// record and the log can say who did it. Its error (a script's agent
	// function failed) ends the run as aborted, with the error.
	Turn func(iteration int) (Turn, error)
	// TakeOut, when set, takes an agent that cannot log in or cannot
	// start out of the loop's rotation, in iteration n, and returns the
	// agents left in it: the loop goes on with them. nil or none left
	// and the loop ends as one agent's does.
	TakeOut func(agent string, n int) (left []string)
	// Promises are the words the agent signals with, which the preamble
	// names; the zero value is SUCCESS and FAILURE.
	Promises  prompt.Promises
	Log       *logging.Logger
	Observers []Observer
	// OutputFile, when set, says where the record keeps the whole output
	// of the iteration being judged ("" when it keeps none), so that a
	// failure's warning can point there.
	OutputFile func() string
	// Verdict, when set, sees each iteration after the outcome matrix and
	// may change its outcome (a script's on_iteration), saying why: an
	// empty Outcome keeps it. Its error ends the run as aborted, with the
	// error in the Result.
	Verdict func(*Iteration) (Decision, error)
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Workspace, when set, is looked at around each iteration's agent:
	// what it changed is the iteration's Changes, which the record, the
	// digest, the stall rule and a script read.
	Workspace Workspace
	// StallIterations, when not 0, ends the loop (Stalled) after that
	// many iterations in a row that changed nothing and signaled nothing.
	StallIterations int
	// Budget ends the loop (OverBudget) once the run's agents have spent
	// what it allows, or the loop has run as long.
	Budget Budget
	// MaxLimitWait bounds the waits of one iteration for its agent's
	// limits and outages (wait.go); 0 waits for none.
	MaxLimitWait time.Duration
	// LimitWaiting, when set, is told of each such wait as it begins.
	LimitWaiting func(LimitWait)
	// Accounts, when set, is the ledger of the accounts the agents spend
	// from, shared with other loops (accounts.go).
	Accounts Accounts
	// Sleep waits d, or until ctx ends (its error); nil is the wall
	// clock.
	Sleep func(ctx context.Context, d time.Duration) error
	// NoSpinWait turns off the wait after iterations in a row that end
	// at once without output: a script test's stand-in agent, which is no
	// process, does that by design.
	NoSpinWait bool
	// CostUncountedSaid is set when the run's start already said that
	// max_cost_usd cannot count what an agent spends: the loop does not
	// say it again as it finds so.
	CostUncountedSaid bool
	// Replay, when set, tells of each iteration what a resumed run's
	// journal holds of it: the iterations that ended before the run
	// stopped are answered from it, their agents not started again.
	Replay func(n int) Replayed
}

// Replayed is what a resumed run's journal holds of an iteration. One
// that Ended is judged again, as it was, from what its agent gave: the
// loop's counters, its spend and a script's callbacks see it as they
// did, and no agent starts. One that only began was in flight when the
// run stopped: it runs Again.
type Replayed struct {
	Ended bool
	Again bool
	// Prompt is the prompt the agent was given; Reply, StartErr and
	// Changes what it gave and changed.
	Prompt   string
	Reply    Reply
	StartErr error
	Changes  *git.Changes
	// Duration and Waited are the iteration's; Elapsed is how long the
	// loop had run when it ended.
	Duration, Waited, Elapsed time.Duration
	// ContextAdded are the additions of context first given in it.
	ContextAdded []string
	// NoCompose, for one that Ended, says that its prompt is not to be
	// composed again: no script's context function is to see it (a YAML
	// procedure's loop), and composing would only run the digest's
	// checks again. Prompt and Reply's output are then read back only
	// when its judgement needs them (a promise tag in what it said).
	NoCompose bool
	// Err says why the journal's answer cannot be read (a file of the
	// record changed since): the loop ends, aborted, rather than judge
	// the iteration otherwise than it was.
	Err error
}

// Decision is a Verdict's judgement of an iteration: its outcome ("" keeps
// the agent's), and why, for the log and the record ("" for no reason
// given).
type Decision struct {
	Outcome Outcome
	Reason  string
}

// Reply is what one iteration's agent gave.
type Reply struct {
	process.Result
	// Decoded is what rooda read in the agent's structured output; nil
	// for an agent whose output is text.
	Decoded *agentstream.Summary
	// Transcript is the readable transcript of a decoded output, its
	// last bytes, for the record.
	Transcript []byte
	// Spent is what the agent used, as its CLI reported it or the price
	// table priced it.
	Spent Spend
	// Stop is why rooda stopped the agent, reading its stream, before it
	// ended (Result.Stopped); nil when it did not.
	Stop *Stop
	// Sandbox is what confined the agent; nil when nothing did.
	Sandbox *sandbox.Spec
}

// Stop is why rooda stopped an agent whose decoded stream showed it
// cannot succeed, or waiting too long on its model or on a tool.
type Stop struct {
	// Cause is the iteration's cause; "" leaves it to what the CLI said
	// (a login refused is auth).
	Cause Cause
	// Why says what the stream showed, for the failure's warning.
	Why string
}

// Turn is who runs an iteration.
type Turn struct {
	// Agent names the agent: its name, alias or command line.
	Agent string
	// Role is the procedure whose prompt the agent is given, when it has
	// a role of its own; "" for the loop's.
	Role string
}

// TurnError is a Turn that could not be worked out: the script's agent
// function failed, or chose an agent that cannot run.
type TurnError struct {
	Iteration int
	Err       error
}

func (e *TurnError) Error() string {
	return fmt.Sprintf("cannot choose the agent of iteration %d: %v", e.Iteration, e.Err)
}

func (e *TurnError) Unwrap() error { return e.Err }

// ResumeError is an iteration of a resumed run that its journal cannot
// answer as it was (Ended: a file of its record changed since), or that
// cannot run live where the run stopped (the workspace moved since).
type ResumeError struct {
	Iteration int
	Ended     bool
	Err       error
}

func (e *ResumeError) Error() string {
	if e.Ended {
		return fmt.Sprintf("cannot resume iteration %d as it ended: %v", e.Iteration, e.Err)
	}
	return fmt.Sprintf("cannot resume at iteration %d: %v", e.Iteration, e.Err)
}

func (e *ResumeError) Unwrap() error { return e.Err }

// Workspace takes the workspace's state before an iteration's agent runs
// and says what it changed after (git.Workspace).
type Workspace interface {
	Before()
	After() git.Changes
}

// Request is what the agent is asked in one iteration.
type Request struct {
	Iteration     int // 1-based
	MaxIterations int // 0 means unlimited
	Prompt        string
	// Replayed is set for an iteration answered from a resumed run's
	// journal, whose agent does not run; Again for one that was in
	// flight when the run stopped, and runs again.
	Replayed, Again bool
}

// Outcome is what an iteration means for the loop (seed 002's matrix).
// Its values are the one vocabulary rooda names outcomes with: in the
// progress log, the JSON events, meta.json, runs show, it.outcome and
// the verdicts on_iteration returns.
type Outcome string

const (
	OutcomeContinue Outcome = "continue" // exit 0, no signal: the failure count resets
	OutcomeSuccess  Outcome = "success"  // SUCCESS (or the procedure's verdict) from the minimum on: the run succeeds
	OutcomeFailure  Outcome = "failure"  // FAILURE, a non-zero exit, a timeout, or no start
	// Stopped is an iteration an interrupt cut short: it is not counted,
	// whatever the agent printed.
	OutcomeInterrupted Outcome = "interrupted"
	// Abort ends the run as aborted at once; only a Verdict gives it.
	OutcomeAbort Outcome = "abort"
	// Stop ends the loop at once, Stopped, without a failure: the
	// procedure decided it had done enough (a budget of its own). Only a
	// Verdict gives it.
	OutcomeStop Outcome = "stop"
)

// Outcomes are the outcomes an iteration can have, in the order the docs
// list them.
var Outcomes = []Outcome{OutcomeContinue, OutcomeSuccess, OutcomeFailure, OutcomeAbort, OutcomeStop, OutcomeInterrupted}

// Verdicts are the outcomes a Verdict may give: all but interrupted,
// which only an interrupt gives.
var Verdicts = []Outcome{OutcomeContinue, OutcomeSuccess, OutcomeFailure, OutcomeAbort, OutcomeStop}

// VerdictNames are the verdicts' names, in order.
func VerdictNames() []string {
	names := make([]string, len(Verdicts))
	for i, v := range Verdicts {
		names[i] = string(v)
	}
	return names
}

// NearestVerdict is the verdict s most likely meant ("SUCCESS" for
// "success"), "" when s is one or is near none.
func NearestVerdict(s string) string {
	if slices.Contains(Verdicts, Outcome(s)) {
		return ""
	}
	return suggest.Closest(s, VerdictNames())
}

// Iteration is one finished iteration, as the loop judged it.
type Iteration struct {
	Number int // 1-based
	// Agent names the agent that ran it (Config.Turn), and Account the
	// account it spends from, as the accounts' ledger names it
	// (Config.Accounts; "" without one).
	Agent, Account string
	// Procedure names the procedure whose prompt it was given: its
	// agent's Role, else the loop's.
	Procedure string
	// Role is its agent's role (Turn.Role): "" for the loop's procedure.
	Role          string
	MaxIterations int
	Prompt        string
	Result        process.Result
	// Decoded, Transcript and Spent are what rooda read in a structured
	// output (Reply): nil, nil and nothing for text.
	Decoded    *agentstream.Summary
	Transcript []byte
	Spent      Spend
	// StartErr is why the agent could not start, if it could not.
	StartErr error
	Signals  Signals
	Outcome  Outcome
	// Cause is why a failed iteration failed; "" for any other outcome.
	// A Verdict sees the agent's cause; the procedure's declared failure
	// is CauseProcedure.
	Cause Cause
	// AgentCause is why the agent failed, "" when it did not: the cause
	// a Verdict sees, kept whatever the Verdict made of the iteration, so
	// that a script still reads why its agent failed once on_iteration
	// has stopped the loop.
	AgentCause          Cause
	ConsecutiveFailures int
	Duration            time.Duration
	// Waited is how long the iteration waited for its agent's limits to
	// reset and its outages to pass before running it again (wait.go):
	// not part of Duration. Spent is what all its tries spent.
	Waited time.Duration
	// Stop is why rooda stopped the agent early, reading its stream
	// (Reply.Stop); nil when it did not.
	Stop *Stop
	// Sandbox is what confined its agent (Reply.Sandbox).
	Sandbox *sandbox.Spec
	// Overridden is set when a Verdict changed the outcome; Reason is
	// why, when the Verdict said.
	Overridden bool
	Reason     string
	// Changes are what the iteration changed in the workspace; nil when
	// the loop does not look (Config.Workspace).
	Changes *git.Changes
	// Elapsed is how long the loop had run when the iteration ended,
	// waits and the run before a resume included.
	Elapsed time.Duration
	// Replayed is set for an iteration answered from a resumed run's
	// journal (Config.Replay): its agent did not run again; ContextAdded
	// are the additions of context it was the first given.
	Replayed     bool
	ContextAdded []string
}

// Observer is told of every iteration; later parts of rooda (run records,
// Starlark callbacks) hook in here.
type Observer interface {
	IterationStarted(Request)
	IterationFinished(*Iteration)
}

// Result is how a run ended.
type Result struct {
	Status Status
	// Iterations counts the iterations that finished; an interrupted one
	// does not.
	Iterations int
	Stats      Stats
	Last       *Iteration
	Elapsed    time.Duration
	// Err is what ended an aborted run other than the failure threshold:
	// a prompt that could not be composed, or a Verdict's error; or the
	// budget an OverBudget loop reached (*BudgetError).
	Err error
	// Spent is what the loop's agents used. Its cost is the sum of the
	// costs that are known; Cost says whether that is the loop's.
	Spent Spend
	// costUnknown is set once an iteration whose agent ran spent an
	// amount nobody knows (Cost).
	costUnknown bool
	// Message is the log's line of how the loop ended ("Reached max
	// iterations: 3 (total: 2m16s)"), for those told of it elsewhere.
	Message string
	// Why is why the loop ended, as the record keeps it: which budget and
	// its figures ("the run's agents spent $0.21, reaching max_cost_usd
	// $0.20"), whose verdict or stop and its reason, how many failures,
	// which signal: Message without its counts and times.
	Why string
	// Reason is why the procedure ended the loop, when its Verdict said
	// (a stop, an abort, a success); "" otherwise.
	Reason string
}

// Cost is what the loop cost in dollars, and whether it is known: it is
// not once one iteration whose agent ran has no cost (an agent read as
// text, a model nobody priced, a CLI that reported none), whatever the
// others cost, so that a rotation of a JSON agent and a text agent is
// not given the JSON agent's part as its cost. An agent that could not
// start spent nothing.
func (r Result) Cost() (usd float64, known bool) {
	if r.costUnknown || !r.Spent.Costed {
		return 0, false
	}
	return r.Spent.CostUSD, true
}

// words are where a failure's warning quotes the agent from: its raw
// output, or, decoded, the error it reported and what it wrote outside
// its JSON (stderr), else its last assistant text.
func (it *Iteration) words() []byte {
	d := it.Decoded
	switch {
	case d == nil:
		return it.Result.Output
	case d.Err != "" || d.Output != "":
		return []byte(d.Output + "\n" + d.Err + "\n" + lastRetry(d))
	case d.Retries > 0:
		return []byte(lastRetry(d))
	}
	return []byte(d.Text)
}

// lastRetry is the last retry a CLI reported, as -v shows it, or "": a
// CLI that only retried said why in its retries (gemini's stderr lines,
// read as retries, are no longer its output).
func lastRetry(d *agentstream.Summary) string {
	if d.Retries == 0 {
		return ""
	}
	return d.LastRetry.Describe()
}

// Said is what the agent said, where its signals are looked for and what
// a script reads as it.text: the assistant text of a decoded output (not
// its JSON, not a tool's result echoing the prompt), else the output as
// it is.
func (it *Iteration) Said() []byte {
	if it.Decoded != nil {
		return []byte(it.Decoded.Text)
	}
	return it.Result.Output
}

// Run runs the loop until SUCCESS, the failure threshold, the iteration
// limit, or the end of ctx (an interrupt), and returns how it ended. The
// cause of ctx's end (context.Cause) names the interrupt in the log.
func Run(ctx context.Context, cfg Config) Result {
	if cfg.MaxIterations > 0 && cfg.FailureThreshold > cfg.MaxIterations {
		// A loop whose every allowed iteration failed is aborted: a
		// threshold it cannot reach would call it max-iters.
		cfg.FailureThreshold = cfg.MaxIterations
	}
	r := &runner{cfg: cfg, uncounted: cfg.CostUncountedSaid}
	if r.cfg.Now == nil {
		r.cfg.Now = time.Now
	}
	r.start = r.cfg.Now()
	// The replay's lines, held while the journal answers, are written
	// before the loop's first live iteration (iterate), or as it ends.
	defer r.cfg.Log.Release() // finish has said the replays, if any
	r.logger().Event(logging.Info, "run_started", []any{"procedure", cfg.Procedure, "max_iterations", cfg.MaxIterations, "failure_threshold", cfg.FailureThreshold},
		"Starting procedure: %s (%s)", cfg.Procedure, limitText(cfg.MaxIterations))
	for n := 1; ; n++ {
		if ctx.Err() != nil {
			return r.stop(ctx)
		}
		it, err := r.iterate(ctx, n)
		if err != nil && ctx.Err() != nil {
			// A context function the interrupt stopped.
			return r.stop(ctx)
		}
		var turnErr *TurnError
		switch {
		case errors.As(err, &turnErr):
			r.logger().Errorf("Iteration %s: %v", r.label(n), turnErr.Err)
			return r.finish(Aborted, err)
		case errors.As(err, new(*RefusedError)):
			return r.finish(OverBudget, err)
		case errors.As(err, new(*ResumeError)):
			r.logger().Errorf("%v", err)
			return r.finish(Aborted, err)
		case err != nil:
			r.logger().Errorf("Prompt assembly failed: %v", err)
			return r.finish(Aborted, err)
		}
		if ctx.Err() != nil {
			// An interrupt wins over whatever the stopped agent printed.
			r.stopped(it)
			return r.stop(ctx)
		}
		if err := r.record(it); err != nil {
			if ctx.Err() != nil {
				return r.stop(ctx)
			}
			// Why the loop aborts comes before "Aborting", not only in
			// the script's error after the loop's summary.
			r.logger().Errorf("Iteration %s: %v", r.label(it.Number), err)
			return r.finish(Aborted, err)
		}
		over := cfg.Budget.reached(r.result.Spent, r.cfg.Now().Sub(r.start))
		r.warnUncounted(it)
		wentOn := r.takeOut(it)
		switch {
		case it.Cause == CauseAuth && !wentOn:
			err := loginError(it)
			r.logger().Errorf("Iteration %s: %v", r.label(it.Number), err)
			return r.finish(Aborted, err)
		case it.Outcome == OutcomeAbort:
			return r.finish(Aborted, errAbort)
		case it.Outcome == OutcomeStop:
			return r.finish(Stopped, nil)
		case it.Outcome == OutcomeSuccess:
			return r.finish(Success, nil)
		case it.ConsecutiveFailures >= cfg.FailureThreshold:
			return r.finish(Aborted, nil)
		case r.stalled(it):
			return r.finish(Stalled, nil)
		case over != nil:
			return r.finish(OverBudget, over)
		case cfg.MaxIterations > 0 && n >= cfg.MaxIterations:
			return r.finish(MaxIters, nil)
		}
		if wait := r.spinWait(it); wait > 0 && !it.Replayed && !r.sleep(ctx, wait) {
			// A run-wide budget may end the wait as an interrupt does.
			return r.stop(ctx)
		}
	}
}

// stop ends a loop whose context ended: at a run-wide budget
// (--max-duration), whose cause says so, or at an interrupt.
func (r *runner) stop(ctx context.Context) Result {
	if budget := interrupt.Budget(ctx); budget != nil {
		return r.finish(OverBudget, budget)
	}
	return r.finish(Interrupted, context.Cause(ctx))
}

type runner struct {
	cfg      Config
	start    time.Time
	failures int
	// idle counts the iterations in a row that changed nothing and
	// signaled nothing.
	idle int
	// uncounted is set once the log said that max_cost_usd cannot count
	// what the agent spends.
	uncounted bool
	// spins counts the iterations in a row that ended at once without
	// output (spinWait).
	spins  int
	result Result
	// ledgerWarned is set once the log said the accounts' ledger failed,
	// and ledgerOff once it failed: the run goes on without it.
	ledgerWarned, ledgerOff bool
	// ledgerTime is how long the iteration's calls to the ledger took.
	ledgerTime time.Duration
	// replays are the replayed iterations not yet said (logger).
	replays replays
}

// warnUncounted says, once, that max_cost_usd cannot stop a loop whose
// agent used tokens nobody priced: a budget the user relies on to stop an
// unattended run must not be silently void.
func (r *runner) warnUncounted(it *Iteration) {
	if r.uncounted || r.cfg.Budget.MaxCostUSD == 0 || it.Spent.Tokens.IsZero() || it.Spent.Costed {
		return
	}
	r.uncounted = true
	r.logger().Warnf("Iteration %s: max_cost_usd (%s) cannot count what %s spends: its CLI reports tokens but no cost, and model_prices prices neither its model nor its name; max_tokens still counts",
		r.label(it.Number), units.Limit(r.cfg.Budget.MaxCostUSD), agentName(it))
}

// agentName names an iteration's agent in a message.
func agentName(it *Iteration) string {
	if it.Agent == "" {
		return "the agent"
	}
	return it.Agent
}

// stalled counts it towards the stall rule and reports whether the loop
// has stalled: StallIterations iterations in a row, in a git workspace,
// changed no file, moved no HEAD, signaled nothing and did not fail. A
// failure is the failure threshold's to count: an agent that fails
// every time ends the loop aborted, not stalled.
func (r *runner) stalled(it *Iteration) bool {
	if it.Changes == nil || !it.Changes.InRepo || it.Changes.Changed() || it.Signals.Success || it.Signals.Failure || it.Outcome == OutcomeFailure {
		r.idle = 0
		return false
	}
	r.idle++
	return r.cfg.StallIterations > 0 && r.idle >= r.cfg.StallIterations
}

// iterate composes the prompt and runs the agent once. Its error is a
// prompt that could not be composed, which ends the run.
func (r *runner) iterate(ctx context.Context, n int) (*Iteration, error) {
	it := &Iteration{Number: n, MaxIterations: r.cfg.MaxIterations, Procedure: r.cfg.Procedure}
	if r.cfg.Turn != nil {
		turn, err := r.cfg.Turn(n)
		if err != nil {
			return nil, &TurnError{Iteration: n, Err: err}
		}
		it.Agent, it.Role = turn.Agent, turn.Role
		if turn.Role != "" {
			it.Procedure = turn.Role
		}
	}
	replayed := r.replayed(n)
	if replayed.Err != nil {
		return nil, &ResumeError{Iteration: n, Ended: replayed.Ended, Err: replayed.Err}
	}
	var text string
	var err error
	if !replayed.Ended || !replayed.NoCompose {
		r.flushReplays()
		text, err = r.cfg.Prompt(prompt.Iteration{Number: n, Max: r.cfg.MaxIterations, Min: r.cfg.MinIterations, Replayed: replayed.Ended})
	}
	switch {
	case replayed.Ended:
		// The prompt is composed again for what the script's context
		// functions do, but the agent was given the recorded one, which
		// files changed since cannot change.
		text = replayed.Prompt
	case err != nil:
		return nil, err
	}
	it.Prompt = text
	req := Request{Iteration: n, MaxIterations: r.cfg.MaxIterations, Prompt: text, Replayed: replayed.Ended, Again: replayed.Again}
	if replayed.Ended {
		r.cfg.Log.Hold()
		for _, o := range r.cfg.Observers {
			o.IterationStarted(req)
		}
		r.replay(it, replayed)
		return it, nil
	}
	r.logger().Release()
	settle, err := r.reserve(ctx, it)
	if err != nil {
		return nil, err
	}
	r.logger().Event(logging.Info, "iteration_started", []any{"iteration", n, "max_iterations", r.cfg.MaxIterations, "prompt_bytes", len(text), "again", replayed.Again},
		"Iteration %s starting%s...", r.label(n), againText(replayed.Again))
	r.logger().Debugf("Iteration %s: prompt of %d bytes", r.label(n), len(text))
	for _, o := range r.cfg.Observers {
		o.IterationStarted(req)
	}
	if r.cfg.Workspace != nil {
		r.cfg.Workspace.Before()
	}
	began := r.cfg.Now()
	r.ledgerTime = 0
	r.tries(ctx, it, req)
	settle(it.Spent)
	it.Duration = r.cfg.Now().Sub(began) - it.Waited - r.ledgerTime
	if r.cfg.Workspace != nil {
		changes := r.cfg.Workspace.After()
		it.Changes = &changes
	}
	return it, nil
}

// replayed is what a resumed run's journal holds of iteration n.
func (r *runner) replayed(n int) Replayed {
	if r.cfg.Replay == nil {
		return Replayed{}
	}
	return r.cfg.Replay(n)
}

// againText says that an iteration runs again: it was in flight when the
// run stopped.
func againText(again bool) string {
	if again {
		return " again (it was in flight when the run stopped)"
	}
	return ""
}

// replay gives it what its agent gave before the run stopped, without
// running it, and sets the loop's clock to where it was then.
func (r *runner) replay(it *Iteration, rep Replayed) {
	it.Replayed = true
	it.Result, it.StartErr = rep.Reply.Result, rep.StartErr
	it.Decoded, it.Transcript, it.Stop, it.Spent = rep.Reply.Decoded, rep.Reply.Transcript, rep.Reply.Stop, rep.Reply.Spent
	it.Duration, it.Waited, it.Changes, it.ContextAdded = rep.Duration, rep.Waited, rep.Changes, rep.ContextAdded
	r.start = r.cfg.Now().Add(-rep.Elapsed)
}

// tries runs the iteration's agent, and again after each wait for a
// limit or an outage that waitFor gives: the last try is the iteration's;
// what every try spent counts.
func (r *runner) tries(ctx context.Context, it *Iteration, req Request) {
	var w waits
	for {
		if !r.awaitAccount(ctx, it, &w) {
			return
		}
		reply, err := r.cfg.Agent(ctx, req)
		it.Result, it.StartErr = reply.Result, err
		it.Decoded, it.Transcript, it.Stop, it.Sandbox = reply.Decoded, reply.Transcript, reply.Stop, reply.Sandbox
		it.Spent = it.Spent.Add(reply.Spent)
		if ctx.Err() != nil {
			return
		}
		r.judgeAgent(it)
		wait, ok := r.waitFor(it, w)
		if !ok || !r.sleep(ctx, wait.Wait) {
			return
		}
		w.add(wait)
		it.Waited = w.total
	}
}

// judgeAgent gives it the agent's own outcome and cause: the signals it
// said, the outcome matrix's verdict, and why it failed, if it did.
func (r *runner) judgeAgent(it *Iteration) {
	it.Signals = ScanFor(it.Said(), it.Prompt, r.cfg.Promises)
	it.Outcome = MatrixOutcome(it)
	it.Cause = ""
	it.Cause = agentCause(it)
	it.AgentCause = it.Cause
}

// record judges a finished iteration, counts it, logs it and tells the
// observers. The rule, in order: the outcome matrix gives the agent's
// outcome; a Verdict (the procedure's) may replace it; a success before
// MinIterations, whoever declared it, becomes continue. Its error is the
// Verdict's: the iteration still counts, with the agent's outcome.
func (r *runner) record(it *Iteration) error {
	r.judgeAgent(it)
	it.ConsecutiveFailures = r.countAfter(it.Outcome)
	agentOutcome := it.Outcome
	var judgeErr error
	if r.cfg.Verdict != nil {
		var verdict Decision
		verdict, judgeErr = r.cfg.Verdict(it)
		if judgeErr == nil && verdict.Outcome != "" && (verdict.Outcome != it.Outcome || verdict.Reason != "") {
			it.Outcome, it.Overridden, it.Reason = verdict.Outcome, true, verdict.Reason
		}
	}
	it.Cause = finalCause(it)
	switch {
	case it.Outcome == OutcomeSuccess && it.Number < r.cfg.MinIterations:
		r.logger().Infof("Iteration %s: %s before the minimum of %d iterations; going on", r.label(it.Number), r.decider(it), r.cfg.MinIterations)
		it.Outcome = OutcomeContinue
	case it.Overridden:
		r.logVerdict(it, agentOutcome)
	}
	it.ConsecutiveFailures = r.countAfter(it.Outcome)
	r.failures = it.ConsecutiveFailures
	r.result.Iterations++
	r.result.Stats.Add(it.Duration)
	r.result.Spent = r.result.Spent.Add(it.Spent)
	if it.StartErr == nil && !it.Spent.Costed {
		r.result.costUnknown = true
	}
	r.result.Last = it
	it.Elapsed = r.cfg.Now().Sub(r.start)
	r.logIteration(it)
	for _, o := range r.cfg.Observers {
		o.IterationFinished(it)
	}
	return judgeErr
}

// decider names who declared an iteration's success.
func (r *runner) decider(it *Iteration) string {
	if it.Overridden {
		return "the procedure's on_iteration declared success" + reasonText(it.Reason)
	}
	return "the agent signaled SUCCESS"
}

// logVerdict says that the procedure, not the agent, decided the
// iteration: a warning when it declared failure or abort.
func (r *runner) logVerdict(it *Iteration, agentOutcome Outcome) {
	log := r.logger().Infof
	if it.Outcome == OutcomeFailure || it.Outcome == OutcomeAbort {
		log = r.logger().Warnf
	}
	log("Iteration %s: the procedure's on_iteration declared %s%s; the agent's outcome was %s%s", r.label(it.Number), it.Outcome, reasonText(it.Reason), agentOutcome, causeTag(it))
}

// reasonText is a verdict's reason as the log quotes it: " (over
// budget)", or "" when none was given.
func reasonText(reason string) string {
	if reason == "" {
		return ""
	}
	return " (" + reason + ")"
}

// countAfter is the consecutive failure count after an iteration with
// outcome o: a failure adds one, continue resets it, success and abort
// keep it.
func (r *runner) countAfter(o Outcome) int {
	switch o {
	case OutcomeFailure:
		return r.failures + 1
	case OutcomeContinue:
		return 0
	}
	return r.failures
}

// errAbort is the cause of a run a Verdict aborted.
var errAbort = errors.New("the procedure aborted the run")

// stopped reports an iteration an interrupt cut short: how its agent was
// stopped, and to the observers, which saw it start.
func (r *runner) stopped(it *Iteration) {
	it.Outcome, it.ConsecutiveFailures = OutcomeInterrupted, r.failures
	r.logStop(it)
	for _, o := range r.cfg.Observers {
		o.IterationFinished(it)
	}
}

// MatrixOutcome applies seed 002's outcome matrix: FAILURE wins over SUCCESS,
// SUCCESS wins over the exit code, and otherwise the exit code decides. A
// timeout (idle or not) or an agent that did not start is a failure,
// whatever it printed.
func MatrixOutcome(it *Iteration) Outcome {
	switch {
	case it.StartErr != nil || it.Result.TimedOut || it.Result.Idle || it.Result.Stopped || it.Signals.Failure:
		return OutcomeFailure
	case it.Signals.Success:
		return OutcomeSuccess
	case it.Result.ExitCode == 0:
		return OutcomeContinue
	}
	return OutcomeFailure
}

func (r *runner) logIteration(it *Iteration) {
	if it.Replayed {
		r.replays.add(it)
		return
	}
	log, label := r.logger(), r.label(it.Number)
	res := it.Result
	if res.Dropped > 0 {
		log.Warnf("Iteration %s: the agent printed %d bytes; kept the last %d (max_output_buffer %d), dropped %d",
			label, res.Total, res.Total-res.Dropped, r.cfg.MaxOutput, res.Dropped)
	}
	if it.StartErr == nil {
		log.Debugf("Iteration %s: agent (pid %d) exited with code %d, printed %d bytes; signals: %s",
			label, res.PID, res.ExitCode, res.Total, it.Signals.String())
	}
	r.logStop(it)
	if why := failureReason(it, r.cfg); why != "" {
		r.warnFailure(it, why)
	}
	outcome := string(it.Outcome)
	if it.Outcome == OutcomeFailure {
		outcome = fmt.Sprintf("failure, consecutive: %d/%d", it.ConsecutiveFailures, r.cfg.FailureThreshold)
	}
	log.Event(logging.Info, "iteration_finished", append([]any{
		"iteration", it.Number, "outcome", string(it.Outcome), "cause", string(it.Cause), "exit_code", res.ExitCode, "signal", it.Signals.String(),
		"killed_by", res.Signal, "timed_out", res.TimedOut, "duration_seconds", it.Duration.Seconds(),
		"consecutive_failures", it.ConsecutiveFailures, "output_bytes", res.Total, "dropped_bytes", res.Dropped,
	}, it.Spent.Fields()...), "Iteration %s completed in %s (%s)%s", label, units.Duration(it.Duration), outcome, spentText(it.Spent))
}

// spentText is what an iteration's agent spent, as the progress line
// ends with it: " · 1,234 tokens, $0.01"; "" when nothing is known.
func spentText(s Spend) string {
	if s.IsZero() {
		return ""
	}
	return " · " + s.String()
}

// warnFailure says why an iteration failed, with its cause, then the
// agent's last lines, indented under it, and where its whole output is;
// in JSON, the lines and the file are fields of the warning.
func (r *runner) warnFailure(it *Iteration, why string) {
	log := r.logger()
	lines := LastLines(it.words(), lastLineCount, lastLineWidth)
	file := ""
	if r.cfg.OutputFile != nil && it.StartErr == nil {
		file = r.cfg.OutputFile()
	}
	log.Event(logging.Warn, "warning", []any{"iteration", it.Number, "cause", string(it.Cause), "last_lines", lines, "output_file", file},
		"Iteration %s: %s%s", r.label(it.Number), why, causeTag(it))
	for _, l := range lines {
		log.Detailf(logging.Warn, "> %s", l)
	}
	if file != "" {
		log.Detailf(logging.Warn, "the whole output: %s", file)
	}
}

// logStop warns when stopping the agent took SIGKILL, or did not work.
func (r *runner) logStop(it *Iteration) {
	label := r.label(it.Number)
	if it.Result.Killed {
		r.logger().Warnf("Iteration %s: the agent's processes did not stop on SIGTERM within the grace period; killed with SIGKILL", label)
	}
	if it.Result.Abandoned {
		r.logger().Warnf("Iteration %s: the agent (pid %d) did not end even after SIGKILL; going on without it", label, it.Result.PID)
	}
	if escaped := it.Result.Escaped; len(escaped) > 0 {
		what := "stopped them"
		switch {
		case it.Result.EscapedSurvived:
			what = "some did not end even after SIGKILL"
		case len(escaped) == 1:
			what = "stopped it"
		}
		r.logger().Warnf("Iteration %s: the agent left %s running outside its process group (%s); %s",
			label, process.Count(len(escaped)), process.List(escaped), what)
	}
}

// failureReason says why an iteration failed, or "".
func failureReason(it *Iteration, cfg Config) string {
	res := it.Result
	switch {
	case it.Outcome != OutcomeFailure || it.Overridden:
		// The procedure's failure is logged as its own (logVerdict).
		return ""
	case it.StartErr != nil:
		return "the agent could not start: " + it.StartErr.Error()
	case it.Stop != nil:
		return it.Stop.Why + "; " + stoppedText(res)
	case res.Idle:
		return fmt.Sprintf("no output for %s; %s", units.Duration(cfg.IdleTimeout), stoppedText(res))
	case res.TimedOut:
		return fmt.Sprintf("timed out after %s; %s", units.Duration(cfg.Timeout), stoppedText(res))
	case it.Signals.Failure:
		return "the agent signaled FAILURE" + exitText(res)
	}
	return "the agent failed" + exitText(res)
}

// causeTag is a failed iteration's cause as the warnings end with it:
// " [agent_failed]"; "" for an iteration that did not fail.
func causeTag(it *Iteration) string {
	if it.Cause == "" {
		return ""
	}
	return " [" + string(it.Cause) + "]"
}

// stoppedText says what stopping the agent stopped: only what rooda
// knows it stopped.
func stoppedText(res process.Result) string {
	switch {
	case res.Abandoned || res.EscapedSurvived:
		return "not every process of the agent could be stopped"
	case res.Contained:
		return "the agent and everything it started were stopped"
	}
	// Without a cgroup, a process that left the group and cleared its
	// environment is found only as the run ends.
	return "the agent's process group was stopped"
}

func exitText(res process.Result) string {
	switch {
	case res.Signal != "":
		return fmt.Sprintf(" (killed by %s, exit code %d)", res.Signal, res.ExitCode)
	case res.ExitCode != 0:
		return fmt.Sprintf(" (exit code %d)", res.ExitCode)
	}
	return ""
}

// finish logs the end of the run and its timing, and returns its result.
func (r *runner) finish(status Status, cause error) Result {
	r.result.Status = status
	r.result.Elapsed = r.cfg.Now().Sub(r.start)
	if status == Aborted || status == OverBudget {
		r.result.Err = cause
	}
	if last := r.result.Last; last != nil && last.Overridden && (status == Success || status == Stopped || cause == errAbort) {
		// The reason of a verdict that did not end the loop is its
		// iteration's alone.
		r.result.Reason = last.Reason
	}
	level, why, msg := r.summary(status, cause)
	r.result.Message, r.result.Why = msg, why
	s := r.result.Stats
	r.logger().Event(level, logging.FinalEvent, append([]any{
		"status", string(status), "exit_code", status.ExitCode(), "iterations", r.result.Iterations,
		"elapsed_seconds", r.result.Elapsed.Seconds(), "min_seconds", s.Min.Seconds(), "max_seconds", s.Max.Seconds(),
		"mean_seconds", s.Mean().Seconds(), "stddev_seconds", s.StdDev().Seconds(),
	}, r.result.Spent.Fields()...), "%s", msg)
	if s.Count > 0 {
		// Timings are information, whatever the end's level: -q, which
		// shows warnings and errors only, leaves them out.
		r.logger().Detailf(logging.Info, "Iteration timing: min=%s, max=%s, mean=%s, stddev=%s",
			units.Duration(s.Min), units.Duration(s.Max), units.Duration(s.Mean()), units.Duration(s.StdDev()))
	}
	if spent := r.result.Spent.Breakdown(); spent != "" {
		r.logger().Detailf(level, "Spent: %s", spent)
	}
	return r.result
}

// summary is the last line of a run's log, its level, and why the loop
// ended, the line's heart without its counts and times: "the run's
// agents spent $0.21, reaching max_cost_usd $0.20".
func (r *runner) summary(status Status, cause error) (level logging.Level, why, msg string) {
	total := units.Duration(r.result.Elapsed)
	done := logging.Count(r.result.Iterations, "iteration")
	// Most lines end with the count of iterations and the time; success
	// and the ends of the procedure's choosing give the time alone.
	counted := fmt.Sprintf(" (%s completed, total: %s)", done, total)
	timed := fmt.Sprintf(" (total: %s)", total)
	said := reasonText(r.result.Reason)
	in := r.label(r.result.Iterations)
	switch status {
	case Success:
		if r.result.Last.Overridden {
			why = fmt.Sprintf("the procedure ended the loop in iteration %s%s", in, said)
		} else {
			why = fmt.Sprintf("the agent signaled SUCCESS in iteration %s", in)
		}
		return logging.Info, why, "Success: " + why + timed
	case MaxIters:
		why = fmt.Sprintf("reached max iterations: %d", r.cfg.MaxIterations)
		return logging.Info, why, "Reached max iterations: " + fmt.Sprint(r.cfg.MaxIterations) + timed
	case Interrupted:
		return logging.Warn, "interrupted" + causeText(cause), "Interrupted" + causeText(cause) + counted
	case OverBudget:
		why = fmt.Sprint(cause)
		return logging.Warn, why, "Budget reached: " + why + counted
	case Stopped:
		why = fmt.Sprintf("the procedure ended the loop in iteration %s%s", in, said)
		return logging.Info, why, "Stopped: " + why + timed
	case Stalled:
		why = fmt.Sprintf("the last %s changed no file and signaled nothing", logging.Count(r.idle, "iteration"))
		return logging.Warn, why, "Stalled: " + why + counted
	}
	switch {
	case cause == nil:
		why = logging.Count(r.failures, "consecutive failure")
		return logging.Error, why, "Aborting after " + why + counted
	case cause == errAbort:
		why = "the procedure said abort" + said
	case errors.As(cause, new(*LoginError)):
		why = "the agent cannot log in"
	default:
		// A prompt that could not be composed, an agent its function
		// could not choose: said in the error logged before.
		return logging.Error, cause.Error(), "Aborting" + counted
	}
	return logging.Error, why, "Aborting: " + why + counted
}

func causeText(cause error) string {
	if cause == nil || errors.Is(cause, context.Canceled) {
		return ""
	}
	return " by " + cause.Error()
}

// label is an iteration as the progress lines show it: "2/5", or "2" when
// unlimited.
func (r *runner) label(n int) string { return Label(n, r.cfg.MaxIterations) }

// Label is iteration n of at most max (0: unlimited) as the log names it:
// "2/5", or "2".
func Label(n, max int) string {
	if max <= 0 {
		return fmt.Sprint(n)
	}
	return fmt.Sprintf("%d/%d", n, max)
}

func limitText(max int) string {
	if max <= 0 {
		return "unlimited"
	}
	return "max " + logging.Count(max, "iteration")
}
