package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/urfave/cli/v2"
)

// fleetProgram is the program of the fleet commands, beside rooda: it
// links NATS, which rooda does not, so that the server's and the
// client's packages initialise only when a fleet command runs
// (docs/design.md, "The fleet").
const fleetProgram = "rooda-fleet"

// fleetCommand names `rooda fleet` in rooda's help; run execs
// rooda-fleet for it before any of rooda's parsing, so its flags and
// arguments are rooda-fleet's to read.
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

// isFleet reports whether args ask for a fleet command.
func isFleet(args []string) bool { return len(args) > 1 && args[1] == "fleet" }

// execFleet replaces rooda with rooda-fleet, given args, and the path of
// this rooda for the runs its workers start.
func execFleet(args []string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	program := filepath.Join(filepath.Dir(self), fleetProgram)
	if _, err := os.Stat(program); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("rooda fleet runs %s, which is not beside rooda (%s): install it with rooda (go install ./cmd/... installs both)", fleetProgram, program)
	}
	env := append(os.Environ(), "ROODA_FLEET_ROODA="+self)
	return fmt.Errorf("running %s: %w", program, syscall.Exec(program, append([]string{"rooda fleet"}, args...), env))
}
