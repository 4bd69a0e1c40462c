package loop

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"rooda/host/agentstream"
	"rooda/host/logging"
	"rooda/host/process"
	"rooda/host/prompt"
	"rooda/internal/golden"
)

// step is what the scripted agent does in one iteration.
type step struct {
	out     string
	exit    int
	took    time.Duration
	timeout bool
	noStart bool
	// killedBy is the signal that ended the agent: "SIGSEGV".
	killedBy string
	// decoded is what a CLI's JSON output said: nil for text.
	decoded *agentstream.Summary
}

// script runs the loop against steps, one per call of the agent (the
// last repeats), on a clock that advances only by the steps' durations
// and the loop's waits.
type script struct {
	steps   []step
	calls   int
	prompts []string
	clock   time.Time
	// slept are the loop's waits, in order.
	slept []time.Duration
}

func (s *script) now() time.Time { return s.clock }

func (s *script) sleep(_ context.Context, d time.Duration) error {
	s.slept = append(s.slept, d)
	s.clock = s.clock.Add(d)
	return nil
}

func (s *script) agent(_ context.Context, req Request) (Reply, error) {
	st := s.steps[min(s.calls, len(s.steps)-1)]
	s.calls++
	s.prompts = append(s.prompts, req.Prompt)
	s.clock = s.clock.Add(st.took)
	if st.noStart {
		return Reply{}, errors.New("exec: \"nope\": executable file not found in $PATH")
	}
	return Reply{Result: process.Result{Output: []byte(st.out), Total: int64(len(st.out)), ExitCode: st.exit, TimedOut: st.timeout, Signal: st.killedBy}, Decoded: st.decoded}, nil
}

func (s *script) config(max, threshold int, log *strings.Builder) Config {
	s.clock = time.Date(2026, 1, 1, 10, 0, 0, 0, time.Local)
	return Config{
		Procedure:        "build",
		MaxIterations:    max,
		FailureThreshold: threshold,
		Timeout:          time.Second,
		Prompt: func(it prompt.Iteration) (string, error) {
			return "prompt " + it.String(), nil
		},
		Agent:        s.agent,
		Log:          logging.New(log, logging.Info).WithClock(s.now),
		Now:          s.now,
		Sleep:        s.sleep,
		MaxLimitWait: 6 * time.Hour,
	}
}

func run(t *testing.T, max, threshold int, steps ...step) (Result, string, *script) {
	t.Helper()
	var log strings.Builder
	s := &script{steps: steps}
	res := Run(context.Background(), s.config(max, threshold, &log))
	return res, log.String(), s
}

const (
	success = "<promise>SUCCESS</promise>"
	failure = "<promise>FAILURE</promise>"
)

// TestOutcomeMatrix has one case per row of seed 002's matrix: the status
// after one iteration with the limit at 1 (and the threshold at 2, which
// the limit lowers to 1) tells the outcome apart: max-iters continued,
// aborted failed, success done; and the consecutive count agrees.
func TestOutcomeMatrix(t *testing.T) {
	for _, tc := range []struct {
		exit     int
		out      string
		status   Status
		failures int
	}{
		{0, "done nothing", MaxIters, 0},
		{0, success, Success, 0},
		{0, failure, Aborted, 1},
		{0, success + failure, Aborted, 1},
		{1, "crashed", Aborted, 1},
		{1, success, Success, 0},
		{1, failure, Aborted, 1},
		{1, failure + " then " + success, Aborted, 1},
	} {
		t.Run(fmt.Sprintf("exit%d_%s", tc.exit, tc.out), func(t *testing.T) {
			res, _, _ := run(t, 1, 2, step{out: tc.out, exit: tc.exit})
			if res.Status != tc.status || res.Last.ConsecutiveFailures != tc.failures {
				t.Errorf("status %s, consecutive failures %d; want %s, %d", res.Status, res.Last.ConsecutiveFailures, tc.status, tc.failures)
			}
		})
	}
}

func TestSuccessEndsTheRunEarly(t *testing.T) {
	res, _, s := run(t, 10, 3, step{exit: 0}, step{out: "x " + success + " y", exit: 3})
	if res.Status != Success || res.Iterations != 2 || s.calls != 2 || res.Status.ExitCode() != 0 {
		t.Errorf("status %s after %d iterations (%d calls)", res.Status, res.Iterations, s.calls)
	}
}

