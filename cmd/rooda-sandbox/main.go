// Command rooda-sandbox is the trampoline of rooda's agents: rooda starts
// each agent as "rooda-sandbox __sandbox -- AGENT ARGS…", its rules in the
// environment, and rooda-sandbox restricts itself as they say (Landlock,
// the mounts that hide rooda's records and guard git, the network
// namespace's listeners, root's capabilities) and execs the agent in the
// same process (host/sandbox/confine).
//
// It also serves as the guard that stops the agents rooda started from a
// confined thread if rooda dies ("rooda-sandbox __sandbox --guard PID
// START", process.GuardMain).
//
// It is rooda's own trampoline mode in a program of its own because it
// starts on every iteration: it links the package confine and little
// else, and so starts in a fraction of rooda's time. Install it beside
// rooda (go install rooda/cmd/... installs both); without it, rooda
// starts its agents through itself, as safely and more slowly.
package main

import (
	"os"

	"rooda/host/process"
	"rooda/host/sandbox/confine"
)

func main() {
	args := os.Args[1:]
	// rooda names the mode first, whichever program it runs.
	if len(args) > 0 && args[0] == confine.Arg {
		args = args[1:]
	}
	if len(args) > 0 && args[0] == process.GuardArg {
		process.GuardMain(args[1:])
	}
	confine.Main(args)
}
