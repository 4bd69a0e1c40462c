package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"rooda/builtins"
	"rooda/builtins/reference"
	"rooda/host"
	"rooda/host/config"
	"rooda/host/interrupt"
	"rooda/host/libs"
	"rooda/host/logging"
	"rooda/host/session"
	"rooda/host/suggest"
	"rooda/scripts"
)

func scriptCommand() *cli.Command {
	return &cli.Command{
		Name:  "script",
		Usage: "Starlark procedures: run, check, fmt, lint, test, doc, repl",
		Subcommands: []*cli.Command{{
			Name:      "run",
			Usage:     "run a .star procedure script",
			ArgsUsage: "FILE [-- ARGS]",
			Description: `Runs a Starlark script that builds its procedures with fragment(), compose()
and procedure() and runs them with iterate(). Everything after -- reaches the
script as args. The flags override what the script sets; --max-steps,
--max-total-iterations and --max-duration bound the whole run.

A script that runs to its end ends as its last statement that ran loops
did: an iterate()'s status, the worst of a parallel()'s.

` + exitCodesHelp() + `

Examples:
  rooda script run nightly.star
  rooda script run nightly.star -n 3 --ai-cmd-alias codex -- src/auth
  rooda script run nightly.star --dry-run
  rooda script run nightly.star --lib team=../team-procedures --max-duration 2h`,
			Flags:  scriptRunFlags(),
			Action: scriptRunAction,
		}, {
			Name:      "check",
			Usage:     "check scripts and what they load, running nothing",
			ArgsUsage: "FILE|DIR...",
			Description: `Parses each script (a directory: every .star file below it) and every module
it loads, and reports every problem it finds, each "Error: file:line:col: …":
syntax errors, undefined names, load() paths and names that name nothing,
load cycles, fragment files named by literal paths that do not exist, and
calls of builtins that cannot work: unknown keyword arguments, literals of
the wrong type (max_iterations = "3"), callbacks that cannot be called as
they will be (on_iteration = lambda: None). Literals are read as the run
reads them: agents and procedures against the configuration (agent =
"cluade", procedure("buidl")), settings' texts (timeout = "5 minutes"), the
verdicts an on_iteration returns ("SUCCESS"); and a function parallel()
runs that changes a value it shares is told. A *_test.star file is checked
with the names of script tests (assert, fake_agent). Nothing runs; exit 1 if
anything is wrong.

Examples:
  rooda script check nightly.star
  rooda script check scripts/ nightly.star
  rooda script check nightly.star --lib team=../team-procedures`,
			Flags:  libFlags(),
			Action: scriptCheckAction,
		}, scriptFmtCommand(), scriptLintCommand(), {
			Name:      "test",
			Usage:     "run the test_* functions of *_test.star files",
			ArgsUsage: "[PATHS...]",
			Description: `Finds the *_test.star files under PATHS (the working directory by default)
and runs each top-level test_* function in a fresh runtime and an empty
temporary working directory, with a fixed clock. Tests see everything a
script sees, plus:

  assert.eq(got, want), assert.true(cond), assert.contains(container, item),
  assert.fails(fn, pattern)      fail the test, showing both values and the line
  fake_agent(outputs=[...], exit_codes=[...])
                                 an agent for iterate(agent=...) that starts no
                                 process; .prompts holds each prompt it received
  skip(reason)                   end the test as skipped

Prints a line per test (ok, FAIL or skip, with file:line), the details of
each failure, then "N passed, N failed". Exit 1 if any failed.

Examples:
  rooda script test
  rooda script test scripts/ -run min_iterations -v`,
			Flags: []cli.Flag{
				libFlag(), offlineFlag(),
				&cli.StringFlag{Name: "run", Usage: "run only the tests whose names match `REGEX`"},
				&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "show every test's output (print, the loop's log), not only a failed one's"},
			},
			Action: scriptTestAction,
		}, {
			Name:      "doc",
			Usage:     "the reference of the Starlark API, or of one name",
			ArgsUsage: "[SYMBOL|FILE.star]",
			Description: `Prints the reference of every builtin, method, type, value, test helper
and standard library function, or of the one named: its signature, what
it does, its parameters (a type's fields) and an example. --format json
gives it to tools; --format stub prints the .pyi stub of the predeclared
names and types (rooda script stub writes it with the standard library's,
for an editor). A parameter or a
field has a name of its own (iterate.timeout, iteration.outcome). Given a
.star file, as load() names it (a path, @rooda//…, @team//…), it documents
that library from its docstrings, running nothing and fetching nothing.

Examples:
  rooda script doc iterate
  rooda script doc iterate.timeout
  rooda script doc procedure.render
  rooda script doc min_iterations
  rooda script doc iteration
  rooda script doc team/helpers.star
  rooda script doc @rooda//termination.star`,
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "format", Value: "md", Usage: "`FORMAT`: md, json or stub"},
				libFlag(),
			},
			Action: scriptDocAction,
		}, {
			Name:      "stub",
			Usage:     "write the API's Python stubs (.pyi) for editors and type checkers",
			ArgsUsage: "[DIR]",
			Description: `Writes into DIR (typings by default, where Pyright and Pylance look) the
stubs of the Starlark API, generated from the same registry as the
reference: rooda/__init__.pyi declares every builtin, type (a class, so
that it. and r.last. complete), method and value with its types and
docstring; rooda/termination.pyi and the like, the standard library's
modules (load("@rooda//termination.star", …) is rooda.termination), and
a stub of each module of the configured libraries and of --lib, from
its docstrings (@team//helpers.star is team/helpers.pyi);
__builtins__.pyi makes the predeclared names builtins, as they are in a
script. mypy --strict accepts them. It prints each file it wrote.

Examples:
  rooda script stub
  rooda script stub .vscode/typings
  rooda script stub --lib team=../team-procedures`,
			Flags:  []cli.Flag{libFlag()},
			Action: scriptStubAction,
		}, {
			Name:  "repl",
			Usage: "an interactive Starlark session with rooda's builtins",
			Description: `Reads Starlark a statement or expression at a time and prints each
expression's value. Every builtin is there, with the assert module and
fake_agent() of script tests; load() works from the working directory, and
help() / help("iterate") show the reference. iterate() reports what it
would run (as --dry-run does) unless --live is given, or its agent is a
fake_agent().

Piped input runs a statement at a time too: each expression's value is
printed to standard output, an error goes to standard error and the input
goes on; the exit code is 1 if any statement failed.

Examples:
  rooda script repl
  echo 'print(procedure("build").render())' | rooda script repl`,
			Flags: []cli.Flag{
				libFlag(), offlineFlag(),
				&cli.BoolFlag{Name: "live", Usage: "let iterate() and run() really run agents and commands"},
			},
			Action: scriptReplAction,
		}},
	}
}

