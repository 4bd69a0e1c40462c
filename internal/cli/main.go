// Package cli is rooda's command line, which runs AI coding agents
// through OODA loops. It only wires the command line to host/: it parses
// flags, calls the host, and turns errors into exit codes. The programs
// of cmd/ run it (Main).
package cli

import (
	"context"
	"os"

	"rooda/host/process"
	"rooda/host/sandbox"
)

// Main runs rooda with the program's arguments, and exits.
func Main() {
	// Run as a confined agent's trampoline (where no rooda-sandbox lies
	// beside it), rooda restricts itself and execs the agent, and goes no
	// further; else it notes the trampoline its agents start through.
	sandbox.Serve()
	// A command to be traced is rooda-full's, which this rooda becomes
	// before anything starts.
	exportersOrWarn()
	// rooda starts every process through host/process, so it may reap
	// every orphan its agents leave.
	process.AdoptOrphans()
	code := run(context.Background(), os.Args, os.Stdout, os.Stderr)
	// A run says what it stopped; whatever else a command's processes
	// left below rooda dies with it, not after it.
	process.StopStragglers()
	os.Exit(code)
}
