// Command rooda runs AI coding agents through OODA loops. This package only
// wires the command line to host/: it parses flags, calls the host, and
// turns errors into exit codes.
package main

import (
	"context"
	"os"
)

func main() {
	os.Exit(run(context.Background(), os.Args, os.Stdout, os.Stderr))
}
