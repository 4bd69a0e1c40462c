package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/urfave/cli/v2"

	"rooda/host/files"
	"rooda/host/interrupt"
	"rooda/host/prompt"
	"rooda/host/runlog"
	"rooda/host/runpage"
	"rooda/host/session"
	"rooda/host/shown"
)

func runsCommand() *cli.Command {
	return &cli.Command{
		Name:  "runs",
		Usage: "the records of past and running runs (.rooda/runs)",
		Description: `Every run keeps a record in .rooda/runs/<run-id>/ (loop.runs_dir moves it,
loop.keep_runs keeps more or fewer than 50): run.json, and per iteration the exact
prompt sent, the output kept and meta.json. Only runs are pruned: nothing else
in the directory is removed. A run left "running" by a rooda killed outright is
shown as crashed (runs show --json keeps "status" as recorded and adds
"shown_status": "crashed"); a run cut short, crashed or interrupted, is resumed
where it stopped by rooda runs resume. A run id may be shortened to any part of it
that names one run, or given as "last" (the newest).`,
		Subcommands: []*cli.Command{{
			Name:  "list",
			Usage: "every recorded run, newest first: id, status, iterations, start",
			Description: `Examples:
  rooda runs list
  rooda runs list --run-name nightly    the runs started with --run-name nightly`,
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "run-name", Usage: "list only the runs started under `NAME` (rooda run --run-name NAME)"},
			},
			Action: func(c *cli.Context) error {
				if err := noArguments(c); err != nil {
					return err
				}
				cfg, err := loadConfig(c)
				if err != nil {
					return err
				}
				return runlog.WriteList(c.App.Writer, session.RunsDir(cfg), c.String("run-name"))
			},
		}, {
			Name:      "show",
			Usage:     "a run, or one of its iterations: its facts, prompt or output",
			ArgsUsage: "ID",
			Description: `Examples:
  rooda runs show last
  rooda runs show last --iteration 2
  rooda runs show last --iteration 2 --prompt > prompt.txt
  rooda runs show 20261123T101500.123456Z-build-1a2b --json
  rooda runs show 1a2b                  (any part of an id that names one run)`,
			Flags: []cli.Flag{
				&cli.IntFlag{Name: "iteration", Usage: "show iteration `N` of the run (counted across its loops)"},
				&cli.BoolFlag{Name: "prompt", Usage: "print the exact prompt the agent received"},
				&cli.BoolFlag{Name: "output", Usage: "print the output kept"},
				&cli.BoolFlag{Name: "json", Usage: "print run.json (with shown_status added) or meta.json"},
			},
			Action:       runsShowAction,
			BashComplete: completeRunIDs,
		}, {
			Name:      "diff",
			Usage:     "how the prompt changed between two iterations of a run",
			ArgsUsage: "ID N M",
			Description: `Examples:
  rooda runs diff last 1 2`,
			Action: runsDiffAction,
		}, {
			Name:  "serve",
			Usage: "the run records as web pages, on this machine, until interrupted",
			Description: `Serves the list of runs and each run's page: a timeline with a bar per
iteration (its length the duration, its colour the outcome, a limit wait before
it), a chart of the tokens and cost spent, each iteration's prompt, transcript,
output (loaded as the iteration is opened, 256 KiB at a time), facts, files
changed and prompt diff. The page of a run going on
reloads by itself when its record changes. Nothing is fetched from elsewhere
and nothing in the records is ever changed. The first line on stdout is the
address to open; Ctrl-C stops the server. Only requests for localhost, an IP
address or the host --addr names are answered, and no other site's page may
read the records (a page that renames itself 127.0.0.1 is refused).

With --fleet, the first page is the fleet's runs instead, as rooda fleet
status lists them (queued, running, how each ended, where each runs, its
iterations and spend), asked of the fleet every time the page is, and
reloaded as the fleet changes: the fleet of ROODA_FLEET_SERVER and the
fleet's other variables, or this machine's.

Examples:
  rooda runs serve
  rooda runs serve --addr 127.0.0.1:8080
  rooda runs serve --fleet`,
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "addr", Value: runpage.DefaultAddr, Usage: "listen on `HOST:PORT` (port 0: any free port); another host than 127.0.0.1 lets others read the records"},
				&cli.BoolFlag{Name: "fleet", Usage: "show the fleet's runs (rooda fleet status), live"},
			},
			Action: func(c *cli.Context) error {
				if err := noArguments(c); err != nil {
					return err
				}
				cfg, err := loadConfig(c)
				if err != nil {
					return err
				}
				var status runpage.FleetStatus
				if c.Bool("fleet") {
					if status, err = fleetStatus(); err != nil {
						return err
					}
				}
				ctx, watch := interrupt.Watch(c.Context)
				defer watch.Stop()
				if status != nil {
					return runpage.ServeFleet(ctx, c.String("addr"), session.RunsDir(cfg), status, c.App.Writer)
				}
				return runpage.Serve(ctx, c.String("addr"), session.RunsDir(cfg), c.App.Writer)
			},
		}, {
			Name:      "report",
			Usage:     "a run's page as one self-contained HTML file",
			ArgsUsage: "ID",
			Description: `Writes the page runs serve shows for a run as a single file that needs no
server and fetches nothing (a CI artifact): its style inline, no script.

Examples:
  rooda runs report last -o run.html
  rooda runs report 20261123T101500.123456Z-build-1a2b > run.html`,
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "-", Usage: "write the page to `FILE` (- is stdout)"},
			},
			Action:       runsReportAction,
			BashComplete: completeRunIDs,
		}, runsResumeCommand()},
	}
}

