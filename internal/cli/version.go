package cli

import (
	"fmt"
	"io"
	"runtime/debug"

	"github.com/urfave/cli/v2"
)

// Set at build time: go build -ldflags "-X rooda/internal/cli.version=v1.2.3 -X rooda/internal/cli.commit=… -X rooda/internal/cli.built=…".
// When left empty they come from the build information Go records.
var version, commit, built string

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "show rooda's version, commit and build time",
		Description: `Examples:
  rooda version`,
		Action: func(c *cli.Context) error {
			writeVersion(c.App.Writer)
			return nil
		},
	}
}

// urfave/cli's own --version (its default alias -v is rooda's --verbose)
// prints what "rooda version" prints. Set once, before any app runs: they
// are urfave/cli's package variables.
func init() {
	cli.VersionFlag = &cli.BoolFlag{Name: "version", Aliases: []string{"V"}, Usage: "show the version, as 'rooda version' does"}
	cli.VersionPrinter = func(c *cli.Context) { writeVersion(c.App.Writer) }
}

func writeVersion(w io.Writer) {
	v, cm, b := buildInfo()
	fmt.Fprintf(w, "Version: %s\nCommit:  %s\nBuilt:   %s\n", v, cm, b)
}

// versionOnly is the version alone. urfave/cli offers --version only to an
// app that has one.
func versionOnly() string {
	v, _, _ := buildInfo()
	return v
}

// buildInfo returns the version, commit and build time, from the linker
// flags if set, else from what the Go toolchain recorded.
func buildInfo() (v, cm, b string) {
	v, cm, b = version, commit, built
	if info, ok := debug.ReadBuildInfo(); ok {
		if v == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			v = info.Main.Version
		}
		for _, s := range info.Settings {
			switch {
			case s.Key == "vcs.revision" && cm == "":
				cm = s.Value
			case s.Key == "vcs.time" && b == "":
				b = s.Value
			}
		}
	}
	return or(v, "dev"), or(cm, "unknown"), or(b, "unknown")
}

func or(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}
