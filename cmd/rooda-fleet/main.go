// Command rooda-fleet is `rooda fleet`: rooda execs it, beside its own
// executable, for every fleet command. It is a program of its own because
// it links NATS (the embedded server and the client, host/fleet), whose
// packages would otherwise initialise at every start of rooda, fleet or
// not (docs/design.md, "The fleet").
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"syscall"

	"github.com/urfave/cli/v2"

	"rooda/host/fleet"
	"rooda/host/ledger"
	// The OTLP exporters, for a worker's traces (telemetry.StartProcess).
	_ "rooda/host/telemetry/otlp"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// completeFlag is the last argument of a completion request, which rooda
// passes on as the shell typed it.
const completeFlag = "--generate-bash-completion"

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	// After a "--", urfave/cli stops completing and would run the
	// command: a TAB must never queue a run or start a worker.
	if len(args) > 1 && args[len(args)-1] == completeFlag && slices.Contains(args, "--") {
		return 0
	}
	app := &cli.App{
		Name:  "rooda fleet",
		Usage: "queue runs and work them on any number of workers (NATS JetStream)",
		Description: `A fleet queues runs of rooda (a procedure or a script with its arguments,
as rooda run and rooda script run take them) and hands each to one worker,
which runs it in a workspace of its own: a git worktree of the checkout the
run was queued from, at the commit it was queued at, on the branch
rooda/fleet/NAME. A worker holds a lease on its run while it goes on; a
worker that dies loses it, and another takes the run and resumes it from
its record.

The fleet's state lives in NATS JetStream: in the server every command
names with --server (or ROODA_FLEET_SERVER), else in this machine's
embedded one, whose files are under --store. A command given no server
connects to the one "rooda fleet serve" runs on this machine, or starts one
in its own process when none does.

Examples:
  rooda fleet serve &                          the server, for the workers of this machine
  rooda fleet add build -n 5                   queue the build procedure, 5 iterations at most
  rooda fleet add --name nightly nightly.star  queue a script under a name of your own
  rooda fleet worker --slots 3                 work the queued runs, 3 at a time
  rooda fleet status                           every run of the fleet: queued, running, ended
  rooda fleet budget --max-cost-usd 50         a ceiling on what every run of the fleet spends
  rooda fleet worker --server nats://fleet.example.org:4222`,
		Commands:        []*cli.Command{serveCommand(), addCommand(), workerCommand(), statusCommand(), budgetCommand()},
		Writer:          stdout,
		ErrWriter:       stderr,
		HideHelpCommand: true,
		// Completion requests are answered, never run (rooda's bash,
		// zsh and fish scripts ask rooda, which execs this program).
		EnableBashCompletion: true,
		ExitErrHandler:       func(*cli.Context, error) {},
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return fmt.Errorf("%w\nRun '%s --help' for usage.", err, c.Command.HelpName)
		},
	}
	for _, c := range app.Commands {
		c.OnUsageError = app.OnUsageError
	}
	err := app.RunContext(ctx, args)
	if err == nil {
		return 0
	}
	var exit cli.ExitCoder
	if errors.As(err, &exit) {
		fmt.Fprintln(stderr, "Error:", err)
		return exit.ExitCode()
	}
	fmt.Fprintln(stderr, "Error:", err)
	return 1
}

// serverFlag and storeFlag are every command's: where the fleet is.
func serverFlag() cli.Flag {
	return &cli.StringFlag{Name: "server", EnvVars: []string{"ROODA_FLEET_SERVER"}, Usage: "the fleet's NATS server, `URL` (nats://HOST:PORT); none: this machine's embedded one"}
}

// credentialFlags are every client's (add, worker, status): what it
// shows a NATS server of your own beside what --server's URL holds, by
// NATS's own means.
func credentialFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "creds", EnvVars: []string{"ROODA_FLEET_CREDS"}, Usage: "a NATS creds `FILE` (a user's JWT and nkey seed) for the server"},
		&cli.StringFlag{Name: "tls-ca", EnvVars: []string{"ROODA_FLEET_TLS_CA"}, Usage: "the server's certificate authorities, a PEM `FILE` (default: the system's)"},
		&cli.StringFlag{Name: "tls-cert", EnvVars: []string{"ROODA_FLEET_TLS_CERT"}, Usage: "a client certificate, a PEM `FILE`, for a server that asks for one (with --tls-key)"},
		&cli.StringFlag{Name: "tls-key", EnvVars: []string{"ROODA_FLEET_TLS_KEY"}, Usage: "the client certificate's key, a PEM `FILE`"},
	}
}

// connect connects to the fleet the command's flags name.
func connect(c *cli.Context) (*fleet.Fleet, error) {
	return fleet.ConnectWith(c.Context, c.String("server"), c.String("store"), fleet.Credentials{
		CredsFile: c.String("creds"),
		CA:        c.String("tls-ca"),
		Cert:      c.String("tls-cert"),
		Key:       c.String("tls-key"),
	})
}

func storeFlag() cli.Flag {
	return &cli.StringFlag{Name: "store", Value: defaultStore(), DefaultText: "${XDG_STATE_HOME:-~/.local/state}/rooda/fleet", Usage: "the embedded server's files, `DIR`"}
}

// defaultStore is the fleet's directory under the user's state
// directory.
func defaultStore() string {
	dir, err := ledger.StateDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "rooda-fleet")
	}
	return filepath.Join(dir, "fleet")
}
