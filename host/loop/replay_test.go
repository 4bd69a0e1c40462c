package loop

import (
	"context"
	"strings"
	"testing"
	"time"

	"rooda/host/agentstream"
	"rooda/host/logging"
	"rooda/host/process"
	"rooda/host/prompt"
)

// replayOf is what a journal holds of iterations that ended, one per
// reply, and which iteration was in flight (0: none), as a YAML
// procedure's resume has them: their prompts not composed again.
func replayOf(replies []Reply, inFlight int) func(int) Replayed {
	return func(n int) Replayed {
		if n <= len(replies) {
			return Replayed{Ended: true, NoCompose: true, Prompt: "recorded prompt", Reply: replies[n-1], Duration: time.Minute, Elapsed: time.Duration(n) * time.Minute}
		}
		return Replayed{Again: n == inFlight}
	}
}

func reply(out string, exit int, tokens int64) Reply {
	return Reply{Result: process.Result{Output: []byte(out), ExitCode: exit}, Spent: Spend{Tokens: agentstream.Usage{Input: tokens}}}
}

// TestReplayCountsWithoutRunning: iterations the journal answers run no
// agent and are judged as they were: two recorded failures and a live
// one reach a threshold of three; the recorded spend counts towards the
// budget; the clock goes on from where the run was; the iteration that
// was in flight runs again and is told so.
func TestReplayCountsWithoutRunning(t *testing.T) {
	var log strings.Builder
	s := &script{steps: []step{{out: "<promise>FAILURE</promise>", took: time.Second}}}
	cfg := s.config(10, 3, &log)
	cfg.Replay = replayOf([]Reply{reply("<promise>FAILURE</promise>", 0, 40), reply("broke", 1, 40)}, 3)
	var again []bool
	agent := cfg.Agent
	cfg.Agent = func(ctx context.Context, req Request) (Reply, error) {
		again = append(again, req.Again)
		return agent(ctx, req)
	}
	res := Run(context.Background(), cfg)
	if s.calls != 1 || len(again) != 1 || !again[0] {
		t.Fatalf("agent calls: %d, told again: %v; want one, the in-flight iteration run again", s.calls, again)
	}
	if res.Status != Aborted || res.Iterations != 3 || res.Last.ConsecutiveFailures != 3 || res.Spent.Tokens.Input != 80 {
		t.Fatalf("result: %+v", res)
	}
	if res.Elapsed < 2*time.Minute {
		t.Errorf("elapsed %s: the time before the resume is not counted", res.Elapsed)
	}
	for _, want := range []string{"Iterations 1–2/10: from the journal, not run again (2 failure) · 80 tokens\n[", "Iteration 3/10 starting again (it was in flight when the run stopped)"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}

	s = &script{steps: []step{{out: "more", took: time.Second}}}
	cfg = s.config(10, 3, &log)
	cfg.Budget.MaxTokens = 100
	cfg.Replay = replayOf([]Reply{reply("a", 0, 60), reply("b", 0, 60)}, 0)
	if res := Run(context.Background(), cfg); res.Status != OverBudget || s.calls != 0 {
		t.Errorf("a budget the recorded spend reached: %s after %d agent calls", res.Status, s.calls)
	}
}

// TestReplayOfADamagedRecordAborts: an iteration whose record cannot be
// read back as it was ends the loop, aborted, naming why, without
// running its agent.
func TestReplayOfADamagedRecordAborts(t *testing.T) {
	var log strings.Builder
	s := &script{steps: []step{{out: "x"}}}
	cfg := s.config(5, 3, &log)
	cfg.Replay = func(n int) Replayed { return Replayed{Ended: true, Err: context.DeadlineExceeded} }
	res := Run(context.Background(), cfg)
	if res.Status != Aborted || s.calls != 0 || !strings.Contains(log.String(), "cannot resume iteration 1 as it ended") {
		t.Errorf("%s after %d calls:\n%s", res.Status, s.calls, log.String())
	}
}

// writes counts the writes made to it, and keeps what they wrote.
type writes struct {
	strings.Builder
	n int
}

func (w *writes) Write(p []byte) (int, error) {
	w.n++
	return w.Builder.Write(p)
}

func (w *writes) WriteString(s string) (int, error) {
	w.n++
	return w.Builder.WriteString(s)
}

// TestReplayedLinesAreWrittenTogether: the iterations the journal
// answers in a row are said in one line, with their outcomes counted,
// written before the first live iteration's; a loop the journal answers
// to its end says its line all the same.
func TestReplayedLinesAreWrittenTogether(t *testing.T) {
	replies := make([]Reply, 50)
	for i := range replies {
		replies[i] = reply("ok", 0, 1)
	}
	var log writes
	s := &script{steps: []step{{out: "<promise>SUCCESS</promise>"}}}
	cfg := s.config(60, 3, nil)
	cfg.Log = logging.New(&log, logging.Info).WithClock(s.now)
	cfg.Replay = replayOf(replies, 51)
	Run(context.Background(), cfg)
	text := log.String()
	said, live := strings.Index(text, "Iterations 1–50/60: from the journal, not run again (50 continue) · 50 tokens\n"), strings.Index(text, "Iteration 51/60 starting")
	if said < 0 || live < said || strings.Count(text, "from the journal") != 1 {
		t.Fatalf("one line for the replayed iterations, then the live one:\n%s", text)
	}
	if log.n > 8 {
		t.Errorf("%d writes for a loop of 50 iterations replayed and one run: the replay's lines were not gathered", log.n)
	}

	var all writes
	s = &script{}
	cfg = s.config(50, 3, nil)
	cfg.Log = logging.New(&all, logging.Info).WithClock(s.now)
	cfg.Replay = replayOf(replies, 0)
	Run(context.Background(), cfg)
	said, end := strings.Index(all.String(), "Iterations 1–50/50: from the journal, not run again (50 continue)"), strings.Index(all.String(), "Reached max iterations")
	if said < 0 || end < said {
		t.Errorf("a loop answered to its end by the journal, its row before its end:\n%s", all.String())
	}
}

