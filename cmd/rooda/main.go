// Command rooda runs AI coding agents through OODA loops. This package only
// wires the command line to host/: it parses flags, calls the host, and
// turns errors into exit codes.
package main

import (
	"context"
	"os"

	"rooda/host/agent"
)

func main() {
	// rooda starts every process through host/agent, so it may reap
	// every orphan its agents leave.
	agent.AdoptOrphans()
	code := run(context.Background(), os.Args, os.Stdout, os.Stderr)
	// A run says what it stopped; whatever else a command's processes
	// left below rooda dies with it, not after it.
	agent.StopStragglers()
	os.Exit(code)
}
