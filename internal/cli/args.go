package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"rooda/host/suggest"
)

// moveFlagsFirst lets flags follow arguments ("rooda build
// --max-iterations 5", "rooda script run x.star --dry-run"), which
// urfave/cli/v2 does not: it stops parsing flags at the first argument and
// silently takes the rest as arguments.
//
// It rewrites args so that every command's flags come right after the
// command's name, and its arguments after a "--" that ends them. A flag
// that belongs to an enclosing command (or the app) moves to that
// command's place. A "--" the user typed still ends flag parsing: what
// follows it stays an argument, behind a second "--" that the command sees.
//
// A flag that takes a value and has none (it ends the line, or "--" or
// another flag follows it) is an error here: left to urfave/cli, it would
// take the next flag for its value and report nonsense about what follows.
// So is a flag no command on the path defines: urfave/cli would name it
// with one dash, whatever was typed, and suggest nothing.
func moveFlagsFirst(app *cli.App, args []string) ([]string, error) {
	if len(args) == 0 {
		return args, nil
	}
	levels := []*level{{defined: app.Flags, commands: app.Commands}}
	rest := args[1:]
	for len(rest) > 0 {
		cur := levels[len(levels)-1]
		a := rest[0]
		rest = rest[1:]
		switch {
		case a == "--":
			cur.args = append(cur.args, "--")
			cur.args = append(cur.args, rest...)
			rest = nil
		case isFlag(a):
			if definer(levels, a) == nil && !isHelp(a) {
				return nil, unknownFlag(levels, a)
			}
			owner := ownerOf(levels, a)
			owner.given = append(owner.given, a)
			if !needsValue(owner.defined, a) {
				continue
			}
			if len(rest) == 0 || rest[0] == "--" || isDefinedFlag(levels, rest[0]) {
				return nil, missingValue(levels, findFlag(owner.defined, flagName(a)), rest)
			}
			owner.given = append(owner.given, rest[0])
			rest = rest[1:]
		default:
			if sub := findCommand(cur.commands, a); sub != nil && len(cur.args) == 0 {
				levels = append(levels, &level{name: a, defined: sub.Flags, commands: sub.Subcommands})
				continue
			}
			cur.args = append(cur.args, a)
		}
	}
	out := []string{args[0]}
	for _, l := range levels {
		if l.name != "" {
			out = append(out, l.name)
		}
		out = append(out, l.given...)
	}
	// Asked for help, the command's is shown: its arguments (rooda build
	// --help names the procedure) are no help topic.
	if last := levels[len(levels)-1]; len(last.args) > 0 && !slices.ContainsFunc(out, isHelpFlag) {
		out = append(out, "--")
		out = append(out, last.args...)
	}
	return out, nil
}

// missingValue is the error for flag given no value, where next is what
// followed it. It shows the flag as help does, so that it says what to give.
func missingValue(levels []*level, flag cli.Flag, next []string) error {
	name := "--" + flag.Names()[0]
	gotFlag := len(next) > 0 && next[0] != "--"
	var msg strings.Builder
	fmt.Fprintf(&msg, "flag %s needs a value", name)
	if gotFlag {
		fmt.Fprintf(&msg, ", got the flag %s", next[0])
	}
	fmt.Fprintf(&msg, "\n  %s\n", strings.Replace(flag.String(), "\t", "    ", 1))
	if gotFlag {
		fmt.Fprintf(&msg, "Write %s=VALUE for a value that starts with \"-\". ", name)
	}
	fmt.Fprintf(&msg, "Run '%s --help' for usage.", helpName(levels))
	return errors.New(msg.String())
}

// helpName is the command line that shows the help of the innermost
// command: "rooda run".
func helpName(levels []*level) string {
	name := "rooda"
	for _, l := range levels {
		if l.name != "" {
			name += " " + l.name
		}
	}
	return name
}

// withRunShorthand makes "rooda NAME …" mean "rooda run NAME …": when the
// first argument that is not a flag names no command, "run" is put right
// after the program's name, so that every flag, wherever it stands, is
// parsed as run's or the app's.
func withRunShorthand(app *cli.App, args []string) []string {
	run := findCommand(app.Commands, "run")
	if run == nil || len(args) < 2 {
		return args
	}
	flags := append(append([]cli.Flag{}, app.Flags...), run.Flags...)
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return args
		case isFlag(a):
			if needsValue(flags, a) {
				i++
			}
			continue
		case a == "help" || findCommand(app.Commands, a) != nil:
			return args
		}
		out := append([]string{args[0], "run", "--" + shorthandFlag}, args[1:]...)
		return out
	}
	return args
}

// level is one command on the path from the app to the command being run.
type level struct {
	name     string // "" for the app itself
	defined  []cli.Flag
	commands []*cli.Command
	given    []string // the flag arguments given for it
	args     []string // its positional arguments
}

// isFlag reports whether a looks like a flag: "-x", "--x", "--x=v".
// A lone "-" is an argument (conventionally stdin).
func isFlag(a string) bool {
	return len(a) > 1 && a[0] == '-'
}

// flagName returns the name in "-x", "--name" or "--name=value".
func flagName(a string) string {
	name := strings.TrimLeft(a, "-")
	name, _, _ = strings.Cut(name, "=")
	return name
}