// findRun loads the configuration and resolves query to a recorded run:
// the runs directory and the run's id.
func findRun(c *cli.Context, query string) (runsDir, id string, err error) {
	cfg, err := loadConfig(c)
	if err != nil {
		return "", "", err
	}
	runsDir = session.RunsDir(cfg)
	id, err = runlog.Find(runsDir, query)
	return runsDir, id, err
}

func runsReportAction(c *cli.Context) error {
	query, err := oneArgument(c, "run ID")
	if err != nil {
		return err
	}
	runsDir, id, err := findRun(c, query)
	if err != nil {
		return err
	}
	if c.String("output") == "-" {
		return runpage.WriteReport(c.App.Writer, runsDir, id)
	}
	return runpage.WriteReportFile(c.String("output"), runsDir, id)
}

func runsShowAction(c *cli.Context) error {
	query, err := oneArgument(c, "run ID")
	if err != nil {
		return err
	}
	runsDir, id, err := findRun(c, query)
	if err != nil {
		return err
	}
	if c.Bool("prompt") && c.Bool("output") {
		return fmt.Errorf("--prompt and --output cannot be used together: they print one file each")
	}
	dir, n := filepath.Join(runsDir, id), c.Int("iteration")
	if n == 0 {
		if c.Bool("prompt") || c.Bool("output") {
			return fmt.Errorf("--prompt and --output need --iteration N")
		}
		return runlog.WriteRun(c.App.Writer, runsDir, id, c.Bool("json"))
	}
	for _, file := range []string{"prompt", "output"} {
		if c.Bool(file) {
			return copyShown(c.App.Writer, dir, n, file+".txt")
		}
	}
	return runlog.WriteIteration(c.App.Writer, dir, n, c.Bool("json"))
}

func runsDiffAction(c *cli.Context) error {
	args := arguments(c)
	if len(args) != 3 {
		return fmt.Errorf("runs diff takes ID N M, got %d arguments", len(args))
	}
	runsDir, id, err := findRun(c, args[0])
	if err != nil {
		return err
	}
	var numbers [2]int
	for i, arg := range args[1:] {
		n, err := strconv.Atoi(arg)
		if err != nil || n < 1 {
			return fmt.Errorf("%q is not an iteration number", arg)
		}
		numbers[i] = n
	}
	diff, err := runlog.DiffPrompts(filepath.Join(runsDir, id), numbers[0], numbers[1], files.RecordedPromptLimit)
	if err != nil {
		return err
	}
	_, err = fmt.Fprint(c.App.Writer, shown.Text(diff))
	return err
}

func contextCommand() *cli.Command {
	runFlag := &cli.StringFlag{Name: "run", Usage: "the run `ID` (default: the newest run going on in this workspace)"}
	return &cli.Command{
		Name:  "context",
		Usage: "add context to a run while it goes on",
		Subcommands: []*cli.Command{{
			Name:      "add",
			Usage:     "give the next iterations more context: text, or a file's content",
			ArgsUsage: "TEXT|FILE",
			Description: `The run reads it before its next iteration and shows it in its own section,
CONTEXT ADDED WHILE RUNNING, after CONTEXT; the log names the iteration that
first receives it. A file is read now: later changes to it do not count. A run
that has ended is refused: no iteration would read what is added to it. So is
what would bring the context added to the run past 17 MiB in all, which the
loop would leave out (rooda context clear makes room).

Examples:
  rooda context add "The login tests are flaky; ignore them."
  rooda context add notes.md --run 20261123T101500.123456Z-build-1a2b`,
			Flags: []cli.Flag{runFlag},
			Action: func(c *cli.Context) error {
				value, err := oneArgument(c, "TEXT or FILE")
				if err != nil {
					return err
				}
				dir, err := targetRun(c)
				if err != nil {
					return err
				}
				block, _, err := prompt.ContextBlock(c.Context, prompt.ContextValue{Value: value, Kind: prompt.Given})
				if err != nil {
					return err
				}
				name, err := runlog.AddContext(dir, block)
				if err == nil {
					fmt.Fprintf(c.App.Writer, "added %s to %s\n", name, filepath.Base(dir))
				}
				return err
			},
		}, {
			Name:        "clear",
			Usage:       "remove the context added to a run so far",
			Description: "Examples:\n  rooda context clear",
			Flags:       []cli.Flag{runFlag},
			Action: func(c *cli.Context) error {
				if err := noArguments(c); err != nil {
					return err
				}
				dir, err := targetRun(c)
				if err != nil {
					return err
				}
				return runlog.ClearContext(dir)
			},
		}},
	}
}

// targetRun is the directory of the run --run names, or of the newest
// run going on: one that has not ended.
func targetRun(c *cli.Context) (string, error) {
	cfg, err := loadConfig(c)
	if err != nil {
		return "", err
	}
	return runlog.ContextTarget(session.RunsDir(cfg), c.String("run"))
}

// copyShown writes a file of record n of a run to w: its exact bytes
// into a pipe or a file, and, on a terminal, its control characters
// written visibly (an agent's output may hold OSC 52, which would write
// the reader's clipboard).
func copyShown(w io.Writer, runDir string, n int, name string) error {
	if f, ok := w.(*os.File); !ok || !isTerminal(f) {
		return runlog.CopyFile(w, runDir, n, name)
	}
	shownW := &shown.TextWriter{W: w}
	if err := runlog.CopyFile(shownW, runDir, n, name); err != nil {
		return err
	}
	return shownW.Flush()
}
