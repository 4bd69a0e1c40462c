package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"rooda/host/ledger"
)

func budgetCommand() *cli.Command {
	return &cli.Command{
		Name:  "budget",
		Usage: "set the fleet's budget, or an account's: a ceiling on what its runs spend",
		Description: `Sets a ceiling on what every run of the fleet spends (or, with --account,
every run of that account), kept in the fleet's ledger so that every
worker counts against the same one. Before each iteration, its loop
reserves what the iteration is expected to cost: the most one iteration
has cost so far under that budget, else --estimate-usd/--estimate-tokens.
An iteration that cannot fit is not started: its run ends over budget
(exit 2) and says which budget refused it. After the iteration, the
reservation is settled with what it spent. Reservations are made by
compare-and-set, so the spent and reserved together never pass the
ceiling.

Given no value, it prints the budget as it is. A value of 0 takes that
ceiling away; --clear takes the whole budget away, with what was spent and
reserved against it (a reservation whose run was killed before it settled
it is held until then).

Examples:
  rooda fleet budget --max-cost-usd 50 --estimate-usd 0.50
  rooda fleet budget --account claude --max-tokens 20000000
  rooda fleet budget --clear`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "account", Usage: "the account's budget, `NAME` (an alias's account:); none: the fleet's"},
			&cli.Float64Flag{Name: "max-cost-usd", Usage: "spend at most `DOLLARS`"},
			&cli.Int64Flag{Name: "max-tokens", Usage: "spend at most `N` tokens"},
			&cli.Float64Flag{Name: "estimate-usd", Usage: "what an iteration is expected to cost, `DOLLARS`, until one has been counted"},
			&cli.Int64Flag{Name: "estimate-tokens", Usage: "the tokens an iteration is expected to spend, `N`, until one has been counted"},
			&cli.BoolFlag{Name: "clear", Usage: "take the budget away"},
			serverFlag(), storeFlag(),
		}, credentialFlags()...),
		Action: budgetAction,
	}
}

func budgetAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return fmt.Errorf("fleet budget takes no argument, got %q", c.Args().First())
	}
	f, err := connect(c)
	if err != nil {
		return err
	}
	defer f.Close()
	name := ledger.FleetEntry
	if c.IsSet("account") {
		name = c.String("account")
	}
	e, err := ledger.Update(c.Context, f.Accounts(), name, func(e *ledger.Entry) bool {
		return changeBudget(c, e)
	})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(c.App.Writer, budgetLine(name, e))
	return err
}

// changeBudget sets what the flags give of e's budget; false when they
// give nothing.
func changeBudget(c *cli.Context, e *ledger.Entry) bool {
	if c.Bool("clear") {
		// What was spent and reserved goes too: a reservation whose
		// rooda was killed before it settled it is held until then.
		e.Budget, e.Spending = nil, ledger.Spending{}
		return true
	}
	b := ledger.Budget{}
	if e.Budget != nil {
		b = *e.Budget
	}
	changed := false
	for flag, set := range map[string]func(){
		"max-cost-usd":    func() { b.MaxCostUSD = c.Float64("max-cost-usd") },
		"max-tokens":      func() { b.MaxTokens = c.Int64("max-tokens") },
		"estimate-usd":    func() { b.EstimateUSD = c.Float64("estimate-usd") },
		"estimate-tokens": func() { b.EstimateTokens = c.Int64("estimate-tokens") },
	} {
		if c.IsSet(flag) {
			set()
			changed = true
		}
	}
	if changed {
		e.Budget = &b
	}
	return changed
}

// budgetLine says an entry's budget and what was spent and is reserved
// against it.
func budgetLine(name string, e ledger.Entry) string {
	who := "The fleet"
	if name != ledger.FleetEntry {
		who = "Account " + name
	}
	if e.Budget == nil {
		return who + ": no budget."
	}
	return fmt.Sprintf("%s: %s; spent %s, reserved %s.", who, ledger.Ceilings(*e.Budget), ledger.AmountText(e.SpentUSD, e.SpentTokens), ledger.AmountText(e.ReservedUSD, e.ReservedTokens))
}
