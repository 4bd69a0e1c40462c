package ledger

import (
	"fmt"
	"strings"
	"time"
)

// Shown is an entry as `rooda fleet status` and the fleet's page show
// it, each column in words: "-" where it has nothing to say.
type Shown struct {
	Name, Limit, Budget, Spent, Reserved string
}

// Show is the entry of name in words, its limit or pause as of now.
func Show(name string, e Entry, now time.Time) Shown {
	s := Shown{Name: name, Limit: LimitState(name, e, now), Budget: "-", Spent: "-", Reserved: "-"}
	if e.Budget != nil {
		s.Budget = Ceilings(*e.Budget)
		s.Spent, s.Reserved = AmountText(e.SpentUSD, e.SpentTokens), AmountText(e.ReservedUSD, e.ReservedTokens)
	}
	return s
}

// LimitState says whether the account is limited or paused now, and
// until when; "-" when neither.
func LimitState(name string, e Entry, now time.Time) string {
	h := e.Held(name, now)
	switch {
	case h.Until.IsZero():
		return "-"
	case h.Paused:
		return "paused by the breaker until " + h.Until.Local().Format("15:04:05")
	}
	return "limited until " + h.Until.Local().Format("15:04:05") + " (" + strings.ReplaceAll(h.Cause, "_", " ") + ")"
}

// Ceilings says a budget: its ceilings and estimates, those it has.
func Ceilings(b Budget) string {
	var parts []string
	if b.MaxCostUSD > 0 {
		parts = append(parts, fmt.Sprintf("max_cost_usd $%.2f", b.MaxCostUSD))
	}
	if b.MaxTokens > 0 {
		parts = append(parts, fmt.Sprintf("max_tokens %d", b.MaxTokens))
	}
	if b.EstimateUSD > 0 {
		parts = append(parts, fmt.Sprintf("estimate $%.2f", b.EstimateUSD))
	}
	if b.EstimateTokens > 0 {
		parts = append(parts, fmt.Sprintf("estimate %d tokens", b.EstimateTokens))
	}
	if len(parts) == 0 {
		return "no ceiling"
	}
	return strings.Join(parts, ", ")
}

// AmountText says an amount in dollars and tokens.
func AmountText(usd float64, tokens int64) string {
	return fmt.Sprintf("$%.2f and %d tokens", usd, tokens)
}
