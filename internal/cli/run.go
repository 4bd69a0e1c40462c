package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"rooda/host/config"
	"rooda/host/engine"
	"rooda/host/loop"
	"rooda/host/process"
	"rooda/host/prompt"
	"rooda/host/runlog"
	"rooda/host/session"
	"rooda/host/suggest"
)

// exitCodesHelp lists every exit code a run ends with, each with the
// statuses that give it (loop.Status.ExitCode, the one table of them),
// for the help of the commands that run.
var exitCodesHelp = sync.OnceValue(func() string {
	notes := map[int]string{
		1:   "; also a usage or configuration error",
		130: " (Ctrl+C, SIGTERM, SIGHUP, SIGQUIT)",
	}
	byCode := map[int][]string{}
	var codes []int
	for _, s := range loop.Statuses {
		if s == loop.Exited || s == loop.DryRun { // exited's code is the script's; dry-run is no run's
			continue
		}
		code := s.ExitCode()
		if byCode[code] == nil {
			codes = append(codes, code)
		}
		byCode[code] = append(byCode[code], string(s))
	}
	slices.Sort(codes)
	var b strings.Builder
	b.WriteString("Exit codes, by how the run ended (its status, as rooda runs show gives it):\n")
	for _, code := range codes {
		fmt.Fprintf(&b, "  %-4d %s%s\n", code, strings.Join(byCode[code], ", "), notes[code])
	}
	b.WriteString("  N    exited: a script called exit(N, reason), N from 0 to 125")
	return b.String()
})

// shorthandFlag marks a run that was asked for as "rooda NAME", so that an
// unknown name is reported as a command or a procedure.
const shorthandFlag = "shorthand"

func runCommand() *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "run a procedure: its OODA loop, one fresh agent process per iteration",
		ArgsUsage: "NAME",
		Description: `Runs the named procedure until the agent prints <promise>SUCCESS</promise>,
the iteration limit is reached, the failure threshold of consecutive failed
iterations is hit, or Ctrl+C. "rooda NAME" is the same as "rooda run NAME".

Progress goes to stderr; with --verbose the agent's output streams to
stdout. The first Ctrl+C stops the agent and everything it started
(SIGTERM, then SIGKILL after 5s); a second kills them at once.

` + exitCodesHelp() + `

The global flags apply too, before or after NAME: --config FILE,
-v/--verbose (stream the agent's output), -q/--quiet, --log-level LEVEL.

Examples:
  rooda build                                 the built-in build procedure
  rooda run build -n 3 --ai-cmd-alias codex   three iterations with codex
  rooda build --dry-run                       show the settings, checks and prompt
  rooda build -c "focus on the auth module" -c notes.md
  rooda audit-impl --act "Write the findings to AUDIT.md."
  rooda build --unlimited --iteration-timeout 20m --failure-threshold 5`,
		Flags: append(append(slices.Concat(runSettingFlags(), []cli.Flag{maxDurationFlag()}, inCategory(scriptOnlyFlags(), scriptOnlyCategory), settingFlags(config.ForYAMLRuns)),
			&cli.StringSliceFlag{Name: "context", Aliases: []string{"c"}, Usage: "add `TEXT` or the content of a file to the prompt's CONTEXT (repeatable)", Category: "Prompt"},
			&cli.StringSliceFlag{Name: "observe", Usage: "replace the observe phase with `FRAGMENT`: a file, builtin:… or inline text (repeatable)", Category: "Prompt"},
			&cli.StringSliceFlag{Name: "orient", Usage: "replace the orient phase with `FRAGMENT` (repeatable)", Category: "Prompt"},
			&cli.StringSliceFlag{Name: "decide", Usage: "replace the decide phase with `FRAGMENT` (repeatable)", Category: "Prompt"},
			&cli.StringSliceFlag{Name: "act", Usage: "replace the act phase with `FRAGMENT` (repeatable)", Category: "Prompt"},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"d"}, Usage: "show the settings, the checks and the first prompt; run nothing", Category: "Output"},
			noRecordFlag(),
			&cli.BoolFlag{Name: shorthandFlag, Hidden: true},
		), resumeFlags()...),
		Action: runAction,
	}
}

