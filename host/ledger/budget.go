package ledger

import (
	"context"
	"fmt"
)

// FleetEntry is the name of the entry of the fleet as a whole, whose
// budget every iteration of every account counts against ("@", which
// no CLI's name begins with, keeps it apart from the accounts).
const FleetEntry = "@fleet"

// Budget is a ceiling on what an entry's loops spend, in dollars and in
// tokens (0: none), and what an iteration is expected to cost before
// one has been counted (Estimate…).
type Budget struct {
	MaxCostUSD     float64 `json:"max_cost_usd,omitempty"`
	MaxTokens      int64   `json:"max_tokens,omitempty"`
	EstimateUSD    float64 `json:"estimate_usd,omitempty"`
	EstimateTokens int64   `json:"estimate_tokens,omitempty"`
}

// Spending is what an entry's loops have spent (settled), what the
// iterations going on hold (reserved), and the most one iteration spent,
// which the next iteration of any loop is expected to cost.
type Spending struct {
	SpentUSD       float64 `json:"spent_usd,omitempty"`
	ReservedUSD    float64 `json:"reserved_usd,omitempty"`
	SpentTokens    int64   `json:"spent_tokens,omitempty"`
	ReservedTokens int64   `json:"reserved_tokens,omitempty"`
	LargestUSD     float64 `json:"largest_usd,omitempty"`
	LargestTokens  int64   `json:"largest_tokens,omitempty"`
}

// Amount is what an iteration reserves or spends.
type Amount struct {
	USD    float64
	Tokens int64
}

// cents' fractions: a sum of dollars in floating point is not exact
// ($0.40 × 3 is 1.2000000000000002), and a reservation that fits to the
// cent must not be refused for it.
const epsilonUSD = 1e-9

// RefusedError is a reservation a budget cannot fit: the iteration is
// not started.
type RefusedError struct {
	// Entry names the budget's entry: "the fleet", "account team".
	Entry   string
	Setting string // max_cost_usd, max_tokens
	Limit   string
	// Spent and Reserved are the entry's, Counted the two together;
	// Asked what the iteration would have reserved.
	Spent, Reserved, Counted, Asked string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("%s's %s is %s: spent %s, reserved %s by iterations going on; the next iteration, expected to cost %s, does not fit",
		e.Entry, e.Setting, e.Limit, e.Spent, e.Reserved, e.Asked)
}

// expected is what the next iteration of an entry's loops is expected
// to cost: the most one has cost so far, else the budget's estimate.
func (e *Entry) expected() Amount {
	b := e.budget()
	return Amount{USD: max(e.LargestUSD, b.EstimateUSD), Tokens: max(e.LargestTokens, b.EstimateTokens)}
}

func (e *Entry) budget() Budget {
	if e.Budget == nil {
		return Budget{}
	}
	return *e.Budget
}

// reserve reserves a of e's budget; the refusal when it does not fit.
func (e *Entry) reserve(a Amount, name string) *RefusedError {
	b := e.budget()
	refused := func(setting, limit, spent, reserved, counted, asked string) *RefusedError {
		return &RefusedError{Entry: name, Setting: setting, Limit: limit, Spent: spent, Reserved: reserved, Counted: counted, Asked: asked}
	}
	if b.MaxCostUSD > 0 && e.SpentUSD+e.ReservedUSD+a.USD > b.MaxCostUSD+epsilonUSD {
		return refused("max_cost_usd", dollars(b.MaxCostUSD), dollars(e.SpentUSD), dollars(e.ReservedUSD), dollars(e.SpentUSD+e.ReservedUSD), dollars(a.USD))
	}
	if b.MaxTokens > 0 && e.SpentTokens+e.ReservedTokens+a.Tokens > b.MaxTokens {
		return refused("max_tokens", tokens(b.MaxTokens), tokens(e.SpentTokens), tokens(e.ReservedTokens), tokens(e.SpentTokens+e.ReservedTokens), tokens(a.Tokens))
	}
	e.ReservedUSD += a.USD
	e.ReservedTokens += a.Tokens
	return nil
}

// settle gives back reserved and counts spent.
func (e *Entry) settle(reserved, spent Amount) {
	e.ReservedUSD = max(e.ReservedUSD-reserved.USD, 0)
	e.ReservedTokens = max(e.ReservedTokens-reserved.Tokens, 0)
	if e.ReservedUSD < epsilonUSD {
		e.ReservedUSD = 0
	}
	e.SpentUSD += spent.USD
	e.SpentTokens += spent.Tokens
	e.LargestUSD = max(e.LargestUSD, spent.USD)
	e.LargestTokens = max(e.LargestTokens, spent.Tokens)
}

func dollars(usd float64) string { return fmt.Sprintf("$%.2f", usd) }
func tokens(n int64) string      { return fmt.Sprintf("%d tokens", n) }

// Reservation is what one iteration holds of the budgets it counts
// against, given back as it is settled.
type Reservation struct {
	store Store
	held  map[string]Amount
	// budgeted are the entries that have a budget, which the settling
	// counts in: an entry without one is not written at all.
	budgeted []string
}

// Reserve reserves, for the next iteration of a loop of account, what it
// is expected to cost against the fleet's budget and the account's,
// each by compare-and-set: of loops reserving at once, those that fit
// under a ceiling get their part, the others are refused
// (*RefusedError), never more than the ceiling reserved and spent. An
// entry with no budget holds nothing, but still learns what iterations
// cost when they are settled.
func Reserve(ctx context.Context, s Store, account string) (*Reservation, error) {
	r := &Reservation{store: s, held: map[string]Amount{}}
	if f, ok := s.(*File); ok && f.Unbudgeted {
		return r, nil
	}
	for _, name := range []string{FleetEntry, account} {
		var refused *RefusedError
		budgeted := false
		_, err := Update(ctx, s, name, func(e *Entry) bool {
			// A try whose write another's beat reserved nothing.
			refused = nil
			delete(r.held, name)
			if budgeted = e.Budget != nil; !budgeted {
				return false
			}
			a := e.expected()
			if refused = e.reserve(a, entryWords(name)); refused != nil {
				return false
			}
			r.held[name] = a
			return true
		})
		if budgeted {
			r.budgeted = append(r.budgeted, name)
		}
		if err == nil && refused != nil {
			err = refused
		}
		if err != nil {
			r.Settle(context.WithoutCancel(ctx), Amount{})
			return nil, err
		}
	}
	return r, nil
}

// Settle gives back what r held and counts what the iteration spent, in
// every entry it counts against.
func (r *Reservation) Settle(ctx context.Context, spent Amount) error {
	var errs []error
	for _, name := range r.budgeted {
		held := r.held[name]
		_, err := Update(ctx, r.store, name, func(e *Entry) bool {
			e.settle(held, spent)
			return true
		})
		if err != nil {
			errs = append(errs, err)
		}
	}
	r.held = map[string]Amount{}
	if len(errs) > 0 {
		return errs[0]
	}
	return nil
}

// SetBudget sets the budget of an entry (FleetEntry: the fleet's); nil
// takes it away.
func SetBudget(ctx context.Context, s Store, name string, b *Budget) (Entry, error) {
	return Update(ctx, s, name, func(e *Entry) bool {
		e.Budget = b
		return true
	})
}

func entryWords(name string) string {
	if name == FleetEntry {
		return "the fleet"
	}
	return "account " + name
}
