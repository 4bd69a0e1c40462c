package cli

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"rooda/host/config"
)

// configFlags are the app-wide flags that choose and adjust the
// configuration; every command that loads it honours them.
func configFlags() []cli.Flag {
	return append([]cli.Flag{
		&cli.StringFlag{Name: "config", Usage: "read `FILE` instead of ./rooda-config.yml (it must exist)"},
	}, settingFlags(config.ForAll)...)
}

// runSettingFlags override a procedure's settings for one run.
func runSettingFlags() []cli.Flag { return settingFlags(config.ForRuns) }

// globalFlagsFirst are the global options that the help has always
// listed first; urfave/cli keeps the order of the global options as
// given, and sorts the others within their category.
var globalFlagsFirst = []string{"verbose", "quiet"}

// settingFlags are the flags of the table of settings that commands of
// use take.
func settingFlags(use config.FlagUse) []cli.Flag {
	var defs []config.FlagDef
	for f := range config.Flags() {
		if f.For == use {
			defs = append(defs, f)
		}
	}
	slices.SortStableFunc(defs, func(a, b config.FlagDef) int {
		return cmp.Compare(placeFirst(a.Name), placeFirst(b.Name))
	})
	out := make([]cli.Flag, len(defs))
	for i, f := range defs {
		out[i] = cliFlag(f)
	}
	return out
}

// placeFirst is a flag's place among globalFlagsFirst; after them all for
// any other.
func placeFirst(name string) int {
	if i := slices.Index(globalFlagsFirst, name); i >= 0 {
		return i
	}
	return len(globalFlagsFirst)
}

// cliFlag is a setting's flag for urfave/cli: a switch, or a flag that
// takes text for the setting's parser.
func cliFlag(f config.FlagDef) cli.Flag {
	var aliases []string
	if f.Alias != "" {
		aliases = []string{f.Alias}
	}
	if f.Sets != "" {
		return &cli.BoolFlag{Name: f.Name, Aliases: aliases, Usage: f.Usage, Category: f.Category}
	}
	return &cli.StringFlag{Name: f.Name, Aliases: aliases, Usage: f.Usage, Category: f.Category}
}

// loadConfig loads every tier, with the command line's settings on top.
func loadConfig(c *cli.Context) (*config.Config, error) {
	if c.Bool("verbose") && c.Bool("quiet") {
		return nil, fmt.Errorf("--verbose and --quiet cannot be used together")
	}
	var flags []config.Flag
	given := givenFlags(c)
	for _, name := range config.FlagNames() {
		if given[name] {
			flags = append(flags, config.Flag{Name: name, Value: fmt.Sprint(c.Value(name))})
		}
	}
	return config.Load(config.Options{ConfigFile: c.String("config"), Flags: flags})
}

// logFormat is the log format of rooda's final error, as far as the
// command line and the configuration's tiers that can be read tell it:
// the error may be that the command line could not be parsed, or the
// configuration loaded, so both are read from args, leniently.
func logFormat(args []string) string {
	var flags []config.Flag
	if format, ok := rawFlag(args, "log-format"); ok {
		flags = append(flags, config.Flag{Name: "log-format", Value: format})
	}
	file, _ := rawFlag(args, "config")
	return config.LogFormatOf(config.Options{ConfigFile: file, Flags: flags})
}

// rawFlag is the value of the last flag named name in args ("--name V",
// "--name=V"), before any "--", read without the flags' definitions.
func rawFlag(args []string, name string) (value string, found bool) {
	for i := 1; i < len(args) && args[i] != "--"; i++ {
		a := args[i]
		if !isFlag(a) || flagName(a) != name {
			continue
		}
		if _, v, ok := strings.Cut(a, "="); ok {
			value, found = v, true
		} else if i+1 < len(args) {
			value, found = args[i+1], true
			i++
		}
	}
	return value, found
}

// givenFlags is every name of every flag given on c's command or an
// enclosing one, and defined there. It reads each flag's names once:
// asking cli.Context.IsSet of each setting read every flag's names again
// for each, which urfave/cli cleans with a regular expression (2.6% of a
// start of rooda list's samples). urfave/cli gives every context a
// Command, the top one its app's flags.
func givenFlags(c *cli.Context) map[string]bool {
	given := map[string]bool{}
	for _, ctx := range c.Lineage() {
		local := ctx.LocalFlagNames()
		if len(local) == 0 {
			continue
		}
		if ctx.Command == nil {
			continue
		}
		for _, f := range ctx.Command.Flags {
			names := f.Names()
			if slices.ContainsFunc(names, func(n string) bool { return slices.Contains(local, n) }) {
				for _, n := range names {
					given[n] = true
				}
			}
		}
	}
	return given
}

func configCommand() *cli.Command {
	return &cli.Command{
		Name:  "config",
		Usage: "show the merged configuration",
		Subcommands: []*cli.Command{{
			Name:  "show",
			Usage: "print the merged configuration as YAML, each value with its source",
			Description: `Merges the built-in defaults, the global file, the workspace file, the
ROODA_* environment variables and the flags given, and prints the result as
YAML rooda can read back. A comment after each value says where it came from.

Examples:
  rooda config show
  rooda config show --config ci/rooda-config.yml
  ROODA_LOOP_FAILURE_THRESHOLD=5 rooda config show | grep failure_threshold`,
			Action: func(c *cli.Context) error {
				cfg, err := loadConfig(c)
				if err != nil {
					return err
				}
				return cfg.WriteYAML(c.App.Writer)
			},
		}},
	}
}
