package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"rooda/host/runpage"
)

// fleetProgram is the program of the fleet commands, beside rooda: it
// links NATS, which rooda does not, so that the server's and the
// client's packages initialise only when a fleet command runs
// (docs/design.md, "The fleet").
const fleetProgram = "rooda-fleet"

// fleetCommand names `rooda fleet` in rooda's help; run execs
// rooda-fleet for it before any of rooda's parsing (fleetArgs), so its
// flags and arguments are rooda-fleet's to read.
func fleetCommand() *cli.Command {
	return &cli.Command{
		Name:            "fleet",
		Usage:           "queue runs and work them on any number of workers (rooda fleet --help)",
		ArgsUsage:       "serve|add|worker|status ...",
		SkipFlagParsing: true,
		Action: func(c *cli.Context) error {
			return execFleet(c.Args().Slice())
		},
	}
}

// fleetArgs are the arguments of a fleet command, what follows "fleet",
// if args ask for one: "fleet" is the first argument that is not one of
// rooda's own flags (-q, --config FILE …), which mean nothing to the
// fleet's commands and are dropped. Found before rooda parses anything,
// so that the fleet command's flags are never taken for rooda's.
func fleetArgs(app *cli.App, args []string) ([]string, bool) {
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "fleet":
			return args[i+1:], true
		case a == "--" || !isFlag(a) || findFlag(app.Flags, flagName(a)) == nil:
			return nil, false
		case needsValue(app.Flags, a):
			i++ // its value
		}
	}
	return nil, false
}

// execFleet replaces rooda with rooda-fleet, given args, and the path of
// this rooda for the runs its workers start.
func execFleet(args []string) error {
	self, program, err := fleetProgramPath()
	if err != nil {
		return err
	}
	env := append(os.Environ(), "ROODA_FLEET_ROODA="+self)
	return fmt.Errorf("running %s: %w", program, syscall.Exec(program, append([]string{"rooda fleet"}, args...), env))
}

// fleetProgramPath is this rooda and the rooda-fleet beside it; an error
// that says how to install it when there is none.
func fleetProgramPath() (self, program string, err error) {
	self, err = os.Executable()
	if err != nil {
		return "", "", err
	}
	program = filepath.Join(filepath.Dir(self), fleetProgram)
	if _, err := os.Stat(program); errors.Is(err, fs.ErrNotExist) {
		return "", "", fmt.Errorf("rooda fleet runs %s, which is not beside rooda (%s): install it with rooda (go install ./cmd/... installs both)", fleetProgram, program)
	}
	return self, program, nil
}

// fleetStatus is runpage's FleetStatus: `rooda fleet status --json
// --with-accounts`, run
// by rooda-fleet with rooda's environment (ROODA_FLEET_SERVER and the
// fleet's credentials), asked anew each time.
func fleetStatus() (runpage.FleetStatus, error) {
	_, program, err := fleetProgramPath()
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) ([]byte, error) {
		// --served: a page polling must never start this machine's own
		// server, and take its store from a worker or an add.
		cmd := exec.CommandContext(ctx, program, "status", "--json", "--with-accounts", "--served")
		cmd.Args[0] = "rooda fleet"
		// Asked to stop, as a user's Ctrl+C would: one holding this
		// machine's store lets it go cleanly.
		cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
		cmd.WaitDelay = 5 * time.Second
		out, err := cmd.Output()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return nil, fmt.Errorf("rooda fleet status: %w: %s", err, strings.TrimSpace(string(exit.Stderr)))
		}
		return out, err
	}, nil
}
