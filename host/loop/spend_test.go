package loop

import (
	"context"
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
	cfg.Agents = []string{"codex"}
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
