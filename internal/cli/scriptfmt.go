package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"rooda/host"
	"rooda/host/files"
	"rooda/host/session"
	"rooda/host/shown"
	"rooda/host/starfmt"
)

func scriptFmtCommand() *cli.Command {
	return &cli.Command{
		Name:      "fmt",
		Usage:     "format scripts as buildifier formats Starlark",
		ArgsUsage: "FILE|DIR...",
		Description: `Formats each script (a directory: every .star file below it) as buildifier
formats a generic Starlark file, and lists the files it changed. A file is
replaced whole, keeping its mode and owner, or not at all; a read-only
one is left as it is, unless --force. Formatting a formatted file changes
nothing. Scripts are read as script run reads them: a file over 4 MiB or
a named pipe is refused, not read without end.

--check changes nothing: it lists the files that are not formatted and
exits 1 if there is one, for CI. A file that cannot be parsed is told as
file:line:col: message, and the exit code is 1.

Examples:
  rooda script fmt nightly.star
  rooda script fmt scripts/
  rooda script fmt -check scripts/`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "check", Usage: "change nothing: list the files that are not formatted, exit 1 if any"},
			&cli.BoolFlag{Name: "force", Usage: "format read-only files too (their mode is kept)"},
		},
		Action: scriptFmtAction,
	}
}

func scriptLintCommand() *cli.Command {
	return &cli.Command{
		Name:      "lint",
		Usage:     "report buildifier's warnings and script check's problems",
		ArgsUsage: "FILE|DIR...",
		Description: `Reports what buildifier's warnings for generic Starlark find in each script
(a directory: every .star file below it), with everything script check
finds, one line each, "file:line:col: category: message", sorted. Exit 1
if there is any. script check's problems have the category check, its
warnings check-warning.

--warnings chooses buildifier's warnings: default, all or none, then
+name to add one and -name to remove one, separated by commas; a list of
names alone is exactly those. On by default:
  ` + checkNames(true) + `
Off by default:
  ` + checkNames(false) + `
A parameter a function does not use is not reported (a callback takes the
parameters rooda calls it with), nor a test_* function of a *_test.star
file without a docstring. A comment "# buildozer: disable=NAME" on a line
silences NAME there.

Examples:
  rooda script lint scripts/
  rooda script lint nightly.star --warnings -function-docstring
  rooda script lint team/helpers.star --warnings +module-docstring
  rooda script lint nightly.star --warnings none`,
		Flags: append(libFlags(),
			&cli.StringFlag{Name: "warnings", Value: "default", Usage: "buildifier's warnings: `LIST` such as default, all, none, -name, +name"}),
		Action: scriptLintAction,
	}
}

// checkNames are the names of the checks on by default, or of the
// others, wrapped for a help text.
func checkNames(on bool) string {
	return strings.ReplaceAll(shown.Wrap(strings.Join(starfmt.CheckNames(on), ", "), 72), "\n", "\n  ")
}

// scriptPaths are the FILE|DIR arguments of fmt and lint, as .star files.
func scriptPaths(c *cli.Context) ([]string, error) {
	paths, err := someArguments(c, "FILE or DIR")
	if err != nil {
		return nil, err
	}
	return host.StarFiles(paths)
}

func scriptFmtAction(c *cli.Context) error {
	if err := formatterOrHandOver("script fmt"); err != nil {
		return err
	}
	scripts, err := scriptPaths(c)
	if err != nil {
		return err
	}
	failed := false
	for _, file := range scripts {
		changed, err := starfmt.Rewrite(file, c.Bool("check"), c.Bool("force"))
		if errors.Is(err, files.ErrReadOnly) {
			err = fmt.Errorf("%s is read-only: not formatted (make it writable, or format it anyway with --force)", file)
		}
		if err != nil {
			fmt.Fprintln(c.App.ErrWriter, err)
			failed = true
		}
		if changed {
			fmt.Fprintln(c.App.Writer, file)
			failed = failed || c.Bool("check")
		}
	}
	if failed {
		return session.ExitStatus(1)
	}
	return nil
}

func scriptLintAction(c *cli.Context) error {
	if err := formatterOrHandOver("script lint"); err != nil {
		return err
	}
	checks, err := starfmt.ParseChecks(c.String("warnings"))
	if err != nil {
		return fmt.Errorf("--warnings: %w", err)
	}
	files, err := scriptPaths(c)
	if err != nil {
		return err
	}
	checked, err := check(c, files)
	var problems *host.Error
	if err != nil && !errors.As(err, &problems) {
		return err
	}
	findings, err := starfmt.LintFiles(files, checks, checked.Findings())
	if err != nil {
		return err
	}
	for _, f := range findings {
		fmt.Fprintln(c.App.Writer, f)
	}
	if len(findings) > 0 {
		return session.ExitStatus(1)
	}
	return nil
}