func runAction(c *cli.Context) error {
	args, after := splitArgs(c)
	if len(args) != 1 {
		_, err := oneArgument(c, "procedure NAME")
		return err
	}
	name := args[0]
	cfg, err := loadConfig(c)
	if err != nil {
		return err
	}
	p, ok := cfg.Procedures[name]
	if !ok && strings.HasSuffix(name, ".star") {
		return starFile(name, after)
	}
	if !ok && c.Bool(shorthandFlag) {
		return unknownName(c, name, cfg.ProcedureNames())
	}
	if ok && p.Script.Set {
		if err := onlyFor(c, "a YAML procedure", name+" is a script", promptFlags()); err != nil {
			return err
		}
		return runScript(c, cfg, p.Script.V, after)
	}
	if err := onlyFor(c, "a script procedure", name+" is not", flagNames(scriptOnlyFlags())); err != nil {
		return err
	}
	if len(after) > 0 {
		return fmt.Errorf("arguments after -- go to a script procedure; %s is not one: %s", name, strings.Join(after, " "))
	}
	req := engine.Request{Config: cfg, Name: name, Context: prompt.GivenValues(c.StringSlice("context"))}
	for _, ph := range prompt.Phases {
		req.Phases[ph] = c.StringSlice(ph.String())
	}
	opts := sessionOptions(c, cfg, name)
	opts.Budgets.MaxDuration = c.Duration("max-duration")
	if ends, err := durable(c, cfg, &opts); ends || err != nil {
		return err
	}
	s := session.Start(c.Context, opts)
	defer s.Close()
	return s.RunProcedure(req)
}

func noRecordFlag() cli.Flag {
	return &cli.BoolFlag{Name: "no-record", Usage: "keep no record of the run in " + runlog.DefaultDir, Category: "Output"}
}

// promptFlags are run's flags that change a YAML procedure's prompt.
func promptFlags() []string { return []string{"context", "observe", "orient", "decide", "act"} }

// scriptOnlyFlags are the flags of a script run that run takes too, for
// procedures with script:; run's help shows them under
// scriptOnlyCategory. --max-duration is every run's.
func scriptOnlyFlags() []cli.Flag {
	return append([]cli.Flag{libFlag(), offlineFlag(), maxStepsFlag(), maxTotalIterationsFlag()}, settingFlags(config.ForScriptRuns)...)
}

// scriptOnlyCategory heads, in run's help, the flags that mean something
// only for a procedure with script:: a YAML procedure refuses them.
const scriptOnlyCategory = "Script procedures only"

// inCategory is flags with their help heading set to category.
func inCategory(flags []cli.Flag, category string) []cli.Flag {
	for _, f := range flags {
		switch f := f.(type) {
		case *cli.BoolFlag:
			f.Category = category
		case *cli.StringFlag:
			f.Category = category
		case *cli.StringSliceFlag:
			f.Category = category
		case *cli.IntFlag:
			f.Category = category
		case *cli.Uint64Flag:
			f.Category = category
		default:
			panic(fmt.Sprintf("inCategory: a %T", f))
		}
	}
	return flags
}

// onlyFor refuses flags that mean nothing for the procedure at hand,
// naming what does the same for it where something does.
func onlyFor(c *cli.Context, kind, why string, names []string) error {
	for _, name := range names {
		if c.IsSet(name) {
			err := fmt.Sprintf("--%s applies to %s; %s", name, kind, why)
			if instead, ok := insteadOf[name]; ok {
				err += ": " + instead
			}
			return errors.New(err)
		}
	}
	return nil
}

// insteadOf names, for a flag of a script run, what bounds a YAML
// procedure's run the same way.
var insteadOf = map[string]string{
	"max-total-iterations": "its one loop's count is -n/--max-iterations",
}

func flagNames(flags []cli.Flag) []string {
	var names []string
	for _, f := range flags {
		names = append(names, f.Names()[0])
	}
	return names
}

// unknownName reports "rooda NAME" where NAME is neither a command nor a
// procedure, suggesting the closest of both.
func unknownName(c *cli.Context, name string, procedures []string) error {
	msg := fmt.Sprintf("unknown command or procedure %q", name)
	commands := commandNames(c.App.Commands)
	if near := suggest.Closest(name, append(commands, procedures...)); near != "" {
		msg += "\n\nDid you mean: rooda " + near + "?"
	}
	return errors.New(msg + "\nRun 'rooda --help' for the commands, 'rooda list' for the procedures.")
}

// starFile reports "rooda run x.star": a Starlark file is not a
// procedure's name, and script run runs it.
func starFile(path string, after []string) error {
	line := []string{"rooda", "script", "run", path}
	if len(after) > 0 {
		line = append(append(line, "--"), after...)
	}
	return fmt.Errorf("unknown procedure %q: a .star file is a script\n\nRun it with: %s", path, process.Join(line))
}

// withoutDryRun is the command line as the user typed it, less the
// dry-run flag: what "Ready to execute" shows.
func withoutDryRun(c *cli.Context) []string {
	args, _ := c.App.Metadata["args"].([]string)
	var kept []string
	for i, a := range args {
		if a == "--" {
			// What follows is the script's, as it is.
			return append(kept, args[i:]...)
		}
		if a != "-d" && a != "--dry-run" && !strings.HasPrefix(a, "--dry-run=") {
			kept = append(kept, a)
		}
	}
	return kept
}
