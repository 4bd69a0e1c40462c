package loop

import (
	"fmt"
	"strings"
	"time"

	"rooda/host/agentstream"
	"rooda/host/shown"
	"rooda/host/units"
)

// Spend is what agents used: tokens as their CLIs reported them, and
// dollars, as the CLI reported them or the price table priced them.
type Spend struct {
	Tokens agentstream.Usage
	// CostUSD is known only when Costed: a model nobody priced is
	// tokens only, never a guessed price.
	CostUSD float64
	Costed  bool
}

// Add is s with t spent too; the cost stays known only if both are. A
// spend of nothing, on either side, changes nothing: an iteration whose
// agent could not start does not make the run's cost unknown.
func (s Spend) Add(t Spend) Spend {
	switch {
	case t.IsZero():
		return s
	case s.IsZero():
		return t
	}
	return Spend{Tokens: s.Tokens.Add(t.Tokens), CostUSD: s.CostUSD + t.CostUSD, Costed: s.Costed && t.Costed}
}

// IsZero reports whether nothing was spent, or nothing is known of it:
// no token, and no cost (a CLI that failed at once reports $0).
func (s Spend) IsZero() bool { return s.Tokens.IsZero() && s.CostUSD == 0 }

// TotalTokens counts every token: input, output, cache read and write.
func (s Spend) TotalTokens() int64 {
	u := s.Tokens
	return u.Input + u.Output + u.CacheRead + u.CacheWrite
}

// String is the spend as the progress lines show it: "1,234 tokens,
// $0.01", or "" when nothing is known.
func (s Spend) String() string {
	if s.IsZero() {
		return ""
	}
	parts := []string{shown.Thousands(s.TotalTokens()) + " tokens"}
	if s.Costed {
		parts = append(parts, units.Dollars(s.CostUSD))
	}
	return strings.Join(parts, ", ")
}

// Breakdown is the spend with its tokens by kind, as the summary and
// runs show write it: "1,234 tokens, $0.01 (input 1,000, output 234,
// cache read 0, cache write 0)"; "" when nothing is known.
func (s Spend) Breakdown() string {
	if s.IsZero() {
		return ""
	}
	u := s.Tokens
	return fmt.Sprintf("%s (input %s, output %s, cache read %s, cache write %s)",
		s, shown.Thousands(u.Input), shown.Thousands(u.Output), shown.Thousands(u.CacheRead), shown.Thousands(u.CacheWrite))
}

// Fields are the spend as a JSON event's fields.
func (s Spend) Fields() []any {
	if s.IsZero() {
		return nil
	}
	u := s.Tokens
	fields := []any{"input_tokens", u.Input, "output_tokens", u.Output, "cache_read_tokens", u.CacheRead, "cache_write_tokens", u.CacheWrite}
	if s.Costed {
		fields = append(fields, "cost_usd", s.CostUSD)
	}
	return fields
}

// Budget bounds what a run's agents spend: once what its other loops and
// this one spent reaches a limit, the loop ends, OverBudget; and how long
// the loop itself runs. 0 is no limit. Each is looked at as an iteration
// ends: the iteration running when one is passed runs to its end.
type Budget struct {
	MaxCostUSD  float64
	MaxTokens   int64
	MaxDuration time.Duration
	// Others, when set, is what the run's other loops have spent by now,
	// those that ended and those that run at once with this one
	// (parallel()), so that together they stay under the limits.
	Others func() Spend
}

// BudgetError is the budget a loop reached.
type BudgetError struct {
	Setting string // "max_cost_usd"
	Limit   string // "$2.00"
	Spent   string // "$2.13"
}

func (e *BudgetError) Error() string {
	if e.Setting == "max_duration" {
		return fmt.Sprintf("the loop ran %s, reaching max_duration %s", e.Spent, e.Limit)
	}
	return fmt.Sprintf("the run's agents spent %s, reaching %s %s", e.Spent, e.Setting, e.Limit)
}

// reached is the limit that spent total, before and in the loop,
// reaches, or that the loop's elapsed time passed, or nil.
func (b Budget) reached(loop Spend, elapsed time.Duration) *BudgetError {
	total := loop
	if b.Others != nil {
		total = b.Others().Add(loop)
	}
	switch {
	case b.MaxCostUSD > 0 && total.CostUSD >= b.MaxCostUSD:
		return &BudgetError{Setting: "max_cost_usd", Limit: units.Limit(b.MaxCostUSD), Spent: units.Dollars(total.CostUSD)}
	case b.MaxTokens > 0 && total.TotalTokens() >= b.MaxTokens:
		return &BudgetError{Setting: "max_tokens", Limit: shown.Thousands(b.MaxTokens) + " tokens", Spent: shown.Thousands(total.TotalTokens()) + " tokens"}
	case b.MaxDuration > 0 && elapsed >= b.MaxDuration:
		return &BudgetError{Setting: "max_duration", Limit: units.Duration(b.MaxDuration), Spent: units.Duration(elapsed)}
	}
	return nil
}
