package cli

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/urfave/cli/v2"

	"rooda/host/config"
	"rooda/host/process"
	"rooda/host/runlog"
	"rooda/host/session"
)

// resumeFlags are the flags of a durable run: resume a run cut short, or
// start one under a name that a restart finds again.
func resumeFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "resume", Usage: "resume `RUN`, cut short (crashed, killed or interrupted): what its journal holds is not run again", Category: "Resume"},
		&cli.StringFlag{Name: "run-name", Usage: "start the run as `NAME`, or resume the run of that name if one was cut short; if it ended, exit with its exit code", Category: "Resume"},
		&cli.BoolFlag{Name: "force", Usage: "with --resume or --run-name: where the run's calls differ from its journal's, go on live instead of stopping", Category: "Resume"},
		asLeftFlag("with --resume or --run-name: ", "Resume"),
	}
}

// asLeftFlag keeps the workspace as a killed try left it, for those who
// want the iteration in flight to go on from its half-done changes.
func asLeftFlag(with, category string) cli.Flag {
	return &cli.BoolFlag{Name: "as-left", Usage: with + "run the iteration that was in flight on the workspace as its killed try left it, not put back as it began", Category: category}
}

// durable fills in what opts needs to resume the run c asks for
// (--resume, or --run-name naming a run cut short) or to start it under
// its name. A --run-name whose run ended returns that run's exit status,
// having said so, and ends is set: nothing is to run.
func durable(c *cli.Context, cfg *config.Config, opts *session.Options) (ends bool, err error) {
	query, name := c.String("resume"), c.String("run-name")
	switch {
	case c.Bool("force") && query == "" && name == "":
		return false, fmt.Errorf("--force goes with --resume or --run-name")
	case c.Bool("as-left") && query == "" && name == "":
		return false, fmt.Errorf("--as-left goes with --resume or --run-name")
	case (query != "" || name != "") && (opts.DryRun || opts.NoRecord):
		return false, fmt.Errorf("--resume and --run-name need the run's record: not with --dry-run or --no-record")
	case query != "" && name != "":
		return false, fmt.Errorf("--resume and --run-name: give one")
	}
	dir := session.RunsDir(cfg)
	opts.Force, opts.AsLeft, opts.RunName = c.Bool("force"), c.Bool("as-left"), name
	if name != "" {
		// One rooda at a time under a name: two started at once would
		// both find no run of that name, and both start one.
		if err := runlog.HoldName(dir, name); err != nil {
			return false, err
		}
		run, found, err := runlog.Named(dir, name)
		switch {
		case err != nil || !found:
			return false, err
		case run.Over():
			code := 0
			if run.ExitCode != nil {
				code = *run.ExitCode
			}
			fmt.Fprintf(c.App.ErrWriter, "run %s, named %s, has ended (%s, exit code %d); not starting it again\n", run.ID, name, run.ShownStatus(), code)
			return true, session.ExitStatus(code)
		}
		query = run.ID
	}
	if query == "" {
		return false, nil
	}
	// A resume reads its record (tens of milliseconds for thousands of
	// iterations) before its first process, which then finds the guard
	// ready instead of starting it.
	process.StartGuard()
	id, err := runlog.Find(dir, query)
	if err != nil {
		return false, err
	}
	if c.IsSet("resume") && onlyResumeFlags(c) && !resuming(c.Context) {
		// "rooda build --resume ID" is "rooda runs resume ID": the
		// flags the run was started with are not to be repeated.
		return true, resumeAsStarted(c, dir, id, opts.Name)
	}
	opts.Resume, err = runlog.ResumeWith(dir, id, opts.Name, resumeOptions(c))
	return false, err
}

// onlyResumeFlags reports whether c sets no flag but the resume's own:
// a command line that says which run to resume, and nothing else.
func onlyResumeFlags(c *cli.Context) bool {
	if c.Args().Len() > 1 {
		return false // a script's arguments
	}
	for _, name := range c.LocalFlagNames() {
		if !slices.Contains([]string{"resume", "force", "as-left", shorthandFlag}, name) {
			return false
		}
	}
	return true
}

// resumeAsStarted resumes run id of procedure name with the command line
// that started it, as runs resume does.
func resumeAsStarted(c *cli.Context, dir, id, name string) error {
	run, err := runlog.ReadRun(dir, id)
	if err != nil {
		return err
	}
	if err := run.ResumedAs(name); err != nil {
		return err
	}
	return resumeRun(c, run)
}

// resumingKey marks the context of a command line a resume runs again:
// the command line that started the run, which is not looked up again.
type resumingKey struct{}

// resuming reports whether ctx is that of a command line a resume runs.
func resuming(ctx context.Context) bool { return ctx.Value(resumingKey{}) != nil }

