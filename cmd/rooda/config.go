package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"rooda/host/config"
)

// configFlags are the app-wide flags that choose and adjust the
// configuration; every command that loads it honours them.
func configFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "config", Usage: "read `FILE` instead of ./rooda-config.yml (it must exist)"},
		&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "stream the agent's output (show_ai_output: true)"},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "log warnings and errors only (log_level: warn)"},
		&cli.StringFlag{Name: "log-level", Usage: "log `LEVEL`: debug, info, warn or error"},
		&cli.StringFlag{Name: "log-format", Usage: "log as `FORMAT`: text (lines) or json (an object per event, for CI and log aggregators)"},
	}
}

// runSettingFlags override a procedure's settings for one run.
func runSettingFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "max-iterations", Aliases: []string{"n"}, Usage: "stop after `N` iterations (N >= 1)", Category: "Loop"},
		&cli.BoolFlag{Name: "unlimited", Aliases: []string{"u"}, Usage: "no iteration limit: run until SUCCESS, the failure threshold or Ctrl+C", Category: "Loop"},
		&cli.StringFlag{Name: "iteration-timeout", Usage: "stop an iteration after `DURATION` (seconds, or 90s, 5m)", Category: "Loop"},
		&cli.StringFlag{Name: "failure-threshold", Usage: "abort after `N` consecutive failed iterations", Category: "Loop"},
		&cli.StringFlag{Name: "min-iterations", Usage: "let no success end the loop before iteration `N`, whoever declares it", Category: "Loop"},
		&cli.StringFlag{Name: "max-output-buffer", Usage: "keep the last `SIZE` of the agent's output (bytes, or 10MB)", Category: "Loop"},
		&cli.StringFlag{Name: "ai-cmd", Usage: "run the agent as `COMMAND` (a command line)", Category: "AI command"},
		&cli.StringFlag{Name: "ai-cmd-alias", Usage: "run the agent named `ALIAS` (claude, codex, gemini, …)", Category: "AI command"},
	}
}

// loadConfig loads every tier, with the command line's settings on top.
func loadConfig(c *cli.Context) (*config.Config, error) {
	if c.Bool("verbose") && c.Bool("quiet") {
		return nil, fmt.Errorf("--verbose and --quiet cannot be used together")
	}
	var flags []config.Flag
	for _, name := range config.FlagNames() {
		if isSet(c, name) {
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
	return config.LogFormat(config.Options{ConfigFile: file, Flags: flags})
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

// isSet reports whether the flag was given on this command or an
// enclosing one, and exists at all.
func isSet(c *cli.Context, name string) bool {
	for _, ctx := range c.Lineage() {
		if ctx.Command != nil && hasFlag(ctx.Command.Flags, name) && ctx.IsSet(name) {
			return true
		}
		if ctx.App != nil && ctx.Command == nil && hasFlag(ctx.App.Flags, name) && ctx.IsSet(name) {
			return true
		}
	}
	return false
}

func hasFlag(flags []cli.Flag, name string) bool {
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return true
			}
		}
	}
	return false
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