func scriptReplAction(c *cli.Context) error {
	if err := noArguments(c); err != nil {
		return err
	}
	cfg, err := loadConfig(c)
	if err != nil {
		return err
	}
	dryRun := !c.Bool("live")
	s := session.Start(c.Context, session.Options{Config: cfg, DryRun: dryRun, NoRecord: true, Command: []string{"rooda", "script", "run", "FILE"}, Stdout: c.App.Writer, Stderr: c.App.ErrWriter})
	defer s.Close()
	rt, err := newRuntime(c, s, nil, host.Options{Predeclared: builtins.WithTestNames(builtins.Predeclared(nil, dryRun))})
	if err != nil {
		return err
	}
	stdlib, err := reference.Stdlib(rt, scripts.FS)
	if err != nil {
		return err
	}
	help := reference.Help(reference.Entries(stdlib), c.App.Writer)
	return rt.REPL(s.Context(), os.Stdin, c.App.Writer, isTerminal(os.Stdin), help)
}

// isTerminal reports whether f is a terminal, where prompts belong.
func isTerminal(f *os.File) bool {
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

func scriptDocAction(c *cli.Context) error {
	symbol, err := atMostOneArgument(c, "script doc", "SYMBOL")
	if err != nil {
		return err
	}
	cfg, err := loadConfig(c)
	if err != nil {
		return err
	}
	if symbol != "" && strings.HasSuffix(symbol, ".star") {
		return moduleDoc(c, cfg, symbol)
	}
	entries, err := apiReference(c, cfg)
	if err != nil {
		return err
	}
	if symbol != "" {
		found := reference.Find(entries, symbol)
		if len(found) == 0 {
			msg := fmt.Sprintf("no %q in the reference", symbol)
			if near := suggest.Closest(symbol, reference.Names(entries)); near != "" {
				msg += fmt.Sprintf("; did you mean %s?", near)
			}
			return errors.New(msg + "\nRun 'rooda script doc' for all of it.")
		}
		entries = found
	}
	text, err := formatReference(c.String("format"), entries, symbol != "")
	if err != nil {
		return err
	}
	_, err = io.WriteString(c.App.Writer, text)
	return err
}

// apiReference is the reference of the builtins and the standard
// library.
func apiReference(c *cli.Context, cfg *config.Config) ([]reference.Entry, error) {
	// The reference needs the standard library only: no library is fetched.
	s := quietSession(c.Context, c, cfg)
	rt, err := s.Runtime(scriptOptions(s, nil, nil, host.Options{}))
	if err != nil {
		return nil, err
	}
	stdlib, err := reference.Stdlib(rt, scripts.FS)
	if err != nil {
		return nil, err
	}
	return reference.Entries(stdlib), nil
}

// scriptStubAction is script stub [DIR]: the stub files written under
// DIR, each named on a line.
func scriptStubAction(c *cli.Context) error {
	dir, err := atMostOneArgument(c, "script stub", "DIR")
	if err != nil {
		return err
	}
	dir = cmp.Or(dir, "typings")
	cfg, err := loadConfig(c)
	if err != nil {
		return err
	}
	entries, err := apiReference(c, cfg)
	if err != nil {
		return err
	}
	rt, err := cachedRuntime(c, cfg)
	if err != nil {
		return err
	}
	libraries, err := libraryReference(c, rt)
	written, werr := reference.WriteStubs(dir, entries, libraries)
	for _, path := range written {
		fmt.Fprintln(c.App.Writer, path)
	}
	return errors.Join(err, werr)
}

// libraryReference documents the configured libraries
// (reference.Libraries), saying on stderr which the cache lacks.
func libraryReference(c *cli.Context, rt *host.Runtime) ([]reference.Entry, error) {
	entries, unready, err := reference.Libraries(rt)
	for _, name := range slices.Sorted(maps.Keys(unready)) {
		fmt.Fprintf(c.App.ErrWriter, "no stubs of @%s: %s\n", name, unready[name])
	}
	return entries, err
}

// cachedRuntime is a runtime whose git libraries are read from the
// cache: documenting fetches nothing.
func cachedRuntime(c *cli.Context, cfg *config.Config) (*host.Runtime, error) {
	dirs, unready, err := cachedLibraries(c, cfg)
	if err != nil {
		return nil, err
	}
	s := quietSession(c.Context, c, cfg)
	return s.Runtime(scriptOptions(s, nil, dirs, host.Options{Unready: unready}))
}

// moduleDoc is script doc FILE.star: a library module's docstrings, the
// module named as load() names it (a path, @rooda//…, @team//…).
func moduleDoc(c *cli.Context, cfg *config.Config, name string) error {
	rt, err := cachedRuntime(c, cfg)
	if err != nil {
		return err
	}
	path, src, err := rt.Source(name)
	if err != nil {
		return err
	}
	doc, entries, err := reference.Module(path, src)
	if err != nil {
		return err
	}
	var text string
	switch format := c.String("format"); format {
	case "md":
		text = reference.ModuleMarkdown(path, doc, entries)
	case "json":
		text, err = reference.JSON(entries)
	case "stub":
		text = reference.ModuleStub(path, doc, entries)
	default:
		return fmt.Errorf("--format %q: want md, json or stub", format)
	}
	if err != nil {
		return err
	}
	_, err = io.WriteString(c.App.Writer, text)
	return err
}

func formatReference(format string, entries []reference.Entry, one bool) (string, error) {
	switch format {
	case "md":
		if one {
			return reference.Sections(entries), nil
		}
		return reference.Markdown(entries), nil
	case "json":
		return reference.JSON(entries)
	case "stub":
		return reference.Stub(entries), nil
	}
	return "", fmt.Errorf("--format %q: want md, json or stub", format)
}

func scriptTestAction(c *cli.Context) error {
	paths := arguments(c)
	if len(paths) == 0 {
		paths = []string{"."}
	}
	var filter *regexp.Regexp
	if expr := c.String("run"); expr != "" {
		var err error
		if filter, err = regexp.Compile(expr); err != nil {
			return fmt.Errorf("-run %q: %w", expr, err)
		}
	}
	// Tests see the built-in configuration and the workspace's, never this
	// machine's global file or ROODA_ variables: they pass or fail the same
	// everywhere.
	noEnvironment := func(string) (string, bool) { return "", false }
	cfg, err := config.Load(config.Options{ConfigFile: c.String("config"), LookupEnv: noEnvironment})
	if err != nil {
		return err
	}
	s := session.Start(c.Context, session.Options{Config: cfg, NoRecord: true})
	defer s.Close()
	libs, err := libraries(s.Context(), c, cfg)
	if err != nil {
		return err
	}
	sum, err := host.RunTests(s.Context(), paths, host.TestOptions{
		Run:     host.Options{Predeclared: builtins.TestPredeclared(nil), Libraries: libs, Stdlib: scripts.FS, Kill: s.Kill(), Attach: session.ForTests(s.Context(), cfg, s.Kill())},
		Filter:  filter,
		Verbose: c.Bool("verbose"),
		Out:     c.App.Writer,
	})
	if err != nil {
		return err
	}
	if sum.Failed > 0 {
		return session.ExitStatus(1)
	}
	return nil
}

// libFlags are the flags that choose libraries.
func libFlags() []cli.Flag { return []cli.Flag{libFlag(), offlineFlag()} }

func offlineFlag() cli.Flag {
	return &cli.BoolFlag{Name: "offline", Usage: "never fetch a git library: use the cache, or fail"}
}

func libFlag() cli.Flag {
	return &cli.StringSliceFlag{Name: "lib", Usage: "make `NAME=DIR` loadable as @NAME//path (repeatable; beats libraries: in the config)"}
}

func scriptRunFlags() []cli.Flag {
	return append(append(slices.Concat(runSettingFlags(), settingFlags(config.ForScriptRuns)),
		libFlag(), offlineFlag(), maxStepsFlag(), maxTotalIterationsFlag(), maxDurationFlag(),
		&cli.BoolFlag{Name: "dry-run", Aliases: []string{"d"}, Usage: "evaluate the script, report each iterate() instead of running it, run no command", Category: "Output"},
		noRecordFlag(),
	), resumeFlags()...)
}

func maxStepsFlag() cli.Flag {
	return &cli.Uint64Flag{Name: "max-steps", Value: host.DefaultMaxSteps, Usage: "stop a script whose own computation takes more than `N` Starlark steps", Category: "Budgets"}
}

func maxTotalIterationsFlag() cli.Flag {
	return &cli.IntFlag{Name: "max-total-iterations", Usage: "stop the run after `N` iterations across every iterate() (0: no limit)", Category: "Budgets"}
}

func maxDurationFlag() cli.Flag {
	return &cli.DurationFlag{Name: "max-duration", Usage: "end the run, status budget, after `DURATION` of run time (90m, 2h; 0: no limit); a script's iterate(max_duration=…) is one loop's", Category: "Budgets"}
}

func scriptRunAction(c *cli.Context) error {
	args, after := splitArgs(c)
	if len(args) != 1 {
		return fmt.Errorf("script run takes one FILE (script arguments go after --), got %d: %s\nRun 'rooda script run --help' for usage.", len(args), strings.Join(args, " "))
	}
	cfg, err := loadConfig(c)
	if err != nil {
		return err
	}
	return runScript(c, cfg, args[0], after)
}

func scriptCheckAction(c *cli.Context) error {
	paths, err := someArguments(c, "FILE or DIR")
	if err != nil {
		return err
	}
	checked, err := check(c, paths)
	for _, w := range checked.Warnings {
		fmt.Fprintln(c.App.ErrWriter, w)
	}
	if err != nil {
		return err
	}
	for _, file := range checked.Files {
		fmt.Fprintf(c.App.Writer, "%s: ok\n", file)
	}
	return nil
}

// check is what script check finds in the scripts at paths, with the
// configuration and libraries of the command line.
func check(c *cli.Context, paths []string) (host.Checked, error) {
	cfg, err := loadConfig(c)
	if err != nil {
		return host.Checked{}, err
	}
	// Fetching a git library is the one wait here, which an interrupt
	// ends. A check without one catches no signal: catching them and
	// giving them back took 1.4 ms of its start (docs/performance.md).
	// Flags that do not parse fail before anything waits.
	ctx := c.Context
	if all, err := libs.WithFlags(cfg.Libraries, c.StringSlice("lib")); err == nil && libs.Waits(all) {
		var watch *interrupt.Watcher
		ctx, watch = interrupt.Watch(ctx)
		defer watch.Stop()
	}
	rt, err := newRuntime(c, quietSession(ctx, c, cfg), nil, host.Options{TestPredeclared: builtins.TestPredeclaredOnce(), Signatures: builtins.Signatures(cfg)})
	if err != nil {
		return host.Checked{}, err
	}
	return rt.Check(paths...)
}

// runScript runs a script with the signals, record and budgets of a run.
func runScript(c *cli.Context, cfg *config.Config, file string, args []string) error {
	opts := sessionOptions(c, cfg, file)
	opts.Budgets = session.Budgets{
		MaxSteps:           c.Uint64("max-steps"),
		MaxTotalIterations: c.Int("max-total-iterations"),
		MaxDuration:        c.Duration("max-duration"),
		MaxMemory:          int64(config.MaxMemory.In(&cfg.Loop).V),
	}
	if ends, err := durable(c, cfg, &opts); ends || err != nil {
		return err
	}
	s := session.Start(c.Context, opts)
	defer s.Close()
	return s.RunScript(file, func() (host.Options, error) {
		libs, err := libraries(s.Context(), c, cfg)
		return scriptOptions(s, args, libs, host.Options{}), err
	})
}

// sessionOptions are the options of the run of the procedure or script
// that c names name.
func sessionOptions(c *cli.Context, cfg *config.Config, name string) session.Options {
	return session.Options{
		Config:   cfg,
		Name:     name,
		Command:  withoutDryRun(c),
		Stdout:   c.App.Writer,
		Stderr:   c.App.ErrWriter,
		NoRecord: c.Bool("no-record"),
		DryRun:   c.Bool("dry-run"),
	}
}

// quietSession is the session of a command that runs no loop and no
// command: it gives the builtins their configuration.
func quietSession(ctx context.Context, c *cli.Context, cfg *config.Config) *session.Session {
	return session.New(ctx, session.Options{Config: cfg, DryRun: true, Stdout: c.App.Writer, Stderr: c.App.ErrWriter})
}

// newRuntime makes a runtime of the session s: the builtins, the
// standard library, the configured libraries and those of --lib.
func newRuntime(c *cli.Context, s *session.Session, args []string, opts host.Options) (*host.Runtime, error) {
	libs, err := libraries(s.Context(), c, s.Config())
	if err != nil {
		return nil, err
	}
	return s.Runtime(scriptOptions(s, args, libs, opts))
}

// scriptOptions complete opts with the builtins (unless given), the
// standard library and the libraries libs.
func scriptOptions(s *session.Session, args []string, libs map[string]string, opts host.Options) host.Options {
	if opts.Predeclared == nil {
		opts.Predeclared = builtins.Predeclared(args, s.DryRun())
	}
	opts.Libraries, opts.Stdlib = libs, scripts.FS
	return opts
}

// libraries are the directories of the configuration's libraries, with
// --lib NAME=DIR on top; git ones are fetched and pinned as needed, until
// ctx ends.
func libraries(ctx context.Context, c *cli.Context, cfg *config.Config) (map[string]string, error) {
	m, err := libraryManager(c, cfg)
	if err != nil {
		return nil, err
	}
	all, err := libs.WithFlags(cfg.Libraries, c.StringSlice("lib"))
	if err != nil {
		return nil, err
	}
	return m.Dirs(ctx, all)
}

// libraryManager fetches into the user's cache, offline if asked, and
// says what it waits for on stderr, in the configuration's log format.
func libraryManager(c *cli.Context, cfg *config.Config) (*libs.Manager, error) {
	dir, err := libs.DefaultCacheDir()
	if err != nil {
		return nil, fmt.Errorf("cannot find a cache directory for libraries (set XDG_CACHE_HOME): %w", err)
	}
	// The format the final error is written in: every command's flags
	// and tiers, as the command line gives them.
	args, _ := c.App.Metadata["args"].([]string)
	log := logging.Configured(c.App.ErrWriter, "debug", logFormat(args))
	notice := func(msg string) { log.Line(logging.Info, "library_cache_wait", nil, "%s", msg) }
	return &libs.Manager{CacheDir: dir, Offline: c.Bool("offline"), Notice: notice}, nil
}