func runsResumeCommand() *cli.Command {
	return &cli.Command{
		Name:      "resume",
		Usage:     "resume a run that was cut short (crashed, killed or interrupted) where it stopped",
		ArgsUsage: "[RUN]",
		Description: `Runs again the command that started RUN (by default the newest run that can be
resumed), in the directory it ran in, with its record: a YAML or built-in
procedure goes on at the iteration after the last one that ended, with its
counters and spend; a script runs again from the top, every call its journal
holds (iterations, run(), worktree(), git_merge(), getenv() …) answered from
there, nothing run again, and goes on live after. The iteration that was in
flight runs again. Budgets count what the run spent before.

A run that ended is not resumed; one still going is refused. If the script,
a module it loads or the settings changed so that a call differs from the
journal's, the resume stops at that call, saying what was recorded and what
is asked; --force goes on live from it. In a git workspace the iteration in
flight runs again from the workspace as it was when it began, what its killed
try left kept under refs/rooda/<run>/partial/<n>; --as-left runs it on what
the killed try left instead.

Examples:
  rooda runs resume                 the newest run that was cut short
  rooda runs resume 1a2b            (any part of an id that names one run)
  rooda runs resume last --force
  rooda runs resume --as-left       go on from the killed try's changes`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "force", Usage: "where the run's calls differ from its journal's, go on live instead of stopping"},
			asLeftFlag("", ""),
		},
		Action:       runsResumeAction,
		BashComplete: completeRunIDs,
	}
}

func runsResumeAction(c *cli.Context) error {
	args, _ := splitArgs(c)
	if len(args) > 1 {
		_, err := oneArgument(c, "RUN")
		return err
	}
	cfg, err := loadConfig(c)
	if err != nil {
		return err
	}
	dir := session.RunsDir(cfg)
	id := ""
	if len(args) == 1 {
		id, err = runlog.Find(dir, args[0])
	} else {
		id, err = runlog.LastResumable(dir)
	}
	if err != nil {
		return err
	}
	run, err := runlog.ReadRun(dir, id)
	if err != nil {
		return err
	}
	if run.Over() {
		// Whether one not over is still going is its record's lock's to
		// say, as the resume takes it.
		return run.Resumable()
	}
	return resumeRun(c, run)
}

// resumeRun runs again the command line that started run, told to
// resume it, with c's --force and --as-left.
func resumeRun(c *cli.Context, run runlog.Run) error {
	again := resumedCommand(run.Command, run.ID, append(onOff(c, "force", "as-left"), globalArgs(c)...)...)
	if code := runArgs(c, again); code != 0 {
		return session.ExitStatus(code)
	}
	return nil
}

// globalArgs are the global flags (-v, -q, --config, --log-level …) the
// command line of c set, as flags for a command line run again: what the
// user asks of this resume's output and configuration.
func globalArgs(c *cli.Context) []string {
	var args []string
	for _, f := range c.App.Flags {
		// IsSet looks up c's lineage: a global flag given after the
		// command's name is set where the command parsed it.
		name := f.Names()[0]
		if name == cli.VersionFlag.Names()[0] || !c.IsSet(name) {
			continue
		}
		if _, ok := f.(*cli.BoolFlag); ok {
			args = append(args, "--"+name+"="+strconv.FormatBool(c.Bool(name)))
		} else {
			args = append(args, "--"+name+"="+c.String(name))
		}
	}
	return args
}

// onOff are the flags of names that c sets, as "--name".
func onOff(c *cli.Context, names ...string) []string {
	var set []string
	for _, name := range names {
		if c.Bool(name) {
			set = append(set, "--"+name)
		}
	}
	return set
}

// resumedCommand is the command line that started a run, told to resume
// it: --resume ID and the resume's own flags before its script's
// arguments, if any.
func resumedCommand(command []string, id string, own ...string) []string {
	flags := append([]string{"--resume", id}, own...)
	var without []string
	for i := 0; i < len(command); i++ {
		switch a := command[i]; {
		case a == "--":
			// What follows is the script's, as it is.
			without = append(without, command[i:]...)
			i = len(command)
		case a == "--run-name" || a == "--resume":
			i++ // and its value
		case hasFlagValue(a, "--run-name"), hasFlagValue(a, "--resume"), a == "--force", a == "--as-left":
		default:
			without = append(without, a)
		}
	}
	at := slices.Index(without, "--")
	if at < 0 {
		at = len(without)
	}
	return slices.Concat(without[:at], flags, without[at:])
}

func hasFlagValue(arg, flag string) bool {
	return len(arg) > len(flag) && arg[:len(flag)+1] == flag+"="
}

// runArgs runs rooda with args, as main does, and returns its exit code:
// its error is said already.
func runArgs(c *cli.Context, args []string) int {
	return run(context.WithValue(c.Context, resumingKey{}, true), args, c.App.Writer, c.App.ErrWriter)
}

// resumeOptions are how the resume c asks for takes its record: forced
// or not, and what it waits for said on the error stream.
func resumeOptions(c *cli.Context) runlog.ResumeOptions {
	say := func(s string) { fmt.Fprintln(c.App.ErrWriter, s) }
	return runlog.ResumeOptions{Force: c.Bool("force"), Say: say}
}
