package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"rooda/host/fleet"
	"rooda/host/telemetry"
)

// roodaEnv names the rooda that execs rooda-fleet: the program each run
// runs, the same build as the command that started the worker.
const roodaEnv = "ROODA_FLEET_ROODA"

func workerCommand() *cli.Command {
	return &cli.Command{
		Name:  "worker",
		Usage: "work the fleet's queued runs, --slots at a time, until Ctrl+C",
		Description: `Takes the queued runs one after another, --slots at a time, and runs each as
rooda run or rooda script run would, in a workspace of its own under
--workspaces, on the branch rooda/fleet/NAME: a clone of the run's
repository (fleet add --repo), or a git worktree of the checkout the run
was queued from. What each run's rooda prints goes to
--workspaces/logs/NAME.log; its record is in its workspace, and written
through to the fleet's store as it grows; a clone's branch is pushed to
its repository at each iteration's beginning and end.

While a run goes on, the worker renews its lease on it every third of
--lease. A worker that dies (kill -9, a lost machine) stops renewing: once
the lease lapses, another worker takes the run and, where it finds the
run's workspace and a record cut short, resumes it (rooda runs resume);
a run of a repository, on any machine, from a clone of its pushed branch
and its record from the store.
A worker that learns another has taken its run stops it. Ctrl+C or
SIGTERM stops the runs going on (interrupted, resumable) and gives them
back to the queue.

Examples:
  rooda fleet worker                            one run at a time
  rooda fleet worker --slots 4 --lease 1m
  ROODA_FLEET_SERVER=nats://fleet.example.org:4222 rooda fleet worker`,
		Flags: append([]cli.Flag{
			&cli.IntFlag{Name: "slots", Value: 1, Usage: "work `N` runs at a time"},
			&cli.DurationFlag{Name: "lease", Value: fleet.DefaultLease, Usage: "how long a run stays this worker's unrenewed, `DURATION`: the fleet's lease (the last worker to start sets it)"},
			&cli.StringFlag{Name: "workspaces", Usage: "the runs' workspaces, `DIR`", DefaultText: "--store/workspaces"},
			serverFlag(), storeFlag(),
		}, credentialFlags()...),
		Action: workerAction,
	}
}

func workerAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return fmt.Errorf("fleet worker takes no argument, got %q", c.Args().First())
	}
	if c.Int("slots") < 1 {
		return errors.New("--slots: at least 1")
	}
	if c.Duration("lease") < time.Second {
		return errors.New("--lease: at least 1s (it is renewed every third of it)")
	}
	rooda, err := roodaProgram()
	if err != nil {
		return err
	}
	workspaces := c.String("workspaces")
	if workspaces == "" {
		workspaces = filepath.Join(c.String("store"), "workspaces")
	}
	f, err := connect(c)
	if err != nil {
		return err
	}
	defer f.Close()
	q, err := f.Queue(c.Context, c.Duration("lease"))
	if err != nil {
		return err
	}
	// With traces asked for (OTEL_EXPORTER_OTLP_ENDPOINT…), a span of
	// each run taken, its runs' traces under it.
	tracing, err := telemetry.StartProcess(func(format string, args ...any) {
		fmt.Fprintf(c.App.ErrWriter, "WARN: Traces: "+format+"\n", args...)
	})
	if err != nil {
		return err
	}
	defer tracing.Shutdown()
	host, _ := os.Hostname()
	w := &fleet.Worker{
		Tracer:     tracing.Tracer(),
		Queue:      q,
		Name:       fmt.Sprintf("%s:%d", host, os.Getpid()),
		Rooda:      rooda,
		Workspaces: workspaces,
		Logs:       filepath.Join(workspaces, "logs"),
		Log:        c.App.ErrWriter,
		Grace:      10 * time.Second,
		Ledger:     f.Accounts(),
	}
	fmt.Fprintf(c.App.ErrWriter, "Worker %s: %d slot(s), lease %s, workspaces %s\n", w.Name, c.Int("slots"), c.Duration("lease"), workspaces)
	return w.Work(c.Context, c.Int("slots"))
}

// roodaProgram is the rooda each run runs: the one that execed this
// program, else the rooda beside it.
func roodaProgram() (string, error) {
	if p := os.Getenv(roodaEnv); p != "" {
		return p, nil
	}
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	p := filepath.Join(filepath.Dir(self), "rooda")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("no rooda beside %s to run the runs with: install both (go install ./cmd/...)", self)
	}
	return p, nil
}
