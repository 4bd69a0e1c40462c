package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"rooda/host/session"
	"rooda/host/suggest"
)

// run executes rooda with args (args[0] is the program name) and returns
// the process exit code. Data goes to stdout; errors and logs to stderr.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	app := newApp(stdout, stderr)
	app.Metadata = map[string]any{"args": args}
	if fleet, ok := fleetArgs(app, args); ok {
		return session.Report(stderr, logFormat(args), execFleet(fleet))
	}
	if isCompletion(args) {
		complete(ctx, app, args)
		return 0
	}
	parsed, err := moveFlagsFirst(app, withRunShorthand(app, args))
	if err == nil {
		err = app.RunContext(ctx, parsed)
	}
	if err == nil {
		return 0
	}
	return session.Report(stderr, logFormat(args), err)
}

// rooda has urfave/cli's help printer write the help in one write: its
// tabwriter writes each cell with a write(2) of its own (197 for rooda
// --help), and each wakes a pager reading the pipe.
func init() {
	print := cli.HelpPrinterCustom
	cli.HelpPrinterCustom = func(out io.Writer, templ string, data any, funcs map[string]any) {
		var b bytes.Buffer
		print(&b, templ, data, funcs)
		out.Write(b.Bytes())
	}
}

// newApp builds the command tree afresh: urfave/cli writes into commands
// as it runs them, so they are never shared between apps.
func newApp(stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:  "rooda",
		Usage: "run AI coding agents through OODA loops",
		Description: `rooda composes a prompt from markdown fragments (observe, orient, decide,
act), starts your AI coding agent's CLI with it on stdin, reads the agent's
<promise>SUCCESS</promise> or <promise>FAILURE</promise>, and decides
whether to go on.

Flags may come before or after arguments; "--" ends them.

Examples:
  rooda init                      set this repository up: the agent, rooda-config.yml, AGENTS.md
  rooda build                     run the build procedure (same as: rooda run build)
  rooda build --dry-run           its settings, checks and first prompt, running nothing
  rooda script run nightly.star   a procedure written in Starlark (script test, doc, repl too)
  rooda runs show last --iteration 2 --prompt
                                  the exact prompt the agent got in iteration 2
  rooda context add "focus on auth"
                                  more context for the run going on
  rooda fleet add build -n 5      queue a run for the fleet's workers (rooda fleet --help)
  rooda list                      the procedures you can run
  rooda info build                what build does and the settings it would use
  rooda config show               the merged configuration, with each value's source
  rooda fragments                 list every embedded fragment
  rooda fragments observe -l      list the observe fragments with their titles
  rooda version                   show the version (or: rooda --version)
  source <(rooda completion bash) complete commands, procedures and run ids`,
		Commands: []*cli.Command{initCommand(), runCommand(), scriptCommand(), libCommand(), runsCommand(), fleetCommand(), contextCommand(), listCommand(), infoCommand(), fragmentsCommand(), configCommand(), versionCommand(), completionCommand(), manCommand()},
		// --version is placed here, not only by urfave/cli as it starts, so that
		// moveFlagsFirst knows it: "rooda build --version".
		Flags:                append(configFlags(), cli.VersionFlag),
		Writer:               stdout,
		ErrWriter:            stderr,
		Suggest:              true,
		EnableBashCompletion: true,
		BashComplete:         completeTopLevel,
		Version:              versionOnly(),
		// --context "a, b" is one value: text is not a list.
		DisableSliceFlagSeparator: true,
		ExitErrHandler:            func(*cli.Context, error) {},
		OnUsageError:              usageError,
		Action:                    rootAction,
	}
	forEachCommand(app.Commands, func(c *cli.Command) { c.OnUsageError = usageError })
	return app
}

func forEachCommand(commands []*cli.Command, fn func(*cli.Command)) {
	for _, c := range commands {
		fn(c)
		forEachCommand(c.Subcommands, fn)
	}
}

// rootAction runs for "rooda" with no command, or with one rooda does not
// know.
func rootAction(c *cli.Context) error {
	if c.NArg() == 0 {
		return cli.ShowAppHelp(c)
	}
	name := c.Args().First()
	msg := fmt.Sprintf("unknown command %q", name)
	if near := suggest.Closest(name, commandNames(c.App.Commands)); near != "" {
		msg += "\n\nDid you mean: rooda " + near + "?"
	}
	return errors.New(msg + "\nRun 'rooda --help' to see the commands.")
}

// usageError reports a flag that could not be parsed as an error, instead
// of urfave/cli's habit of printing the whole help.
func usageError(c *cli.Context, err error, _ bool) error {
	return fmt.Errorf("%w\nRun '%s --help' for usage.", err, c.Command.HelpName)
}

func commandNames(commands []*cli.Command) []string {
	var names []string
	for _, c := range commands {
		if !c.Hidden {
			names = append(names, c.Names()...)
		}
	}
	return names
}