// TestReplayedRowsAreSaidInOrder: a line the loop writes for a replayed
// iteration (a SUCCESS before the minimum) comes after the row of those
// before it, and a new row begins after it; a row of one iteration is
// said as each was before; the outcomes are counted in the order they
// came; in JSON a row is one event.
func TestReplayedRowsAreSaidInOrder(t *testing.T) {
	replies := []Reply{reply("ok", 0, 1), reply("<promise>SUCCESS</promise>", 0, 1), reply("broke", 1, 1), reply("ok", 0, 1)}
	var log strings.Builder
	s := &script{steps: []step{{out: "live"}}}
	cfg := s.config(6, 3, &log)
	cfg.MinIterations = 5
	cfg.Replay = replayOf(replies, 0)
	Run(context.Background(), cfg)
	text := log.String()
	lines := []string{
		"Iteration 1/6: from the journal, not run again (continue) · 1 tokens\n",
		"Iteration 2/6: the agent signaled SUCCESS before the minimum of 5 iterations; going on\n",
		"Iterations 2–4/6: from the journal, not run again (2 continue, 1 failure) · 3 tokens\n",
		"Iteration 5/6 starting...",
	}
	at := 0
	for _, line := range lines {
		i := strings.Index(text[at:], line)
		if i < 0 {
			t.Fatalf("%q not found after the lines before it:\n%s", line, text)
		}
		at += i + len(line)
	}

	var js strings.Builder
	s = &script{steps: []step{{out: "live"}}}
	cfg = s.config(6, 3, nil)
	cfg.Log = logging.New(&js, logging.Info).WithClock(s.now).AsJSON()
	cfg.Replay = replayOf(replies[2:], 0)
	Run(context.Background(), cfg)
	for _, want := range []string{`"event":"iterations_replayed","message":"Iterations 1–2/6: from the journal, not run again (1 failure, 1 continue) · 2 tokens"`,
		`"first":1,"last":2,"outcomes":{"continue":1,"failure":1},"consecutive_failures":0,`} {
		if !strings.Contains(js.String(), want) || strings.Contains(js.String(), `"iteration_replayed"`) {
			t.Errorf("the JSON log lacks %s, or says an iteration of the row alone:\n%s", want, js.String())
		}
	}
}

// TestReplayedAloneKeepsItsLine: a row of one replayed iteration is said
// as each was before, its JSON event too; and where the prompts are
// composed again (a script's, whose context functions may log), each
// replayed iteration is said before the next is composed.
func TestReplayedAloneKeepsItsLine(t *testing.T) {
	var js strings.Builder
	s := &script{steps: []step{{out: "live"}}}
	cfg := s.config(3, 3, nil)
	cfg.Log = logging.New(&js, logging.Info).WithClock(s.now).AsJSON()
	cfg.Replay = replayOf([]Reply{reply("broke", 1, 5)}, 0)
	Run(context.Background(), cfg)
	want := `"event":"iteration_replayed","message":"Iteration 1/3: from the journal, not run again (failure) · 5 tokens","iteration":1,"outcome":"failure","cause":"agent_failed","consecutive_failures":1,`
	if !strings.Contains(js.String(), want) {
		t.Errorf("the JSON log lacks %s:\n%s", want, js.String())
	}

	var log strings.Builder
	s = &script{steps: []step{{out: "live"}}}
	cfg = s.config(3, 3, &log)
	replay := replayOf([]Reply{reply("a", 0, 1), reply("b", 0, 1)}, 0)
	cfg.Replay = func(n int) Replayed {
		rep := replay(n)
		rep.NoCompose = false
		return rep
	}
	compose := cfg.Prompt
	cfg.Prompt = func(it prompt.Iteration) (string, error) {
		cfg.Log.Infof("composing %d", it.Number)
		return compose(it)
	}
	Run(context.Background(), cfg)
	at := 0
	for _, line := range []string{"composing 1", "Iteration 1/3: from the journal", "composing 2", "Iteration 2/3: from the journal", "composing 3", "Iteration 3/3 starting"} {
		i := strings.Index(log.String()[at:], line)
		if i < 0 {
			t.Fatalf("%q not found after the lines before it:\n%s", line, log.String())
		}
		at += i + len(line)
	}
}

// TestReplayedSpinsAreNotWaitedAgain: replayed iterations that ended at
// once without output count towards the spins in a row (the live one
// after them is the sixth), but no wait is said for them, as none is
// made: their row stays one line.
func TestReplayedSpinsAreNotWaitedAgain(t *testing.T) {
	var log strings.Builder
	s := &script{steps: []step{{out: ""}}}
	cfg := s.config(7, 3, &log)
	replay := replayOf([]Reply{reply("", 0, 0), reply("", 0, 0), reply("", 0, 0), reply("", 0, 0), reply("", 0, 0)}, 0)
	cfg.Replay = func(n int) Replayed {
		rep := replay(n)
		rep.Duration = 0
		return rep
	}
	Run(context.Background(), cfg)
	text := log.String()
	row, live := strings.Index(text, "Iterations 1–5/7: from the journal, not run again (5 continue)\n"), strings.Index(text, "Iteration 6/7: the agent ended at once without output, 6 iterations in a row; waiting")
	if row < 0 || live < row || strings.Count(text, "waiting") != 1 {
		t.Errorf("five quick silent iterations replayed, then a live one:\n%s", text)
	}
}