// TestLimitWaitIsNotTheIterationsDuration: the time an iteration waited
// for a usage limit is its Waited, and its Duration is its tries' time.
func TestLimitWaitIsNotTheIterationsDuration(t *testing.T) {
	start := time.Date(2026, 1, 1, 10, 0, 0, 0, time.Local)
	limit := &agentstream.Summary{Cause: agentstream.CauseUsageLimit, ResetAt: start.Add(65 * time.Second)}
	res, log, s := run(t, 1, 3, step{took: 5 * time.Second, exit: 1, decoded: limit}, step{took: 5 * time.Second})
	if res.Last.Duration != 10*time.Second || res.Last.Waited != 60*time.Second || s.calls != 2 {
		t.Errorf("duration %s, waited %s, %d tries; want 10s, 1m0s, 2", res.Last.Duration, res.Last.Waited, s.calls)
	}
	if !strings.Contains(log, "WARN: Iteration 1/1: the agent: usage limit; waiting until 10:01:05, 1m, then running iteration 1/1 again\n") {
		t.Errorf("log:\n%s", log)
	}
}

// TestMaxIterationsCounting: a limit of 5 runs iterations 1 to 5 and no
// sixth, each prompt telling which it is.
func TestMaxIterationsCounting(t *testing.T) {
	res, _, s := run(t, 5, 3, step{})
	if res.Status != MaxIters || res.Iterations != 5 || s.calls != 5 || res.Status.ExitCode() != 2 {
		t.Fatalf("status %s, %d iterations, %d calls", res.Status, res.Iterations, s.calls)
	}
	if s.prompts[0] != "prompt 1 of 5" || s.prompts[4] != "prompt 5 of 5" {
		t.Errorf("prompts %q", s.prompts)
	}
}

// TestThresholdBeatsMaxIterations: failures that reach the threshold on
// the last allowed iteration abort; they are not max-iters.
func TestThresholdBeatsMaxIterations(t *testing.T) {
	res, log, _ := run(t, 3, 3, step{exit: 1})
	if res.Status != Aborted || res.Status.ExitCode() != 1 {
		t.Errorf("status %s\n%s", res.Status, log)
	}
	res, _, _ = run(t, 1, 1, step{exit: 1})
	if res.Status != Aborted {
		t.Errorf("max 1, threshold 1, failing: %s", res.Status)
	}
}

// TestSuccessResetsFailures: two failures, a success, two failures do not
// reach a threshold of 3.
func TestSuccessResetsFailures(t *testing.T) {
	res, _, _ := run(t, 5, 3, step{exit: 1}, step{exit: 1}, step{}, step{exit: 1}, step{exit: 1})
	if res.Status != MaxIters || res.Last.ConsecutiveFailures != 2 {
		t.Errorf("status %s, consecutive %d", res.Status, res.Last.ConsecutiveFailures)
	}
}

