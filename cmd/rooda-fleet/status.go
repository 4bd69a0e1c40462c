package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"rooda/host/fleet"
	"rooda/host/ledger"
)

func statusCommand() *cli.Command {
	return &cli.Command{
		Name:  "status",
		Usage: "every run of the fleet: queued, running, and how each ended",
		Description: `Lists the fleet's runs, oldest queued first: each one's phase (queued,
running, ended), how it ended in the words of rooda runs list (success,
max-iters, aborted, interrupted, crashed…), its iterations and what they
spent (from its record, as its worker read it at its last renewal of the
lease), how many workers took it, the worker that holds or held it, and
its workspace on that worker's machine. Then the accounts' ledger: each
account's limit (limited until the reset a loop of it met, paused by the
breaker until its backoff ends) and, for the fleet and each account with
a budget, its ceilings and what is spent and reserved against them.

--accounts lists the accounts alone; with --json, as a JSON object of
the entries by account name (the fleet's own budget is "@fleet").
--json --with-accounts prints both as one object, {"runs": [...],
"accounts": {...}}, as the page of rooda runs serve --fleet reads them.

Examples:
  rooda fleet status
  rooda fleet status --json | jq '.[] | select(.phase == "running")'
  rooda fleet status --accounts --json`,
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the states as a JSON array"},
			&cli.BoolFlag{Name: "accounts", Usage: "list the accounts' ledger alone: limits, pauses, budgets"},
			&cli.BoolFlag{Name: "with-accounts", Usage: "with --json: one object, the states as \"runs\" and the accounts' ledger as \"accounts\" (what rooda runs serve --fleet reads)"},
			&cli.BoolFlag{Name: "served", Usage: "ask only a server that runs (--server, or this machine's rooda fleet serve): never start this machine's own, whose store a worker may hold"},
			serverFlag(), storeFlag(),
		}, credentialFlags()...),
		Action: func(c *cli.Context) error {
			if c.Bool("served") && c.String("server") == "" && !fleet.Served(c.String("store")) {
				return fmt.Errorf("no fleet server runs for this machine's store (%s): start one with rooda fleet serve, or name one with --server or ROODA_FLEET_SERVER", c.String("store"))
			}
			f, err := connect(c)
			if err != nil {
				return err
			}
			defer f.Close()
			accounts, err := f.Accounts().All(c.Context)
			if err != nil {
				return err
			}
			if c.Bool("accounts") {
				return writeAccounts(c, accounts)
			}
			states, err := f.States(c.Context)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				if states == nil {
					states = []fleet.State{}
				}
				enc := json.NewEncoder(c.App.Writer)
				enc.SetIndent("", "  ")
				if c.Bool("with-accounts") {
					return enc.Encode(map[string]any{"runs": states, "accounts": accounts})
				}
				return enc.Encode(states)
			}
			if err := writeStates(c, states); err != nil || len(accounts) == 0 {
				return err
			}
			fmt.Fprintln(c.App.Writer)
			return writeAccounts(c, accounts)
		},
	}
}

func writeStates(c *cli.Context, states []fleet.State) error {
	if len(states) == 0 {
		_, err := fmt.Fprintln(c.App.Writer, "No run in the fleet.")
		return err
	}
	tw := tabwriter.NewWriter(c.App.Writer, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tPHASE\tSTATUS\tITERATIONS\tSPENT\tATTEMPT\tWORKER\tWORKSPACE")
	for _, st := range states {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%d\t%s\t%s\n", st.Run.Name, st.Phase, dash(st.Status), st.Iterations, spent(st.Progress), st.Attempt, dash(st.Worker), dash(st.Workspace))
	}
	return tw.Flush()
}

// spent is a run's spend: its cost where its agents said one, else its
// tokens.
func spent(p fleet.Progress) string {
	switch {
	case p.CostUSD > 0:
		return fmt.Sprintf("$%.4f", p.CostUSD)
	case p.Tokens > 0:
		return fmt.Sprintf("%d tokens", p.Tokens)
	}
	return "-"
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// writeAccounts lists the accounts' ledger: each account's limit or
// pause, and the budgets with what is spent and reserved against them.
func writeAccounts(c *cli.Context, accounts map[string]ledger.Entry) error {
	if c.Bool("json") {
		enc := json.NewEncoder(c.App.Writer)
		enc.SetIndent("", "  ")
		return enc.Encode(accounts)
	}
	if len(accounts) == 0 {
		_, err := fmt.Fprintln(c.App.Writer, "No account in the fleet's ledger.")
		return err
	}
	now := time.Now()
	tw := tabwriter.NewWriter(c.App.Writer, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ACCOUNT\tLIMIT\tBUDGET\tSPENT\tRESERVED")
	for _, name := range slices.Sorted(maps.Keys(accounts)) {
		s := ledger.Show(name, accounts[name], now)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.Name, s.Limit, s.Budget, s.Spent, s.Reserved)
	}
	return tw.Flush()
}
