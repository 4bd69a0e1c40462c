package cli

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"rooda/fragments"
	"rooda/host/prompt"
	"rooda/host/suggest"
)

func fragmentsCommand() *cli.Command {
	return &cli.Command{
		Name:      "fragments",
		Usage:     "list the embedded prompt fragments",
		ArgsUsage: "[PHASE]",
		Description: `Lists the fragments built into rooda, one builtin: path per line, phase by
phase (observe, orient, decide, act), in the order an agent would use them.
Use a path as it is in a procedure: - path: "builtin:fragments/observe/read_specs.md"

Examples:
  rooda fragments                     every fragment
  rooda fragments act                 the act phase only
  rooda fragments observe --long      with each fragment's title
  rooda fragments | grep test`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "long", Aliases: []string{"l"}, Usage: "show each fragment's title after its path, separated by a tab"},
		},
		Action: listFragments,
	}
}

func listFragments(c *cli.Context) error {
	phases, err := phasesToList(arguments(c))
	if err != nil {
		return err
	}
	w := c.App.Writer
	for _, phase := range phases {
		for _, name := range fragments.Names(phase) {
			ref := fragments.Ref(phase, name)
			if c.Bool("long") {
				text, _ := fragments.Read(ref)
				fmt.Fprintf(w, "%s\t%s\n", ref, title(text))
			} else {
				fmt.Fprintln(w, ref)
			}
		}
	}
	return nil
}

// phasesToList returns the phases the arguments ask for: all when none.
func phasesToList(args []string) ([]string, error) {
	switch len(args) {
	case 0:
		return prompt.PhaseNames(), nil
	case 1:
		if _, ok := prompt.ParsePhase(args[0]); ok {
			return args, nil
		}
		msg := fmt.Sprintf("unknown phase %q: want one of %s", args[0], strings.Join(prompt.PhaseNames(), ", "))
		if near := suggest.Closest(args[0], prompt.PhaseNames()); near != "" {
			msg += fmt.Sprintf("\n\nDid you mean: rooda fragments %s", near)
		}
		return nil, fmt.Errorf("%s", msg)
	default:
		return nil, fmt.Errorf("fragments takes at most one PHASE, got %d arguments: %s", len(args), strings.Join(args, " "))
	}
}

// title returns a fragment's first markdown heading, without the marks.
func title(text string) string {
	for line := range strings.Lines(text) {
		if h, ok := strings.CutPrefix(line, "# "); ok {
			return strings.TrimSpace(h)
		}
	}
	return ""
}