// TestTimeoutAndNoStartAreFailures: a timed-out iteration fails even if it
// printed SUCCESS, and so does an agent that could not start; neither
// stops the loop before the threshold.
func TestTimeoutAndNoStartAreFailures(t *testing.T) {
	res, log, _ := run(t, 3, 2, step{out: success, timeout: true, took: time.Second}, step{noStart: true})
	if res.Status != Aborted || res.Iterations != 2 {
		t.Errorf("status %s after %d", res.Status, res.Iterations)
	}
	for _, want := range []string{"WARN: Iteration 1/3: timed out after 1s", "WARN: Iteration 2/3: the agent could not start: exec:"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
}

func TestUnlimitedRunsUntilSuccess(t *testing.T) {
	steps := make([]step, 30)
	steps[29] = step{out: success}
	res, log, s := run(t, 0, 3, steps...)
	if res.Status != Success || res.Iterations != 30 || s.prompts[29] != "prompt 30 (unlimited)" {
		t.Errorf("status %s after %d; last prompt %q", res.Status, res.Iterations, s.prompts[len(s.prompts)-1])
	}
	if !strings.Contains(log, "Starting procedure: build (unlimited)\n") || !strings.Contains(log, "] Iteration 30 starting...\n") {
		t.Errorf("log:\n%s", log)
	}
}

// TestPromptErrorAborts: a prompt that cannot be composed (a fragment file
// deleted mid-run) ends the run as aborted, before any agent starts.
func TestPromptErrorAborts(t *testing.T) {
	var log strings.Builder
	s := &script{steps: []step{{}}}
	cfg := s.config(3, 3, &log)
	cfg.Prompt = func(prompt.Iteration) (string, error) { return "", errors.New("fragment gone") }
	res := Run(context.Background(), cfg)
	if res.Status != Aborted || s.calls != 0 || !strings.Contains(log.String(), "ERROR: Prompt assembly failed: fragment gone") {
		t.Errorf("status %s, %d calls\n%s", res.Status, s.calls, log.String())
	}
}

// TestInterrupt: an interrupt during an iteration wins over its SUCCESS and
// is not counted; one before an iteration starts none.
func TestInterrupt(t *testing.T) {
	var log strings.Builder
	s := &script{steps: []step{{}, {out: success}}}
	cfg := s.config(5, 3, &log)
	ctx, cancel := context.WithCancelCause(context.Background())
	inner := cfg.Agent
	cfg.Agent = func(c context.Context, r Request) (Reply, error) {
		if r.Iteration == 2 {
			cancel(errors.New("SIGINT"))
		}
		return inner(c, r)
	}
	res := Run(ctx, cfg)
	if res.Status != Interrupted || res.Iterations != 1 || res.Status.ExitCode() != 130 {
		t.Errorf("status %s after %d", res.Status, res.Iterations)
	}
	if !strings.Contains(log.String(), "WARN: Interrupted by SIGINT (1 iteration completed") {
		t.Errorf("log:\n%s", log.String())
	}
	res = Run(ctx, cfg)
	if res.Status != Interrupted || s.calls != 2 {
		t.Errorf("cancelled before the start: %s, %d calls", res.Status, s.calls)
	}
}

type recorder struct{ events []string }

func (r *recorder) IterationStarted(req Request) {
	r.events = append(r.events, fmt.Sprintf("start %d %q", req.Iteration, req.Prompt))
}
func (r *recorder) IterationFinished(it *Iteration) {
	r.events = append(r.events, fmt.Sprintf("finish %d %s %d", it.Number, it.Outcome, it.ConsecutiveFailures))
}

func TestObserversSeeEveryIteration(t *testing.T) {
	var log strings.Builder
	s := &script{steps: []step{{exit: 1}, {out: success}}}
	rec := &recorder{}
	cfg := s.config(3, 3, &log)
	cfg.Observers = []Observer{rec}
	Run(context.Background(), cfg)
	want := `start 1 "prompt 1 of 3"|finish 1 failure 1|start 2 "prompt 2 of 3"|finish 2 success 1`
	if got := strings.Join(rec.events, "|"); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}

	// An interrupted iteration is finished too, as interrupted.
	ctx, cancel := context.WithCancel(context.Background())
	rec = &recorder{}
	cfg.Observers = []Observer{rec}
	inner := cfg.Agent
	cfg.Agent = func(c context.Context, r Request) (Reply, error) {
		cancel()
		return inner(c, r)
	}
	Run(ctx, cfg)
	if got := strings.Join(rec.events, "|"); got != `start 1 "prompt 1 of 3"|finish 1 interrupted 0` {
		t.Errorf("interrupted: %s", got)
	}
}

func TestTruncationIsWarned(t *testing.T) {
	var log strings.Builder
	s := &script{steps: []step{{}}}
	cfg := s.config(1, 3, &log)
	cfg.MaxOutput = 1024
	cfg.Agent = func(context.Context, Request) (Reply, error) {
		return Reply{Result: process.Result{Output: make([]byte, 1024), Total: 5000, Dropped: 3976}}, nil
	}
	Run(context.Background(), cfg)
	want := "WARN: Iteration 1/1: the agent printed 5000 bytes; kept the last 1024 (max_output_buffer 1024), dropped 3976\n"
	if !strings.Contains(log.String(), want) {
		t.Errorf("log:\n%s", log.String())
	}
}

// TestProgressLines checks the exact log of seed 002's Examples 1 and 2,
// but for the outcome of an exit 0 without a signal, which the seed calls
// success and rooda's one vocabulary continue.
func TestProgressLines(t *testing.T) {
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	_, log, _ := run(t, 3, 3, step{took: sec(45.2)}, step{took: sec(38.7)}, step{took: sec(52.1)})
	golden.Check(t, "example1", log)
	_, log, _ = run(t, 10, 3, step{took: sec(42)}, step{took: sec(36)}, step{took: sec(37)},
		step{exit: 1, took: sec(15)}, step{out: failure, took: sec(12)}, step{exit: 2, took: sec(13)})
	golden.Check(t, "example2", log)
}

