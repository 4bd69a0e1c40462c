package cli

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// testApp has the shapes moveFlagsFirst must handle: app flags, a command
// with value and boolean flags, and a command with a subcommand.
func testApp(record func(cmd string, c *cli.Context)) *cli.App {
	act := func(name string) cli.ActionFunc {
		return func(c *cli.Context) error { record(name, c); return nil }
	}
	return &cli.App{
		Name:   "rooda",
		Writer: io.Discard, ErrWriter: io.Discard,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "config"},
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}},
		},
		Action:         act("root"),
		ExitErrHandler: func(*cli.Context, error) {},
		Commands: []*cli.Command{
			{Name: "run", Action: act("run"), Flags: []cli.Flag{
				&cli.IntFlag{Name: "max-iterations", Aliases: []string{"n"}},
				&cli.BoolFlag{Name: "dry-run", Aliases: []string{"d"}},
				&cli.StringSliceFlag{Name: "context", Aliases: []string{"c"}},
			}},
			{Name: "script", Subcommands: []*cli.Command{
				{Name: "run", Action: act("script run"), Flags: []cli.Flag{
					&cli.BoolFlag{Name: "dry-run"},
					&cli.IntFlag{Name: "max-steps"},
				}},
			}},
		},
	}
}

func TestMoveFlagsFirst(t *testing.T) {
	tests := []struct {
		name string
		args string
		want string
	}{
		{"flags after the argument", "run build --max-iterations 5", "run --max-iterations 5 -- build"},
		{"short flag and = form", "run build -n 5 --context=x", "run -n 5 --context=x -- build"},
		{"flags already first", "run -n 5 build", "run -n 5 -- build"},
		{"a boolean flag takes no value", "run build --dry-run extra", "run --dry-run -- build extra"},
		{"app flag after the command", "run build --config c.yml -v", "--config c.yml -v run -- build"},
		{"nested command", "script run x.star --dry-run --max-steps 9", "script run --dry-run --max-steps 9 -- x.star"},
		{"-- ends flags", "script run x.star --dry-run -- a --max-steps 1", "script run --dry-run -- x.star -- a --max-steps 1"},
		{"-- first", "script run -- --x", "script run -- -- --x"},
		{"lone dash is an argument", "run -", "run -- -"},
		{"help is the command's, its arguments no topic", "run build --help", "run --help"},
		{"a command name after an argument is an argument", "build run -v", "-v -- build run"},
		{"no arguments", "", ""},
		{"a negative number is a value", "run build -n -3", "run -n -3 -- build"},
		{"a value that is no flag here", "run build -c -x", "run -c -x -- build"},
		{"a value after =", "run build --context=-v", "run --context=-v -- build"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"rooda"}, strings.Fields(tc.args)...)
			got, err := moveFlagsFirst(testApp(nil), args)
			want := append([]string{"rooda"}, strings.Fields(tc.want)...)
			if err != nil || !slices.Equal(got, want) {
				t.Errorf("got  %q, %v\nwant %q", got, err, want)
			}
		})
	}
}

// TestFlagErrors: a value flag at the end, or followed by "--" or a flag
// some command defines, is an error naming it. So is a flag no command on
// the path defines, named as typed, with the flag of any of those
// commands it most likely meant, and never one letter for another.
func TestFlagErrors(t *testing.T) {
	tests := []struct{ args, want string }{
		{"run build -n", "flag --max-iterations needs a value\n  --max-iterations value, -n value    (default: 0)\nRun 'rooda run --help' for usage."},
		{"run build -n -- x", "flag --max-iterations needs a value\n"},
		{"run build --context --dry-run", "flag --context needs a value, got the flag --dry-run\n"},
		{"run build --config -v", "flag --config needs a value, got the flag -v\n"},
		{"script run x.star --max-steps --dry-run", "flag --max-steps needs a value, got the flag --dry-run\n"},
		{"script run x.star --max-steps", "Run 'rooda script run --help' for usage."},
		{"run build --max-iteratons 3", "unknown flag --max-iteratons\n\nDid you mean --max-iterations?\nRun 'rooda run --help' for usage."},
		{"run build -max-iteratons=3", "unknown flag -max-iteratons\n\nDid you mean --max-iterations?\n"},
		{"script run x.star --confg c.yml", "unknown flag --confg\n\nDid you mean --config?\nRun 'rooda script run --help' for usage."},
		{"run build -q", "unknown flag -q\nRun 'rooda run --help' for usage."},
	}
	for _, tc := range tests {
		t.Run(tc.args, func(t *testing.T) {
			args := append([]string{"rooda"}, strings.Fields(tc.args)...)
			got, err := moveFlagsFirst(testApp(nil), args)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %q, error %v\nwant an error with %q", got, err, tc.want)
			}
		})
	}
}

// TestFlagsAfterArgumentsReachTheCommand runs urfave/cli on the rewritten
// arguments: the values must arrive, wherever the flags were written.
func TestFlagsAfterArgumentsReachTheCommand(t *testing.T) {
	type seen struct {
		cmd     string
		max     int
		dry     bool
		config  string
		context []string
		args    []string
	}
	tests := []struct {
		args string
		want seen
	}{
		{"run build --max-iterations 5", seen{cmd: "run", max: 5, args: []string{"build"}}},
		{"run build -n 3 --dry-run --config c.yml", seen{cmd: "run", max: 3, dry: true, config: "c.yml", args: []string{"build"}}},
		{"run build -c one -c two", seen{cmd: "run", context: []string{"one", "two"}, args: []string{"build"}}},
		{"script run x.star --dry-run -- a -n 1", seen{cmd: "script run", dry: true, args: []string{"x.star", "--", "a", "-n", "1"}}},
		{"build --config c.yml", seen{cmd: "root", config: "c.yml", args: []string{"build"}}},
	}
	for _, tc := range tests {
		t.Run(tc.args, func(t *testing.T) {
			var got seen
			app := testApp(func(cmd string, c *cli.Context) {
				got = seen{cmd: cmd, max: c.Int("max-iterations"), dry: c.Bool("dry-run"),
					config: c.String("config"), context: c.StringSlice("context"), args: c.Args().Slice()}
			})
			args := append([]string{"rooda"}, strings.Fields(tc.args)...)
			moved, err := moveFlagsFirst(app, args)
			if err == nil {
				err = app.RunContext(context.Background(), moved)
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.cmd != tc.want.cmd || got.max != tc.want.max || got.dry != tc.want.dry ||
				got.config != tc.want.config || !slices.Equal(got.context, tc.want.context) || !slices.Equal(got.args, tc.want.args) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
