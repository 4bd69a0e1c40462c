package main

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
		{"unknown flag stays with the command", "run build --bogus", "run --bogus -- build"},
		{"a command name after an argument is an argument", "build run -v", "-v -- build run"},
		{"no arguments", "", ""},
		{"value flag at the end", "run build -n", "run -n -- build"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"rooda"}, strings.Fields(tc.args)...)
			got := moveFlagsFirst(testApp(nil), args)
			want := append([]string{"rooda"}, strings.Fields(tc.want)...)
			if !slices.Equal(got, want) {
				t.Errorf("got  %q\nwant %q", got, want)
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
			if err := app.RunContext(context.Background(), moveFlagsFirst(app, args)); err != nil {
				t.Fatal(err)
			}
			if got.cmd != tc.want.cmd || got.max != tc.want.max || got.dry != tc.want.dry ||
				got.config != tc.want.config || !slices.Equal(got.context, tc.want.context) || !slices.Equal(got.args, tc.want.args) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