// TestJudgeOverrides: a Judge's verdict replaces the matrix's: SUCCESS
// ignored before iteration 3, then kept; "abort" ends the run; an error
// ends it with the error.
func TestJudgeOverrides(t *testing.T) {
	var log strings.Builder
	s := &script{steps: []step{{out: success}}}
	cfg := s.config(10, 3, &log)
	cfg.Verdict = func(it *Iteration) (Decision, error) {
		if it.Outcome == OutcomeSuccess && it.Number < 3 {
			return Decision{Outcome: OutcomeContinue}, nil
		}
		return Decision{}, nil
	}
	res := Run(context.Background(), cfg)
	if res.Status != Success || res.Iterations != 3 || !strings.Contains(log.String(), "Iteration 1/10: the procedure's on_iteration declared continue; the agent's outcome was success") {
		t.Errorf("status %s after %d\n%s", res.Status, res.Iterations, log.String())
	}
	cfg.Verdict = func(*Iteration) (Decision, error) { return Decision{Outcome: OutcomeAbort}, nil }
	if res := Run(context.Background(), cfg); res.Status != Aborted || res.Iterations != 1 {
		t.Errorf("abort: %s after %d", res.Status, res.Iterations)
	}
	boom := errors.New("boom")
	cfg.Verdict = func(*Iteration) (Decision, error) { return Decision{}, boom }
	if res := Run(context.Background(), cfg); res.Status != Aborted || res.Err != boom || res.Iterations != 1 {
		t.Errorf("error: %s after %d, %v", res.Status, res.Iterations, res.Err)
	}

	// The Judge sees the count its iteration makes.
	s.steps = []step{{exit: 1}}
	var seen []int
	cfg.Verdict = func(it *Iteration) (Decision, error) {
		seen = append(seen, it.ConsecutiveFailures)
		return Decision{}, nil
	}
	Run(context.Background(), cfg)
	if fmt.Sprint(seen) != "[1 2 3]" {
		t.Errorf("consecutive failures seen by the judge: %v", seen)
	}
}

// TestMinIterations: a SUCCESS before the minimum is logged and the loop
// goes on; the preamble says where the minimum is.
func TestMinIterations(t *testing.T) {
	var log strings.Builder
	s := &script{steps: []step{{out: success}}}
	cfg := s.config(10, 3, &log)
	cfg.MinIterations = 3
	res := Run(context.Background(), cfg)
	if res.Status != Success || res.Iterations != 3 || !strings.Contains(log.String(), "Iteration 2/10: the agent signaled SUCCESS before the minimum of 3 iterations; going on") {
		t.Errorf("status %s after %d\n%s", res.Status, res.Iterations, log.String())
	}
	if s.prompts[1] != "prompt 2 of 10 (minimum 3)" {
		t.Errorf("prompt %q", s.prompts[1])
	}
}

// TestTimeoutSaysWhatWasStopped: the timeout's warning claims what rooda
// knows it stopped, and no more.
func TestTimeoutSaysWhatWasStopped(t *testing.T) {
	for _, tc := range []struct {
		res  process.Result
		want string
	}{
		{process.Result{TimedOut: true, Contained: true}, "timed out after 1s; the agent and everything it started were stopped"},
		{process.Result{TimedOut: true}, "timed out after 1s; the agent's process group was stopped"},
		{process.Result{TimedOut: true, Contained: true, EscapedSurvived: true}, "timed out after 1s; not every process of the agent could be stopped"},
		{process.Result{TimedOut: true, Abandoned: true}, "timed out after 1s; not every process of the agent could be stopped"},
	} {
		it := &Iteration{Result: tc.res, Outcome: OutcomeFailure}
		if got := failureReason(it, Config{Timeout: time.Second}); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.res, got, tc.want)
		}
	}
}

// TestIterationsNameTheirAgent: each iteration carries the name of the
// agent whose turn it was, and the procedure it was given: its role's,
// else the loop's.
func TestIterationsNameTheirAgent(t *testing.T) {
	var log strings.Builder
	s := &script{steps: []step{{}}}
	cfg := s.config(3, 3, &log)
	turns := []Turn{{Agent: "builder"}, {Agent: "reviewer", Role: "review"}}
	cfg.Turn = func(n int) (Turn, error) { return turns[(n-1)%2], nil }
	var names []string
	cfg.Verdict = func(it *Iteration) (Decision, error) {
		names = append(names, it.Agent+"/"+it.Procedure+"/"+it.Role)
		return Decision{}, nil
	}
	Run(context.Background(), cfg)
	if got := strings.Join(names, " "); got != "builder/"+cfg.Procedure+"/ reviewer/review/review builder/"+cfg.Procedure+"/" {
		t.Errorf("agents %q", got)
	}
}

// TestTurnErrorAborts: when the agent of an iteration cannot be chosen,
// no agent runs, the log says why, and the loop ends aborted with the
// error.
func TestTurnErrorAborts(t *testing.T) {
	var log strings.Builder
	s := &script{steps: []step{{}}}
	cfg := s.config(3, 3, &log)
	cfg.Turn = func(n int) (Turn, error) {
		if n == 2 {
			return Turn{}, errors.New("no such agent")
		}
		return Turn{Agent: "a"}, nil
	}
	res := Run(context.Background(), cfg)
	var turnErr *TurnError
	if res.Status != Aborted || res.Iterations != 1 || !errors.As(res.Err, &turnErr) || turnErr.Iteration != 2 {
		t.Errorf("result: %+v", res)
	}
	if !strings.Contains(log.String(), "ERROR: Iteration 2/3: no such agent\n") {
		t.Errorf("log:\n%s", log.String())
	}
}
