package loop

import (
	"context"
	"errors"
	"strings"
	"testing"

	"rooda/host/agentstream"
)

// TestSpendAdd: the cost stays known only while every spend that spent
// something has one; a spend of nothing, first or last, changes nothing.
func TestSpendAdd(t *testing.T) {
	costed := Spend{Tokens: agentstream.Usage{Input: 10}, CostUSD: 0.5, Costed: true}
	tokensOnly := Spend{Tokens: agentstream.Usage{Output: 5}}
	for _, tc := range []struct {
		name string
		got  Spend
		want Spend
	}{
		{"nothing, then costed", Spend{}.Add(costed), costed},
		{"costed, then nothing", costed.Add(Spend{}), costed},
		{"costed twice", costed.Add(costed), Spend{Tokens: agentstream.Usage{Input: 20}, CostUSD: 1, Costed: true}},
		{"costed, then tokens only", costed.Add(tokensOnly), Spend{Tokens: agentstream.Usage{Input: 10, Output: 5}, CostUSD: 0.5}},
		{"tokens only, then costed", tokensOnly.Add(costed), Spend{Tokens: agentstream.Usage{Input: 10, Output: 5}, CostUSD: 0.5}},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, tc.got, tc.want)
		}
	}
}

// TestUncountedCostIsWarned: a cost budget over an agent whose tokens
// nobody priced says, once, that it cannot count them.
func TestUncountedCostIsWarned(t *testing.T) {
	var log strings.Builder
	s := &script{steps: []step{{out: "working"}}}
	cfg := s.config(3, 3, &log)
	cfg.Turn = func(int) (Turn, error) { return Turn{Agent: "codex"}, nil }
	cfg.Budget = Budget{MaxCostUSD: 2}
	inner := cfg.Agent
	cfg.Agent = func(ctx context.Context, req Request) (Reply, error) {
		reply, err := inner(ctx, req)
		reply.Spent = Spend{Tokens: agentstream.Usage{Input: 100}}
		return reply, err
	}
	Run(context.Background(), cfg)
	want := "WARN: Iteration 1/3: max_cost_usd ($2.00) cannot count what codex spends"
	if got := strings.Count(log.String(), "cannot count what"); got != 1 || !strings.Contains(log.String(), want) {
		t.Errorf("warned %d times; log:\n%s", got, log.String())
	}
	log.Reset()
	cfg.Budget = Budget{}
	if Run(context.Background(), cfg); strings.Contains(log.String(), "cannot count") {
		t.Errorf("warned without a cost budget:\n%s", log.String())
	}
}

// TestBudgetEndsTheLoopWhenReached: a token or cost budget ends the loop
// OverBudget after the iteration whose spend, added to the run's other
// loops', reaches it — not one before, not one after — and names the
// setting.
func TestBudgetEndsTheLoopWhenReached(t *testing.T) {
	perIteration := Spend{Tokens: agentstream.Usage{Input: 60, Output: 40}, CostUSD: 0.25, Costed: true}
	elsewhere := Spend{Tokens: agentstream.Usage{Input: 100}, CostUSD: 0.25, Costed: true}
	for _, tc := range []struct {
		name    string
		budget  Budget
		want    int // iterations run
		setting string
	}{
		{"tokens reached exactly", Budget{MaxTokens: 300}, 3, "max_tokens"},
		{"tokens passed", Budget{MaxTokens: 250}, 3, "max_tokens"},
		{"cost reached exactly", Budget{MaxCostUSD: 0.5}, 2, "max_cost_usd"},
		{"cost passed", Budget{MaxCostUSD: 0.6}, 3, "max_cost_usd"},
		{"tokens with the other loops'", Budget{MaxTokens: 300, Others: func() Spend { return elsewhere }}, 2, "max_tokens"},
		{"cost with the other loops'", Budget{MaxCostUSD: 0.5, Others: func() Spend { return elsewhere }}, 1, "max_cost_usd"},
		{"no budget", Budget{}, 5, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log strings.Builder
			s := &script{steps: []step{{out: "working"}}}
			cfg := s.config(5, 5, &log)
			cfg.Budget = tc.budget
			inner := cfg.Agent
			cfg.Agent = func(ctx context.Context, req Request) (Reply, error) {
				reply, err := inner(ctx, req)
				reply.Spent = perIteration
				return reply, err
			}
			res := Run(context.Background(), cfg)
			if res.Iterations != tc.want {
				t.Errorf("ran %d iterations, want %d; log:\n%s", res.Iterations, tc.want, log.String())
			}
			var over *BudgetError
			if tc.setting == "" {
				if res.Status != MaxIters {
					t.Errorf("status %s, want %s", res.Status, MaxIters)
				}
				return
			}
			if res.Status != OverBudget || !errors.As(res.Err, &over) || over.Setting != tc.setting {
				t.Errorf("status %s, error %v; want %s reaching %s", res.Status, res.Err, OverBudget, tc.setting)
			}
		})
	}
}

// TestLoopCostIsUnknownOnceAnIterationsIs: a loop's cost is the sum of
// its iterations' only while each whose agent ran has one: a turn of an
// agent read as text (nothing known), beside turns that report theirs,
// makes it unknown, not the reported turns' sum. An agent that could not
// start spent nothing. Iterations a resume answers from the journal
// count as those that ran.
func TestLoopCostIsUnknownOnceAnIterationsIs(t *testing.T) {
	costed := Spend{Tokens: agentstream.Usage{Input: 10}, CostUSD: 0.25, Costed: true}
	text := Spend{}
	for _, tc := range []struct {
		name   string
		steps  []step
		spends []Spend // one per call of the agent, the last repeating
		replay []Reply // iterations the journal answers
		usd    float64
		known  bool
	}{
		{"every turn costed", []step{{out: "working"}}, []Spend{costed}, nil, 0.75, true},
		{"a JSON agent and a text agent taking turns", []step{{out: "working"}}, []Spend{costed, text}, nil, 0, false},
		{"a text turn first", []step{{out: "working"}}, []Spend{text, costed}, nil, 0, false},
		{"an agent that could not start", []step{{noStart: true}, {out: "working"}}, []Spend{text, costed}, nil, 0.5, true},
		{"a costed turn replayed", []step{{out: "working"}}, []Spend{costed}, []Reply{{Spent: costed}}, 0.75, true},
		{"a text turn replayed", []step{{out: "working"}}, []Spend{costed}, []Reply{{Spent: costed}, {Spent: text}}, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log strings.Builder
			s := &script{steps: tc.steps}
			cfg := s.config(3, 3, &log)
			if tc.replay != nil {
				cfg.Replay = replayOf(tc.replay, 0)
			}
			inner := cfg.Agent
			cfg.Agent = func(ctx context.Context, req Request) (Reply, error) {
				spent := tc.spends[min(s.calls, len(tc.spends)-1)]
				reply, err := inner(ctx, req)
				reply.Spent = spent
				return reply, err
			}
			res := Run(context.Background(), cfg)
			if res.Iterations != 3 {
				t.Fatalf("%d iterations, want 3; log:\n%s", res.Iterations, log.String())
			}
			if usd, known := res.Cost(); usd != tc.usd || known != tc.known {
				t.Errorf("cost %v, known %v; want %v, %v", usd, known, tc.usd, tc.known)
			}
		})
	}
}
