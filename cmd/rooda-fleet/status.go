package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"rooda/host/fleet"
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
its workspace on that worker's machine.

Examples:
  rooda fleet status
  rooda fleet status --json | jq '.[] | select(.phase == "running")'`,
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the states as a JSON array"},
			serverFlag(), storeFlag(),
		}, credentialFlags()...),
		Action: func(c *cli.Context) error {
			f, err := connect(c)
			if err != nil {
				return err
			}
			defer f.Close()
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
				return enc.Encode(states)
			}
			return writeStates(c, states)
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
