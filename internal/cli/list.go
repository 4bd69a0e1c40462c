package cli

import (
	"io"

	"github.com/urfave/cli/v2"

	"rooda/host"
	"rooda/host/config"
	"rooda/host/libs"
	"rooda/host/session"
)

func listCommand() *cli.Command {
	return &cli.Command{
		Name:  "list",
		Usage: "list the procedures",
		Description: `Lists every procedure, built in or configured, with its summary, sorted by
name. A procedure in rooda-config.yml with a built-in's name replaces it
field by field.

Examples:
  rooda list
  rooda list --json | jq -r '.[].name'`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print a JSON array: name, display, summary, source, script"},
		},
		Action: func(c *cli.Context) error {
			if err := noArguments(c); err != nil {
				return err
			}
			cfg, err := loadConfig(c)
			if err != nil {
				return err
			}
			cfg.SummarizeScripts(host.Summary)
			if c.Bool("json") {
				return cfg.WriteListJSON(c.App.Writer)
			}
			return cfg.WriteList(c.App.Writer)
		},
	}
}

func infoCommand() *cli.Command {
	return &cli.Command{
		Name:      "info",
		Usage:     "describe a procedure: its fragments, its settings and their sources",
		ArgsUsage: "NAME",
		Description: `Shows what a procedure does, the fragments of each phase, the settings a run
would use with the source of each (built-in, global, workspace, env, cli),
and how to run it. Fails if a fragment is missing or a template is broken.
For a script: procedure it shows the script's path and docstring, and each
iterate() with the settings its dry run sees (the script runs as a dry run,
without arguments, to find them). Its git libraries are loaded as the cache
has them: info fetches nothing and writes no rooda.lock (rooda lib fetch does).

Examples:
  rooda info build
  rooda info build --ai-cmd-alias claude
  rooda info my-procedure --config ci/rooda-config.yml`,
		Flags: runSettingFlags(),
		Action: func(c *cli.Context) error {
			name, err := oneArgument(c, "NAME")
			if err != nil {
				return err
			}
			cfg, err := loadConfig(c)
			if err != nil {
				return err
			}
			cfg.SummarizeScripts(host.Summary)
			return cfg.WriteInfo(c.App.Writer, name, func(w io.Writer, path string) error {
				return describeScript(c, cfg, path, w)
			})
		},
	}
}

// describeScript runs a script procedure as a dry run that reports each
// iterate() to w in a few lines; nothing else it prints is shown. Its git
// libraries are used as the cache has them: describing fetches nothing.
func describeScript(c *cli.Context, cfg *config.Config, path string, w io.Writer) error {
	dirs, unready, err := cachedLibraries(c, cfg)
	if err != nil {
		return err
	}
	s := session.New(c.Context, session.Options{Config: cfg, DryRun: true, Describe: w, Stdout: io.Discard, Stderr: io.Discard})
	return s.DescribeScript(scriptOptions(s, nil, dirs, host.Options{Unready: unready}), path)
}

// cachedLibraries are the directories of the libraries as the cache has
// them, and why each git library the cache lacks cannot be loaded: for
// the commands that describe and fetch nothing.
func cachedLibraries(c *cli.Context, cfg *config.Config) (dirs map[string]string, unready map[string]string, err error) {
	m, err := libraryManager(c, cfg)
	if err != nil {
		return nil, nil, err
	}
	all, err := libs.WithFlags(cfg.Libraries, c.StringSlice("lib"))
	if err != nil {
		return nil, nil, err
	}
	return m.Cached(all)
}
