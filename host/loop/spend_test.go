package loop

import (
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
