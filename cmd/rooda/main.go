// Command rooda runs AI coding agents through OODA loops: the command
// line of internal/cli.
package main

import "rooda/internal/cli"

func main() { cli.Main() }