// ownerOf returns the innermost level that defines the flag a. The help
// flag, which no level defines yet, stays with the innermost.
func ownerOf(levels []*level, a string) *level {
	if l := definer(levels, a); l != nil {
		return l
	}
	return levels[len(levels)-1]
}

// isHelp reports whether a asks for help: urfave/cli adds the flag to
// every command as it runs it, after the arguments are moved.
func isHelp(a string) bool { return slices.Contains(cli.HelpFlag.Names(), flagName(a)) }

// isHelpFlag reports whether a is --help or -h, not a command named so.
func isHelpFlag(a string) bool { return isFlag(a) && isHelp(a) }

// unknownFlag is the error for the flag a that no level defines: named as
// it was typed, with the defined flag it most likely meant.
func unknownFlag(levels []*level, a string) error {
	typed, _, _ := strings.Cut(a, "=")
	msg := "unknown flag " + typed
	if near := suggest.Closest(flagName(a), visibleFlagNames(levels)); near != "" {
		msg += "\n\nDid you mean " + dashed(near) + "?"
	}
	return fmt.Errorf("%s\nRun '%s --help' for usage.", msg, helpName(levels))
}

// visibleFlagNames are the names of the flags the levels define and
// help shows, the innermost command's first; a one-letter alias is no
// suggestion, since any one letter is a typo of any other.
func visibleFlagNames(levels []*level) []string {
	var names []string
	for i := len(levels) - 1; i >= 0; i-- {
		for _, f := range levels[i].defined {
			if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() {
				continue
			}
			for _, n := range f.Names() {
				if len(n) > 1 {
					names = append(names, n)
				}
			}
		}
	}
	return names
}

// dashed is a flag's name as it is typed: -n, --max-iterations.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// definer returns the innermost level that defines the flag a, or nil.
func definer(levels []*level, a string) *level {
	name := flagName(a)
	for i := len(levels) - 1; i >= 0; i-- {
		if findFlag(levels[i].defined, name) != nil {
			return levels[i]
		}
	}
	return nil
}

// isDefinedFlag reports whether a is a flag some level defines: a value
// flag followed by it was given no value. Anything else that starts with
// "-" may be a value: "-n -1", or "--ai-cmd -x" (no rooda flag is -x).
func isDefinedFlag(levels []*level, a string) bool {
	return isFlag(a) && definer(levels, a) != nil
}

func findFlag(flags []cli.Flag, name string) cli.Flag {
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return f
			}
		}
	}
	return nil
}

// needsValue reports whether the flag a is followed by a separate value
// ("-n 5"), as every flag but a boolean one is unless given as "-n=5".
func needsValue(flags []cli.Flag, a string) bool {
	if strings.Contains(a, "=") {
		return false
	}
	f := findFlag(flags, flagName(a))
	if f == nil {
		return false
	}
	if dv, ok := f.(cli.DocGenerationFlag); ok {
		return dv.TakesValue()
	}
	return true
}

func findCommand(commands []*cli.Command, name string) *cli.Command {
	for _, c := range commands {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

// splitArgs returns a command's arguments: those before the "--" the user
// typed, and those after it, which moveFlagsFirst keeps behind a "--" so
// that commands passing arguments on (a script's args) can tell them apart.
func splitArgs(c *cli.Context) (args, after []string) {
	all := c.Args().Slice()
	for i, a := range all {
		if a == "--" {
			return all[:i], all[i+1:]
		}
	}
	return all, nil
}

// arguments are a command's arguments, those after a "--" included.
func arguments(c *cli.Context) []string {
	args, after := splitArgs(c)
	return append(args, after...)
}

// noArguments fails when a command that takes none was given some.
func noArguments(c *cli.Context) error {
	if all := arguments(c); len(all) > 0 {
		return fmt.Errorf("%s takes no arguments, got: %s", c.Command.Name, strings.Join(all, " "))
	}
	return nil
}

// atMostOneArgument returns the argument a command may take, "" if none;
// name is the command as the user types it after rooda.
func atMostOneArgument(c *cli.Context, name, what string) (string, error) {
	all := arguments(c)
	if len(all) > 1 {
		return "", fmt.Errorf("%s takes at most one %s, got %d: %s", name, what, len(all), strings.Join(all, " "))
	}
	return strings.Join(all, ""), nil
}

// someArguments are the arguments of a command that needs at least one
// what.
func someArguments(c *cli.Context, what string) ([]string, error) {
	all := arguments(c)
	if len(all) == 0 {
		return nil, fmt.Errorf("%s needs a %s\nRun '%s --help' for usage.", c.Command.Name, what, c.Command.HelpName)
	}
	return all, nil
}

// oneArgument returns the single argument a command takes.
func oneArgument(c *cli.Context, what string) (string, error) {
	all := arguments(c)
	switch len(all) {
	case 1:
		return all[0], nil
	case 0:
		return "", fmt.Errorf("%s needs a %s\nRun '%s --help' for usage.", c.Command.Name, what, c.Command.HelpName)
	}
	return "", fmt.Errorf("%s takes one %s, got %d arguments: %s", c.Command.Name, what, len(all), strings.Join(all, " "))
}
