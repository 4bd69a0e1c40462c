// Command rooda runs AI coding agents through OODA loops. This package only
// wires the command line to host/: it parses flags, calls the host, and
// turns errors into exit codes.
package main

import (
	"context"
	"fmt"
	"os"

	"rooda/host/agent"
)

func main() {
	// rooda starts every process through host/agent, so it may reap
	// every orphan its agents leave.
	agent.AdoptOrphans()
	code := run(context.Background(), os.Args, os.Stdout, os.Stderr)
	// Whatever an agent left running where no tag tells whose it is dies
	// with rooda, not after it.
	if left := agent.StopStragglers(); len(left) > 0 {
		fmt.Fprintf(os.Stderr, "WARN: stopped %d processes still running below rooda as it exited: %s\n", len(left), agent.ProcessList(left))
	}
	os.Exit(code)
}
