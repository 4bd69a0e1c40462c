package main

import (
	"github.com/urfave/cli/v2"

	"rooda/host/agent"
	"rooda/host/config"
	"rooda/host/engine"
	"rooda/host/logging"
	"rooda/host/runlog"
)

func noRecordFlag() cli.Flag {
	return &cli.BoolFlag{Name: "no-record", Usage: "keep no record of the run in " + runlog.DefaultDir, Category: "Output"}
}

// runsDir is where runs are recorded: loop.runs_dir, else .rooda/runs
// in the workspace.
func runsDir(cfg *config.Config) string {
	if dir := config.RunsDir.In(&cfg.Loop); dir.Set && dir.V != "" {
		return dir.V
	}
	return runlog.DefaultDir
}

// keepRuns is how many records are kept: loop.keep_runs, else 50.
func keepRuns(cfg *config.Config) int {
	if keep := config.KeepRuns.In(&cfg.Loop); keep.Set {
		return keep.V
	}
	return runlog.DefaultKeep
}

// startRecord starts the record of a run, unless --no-record; a record
// that cannot be written is a warning, not the end of the run.
func startRecord(c *cli.Context, cfg *config.Config, name string) *runlog.Recorder {
	if c.Bool("no-record") {
		return nil
	}
	args, _ := c.App.Metadata["args"].([]string)
	rec, err := runlog.Start(runsDir(cfg), name, args, keepRuns(cfg))
	if err != nil {
		runLog(c, cfg).Warnf("no record of this run: %v", err)
		return nil
	}
	if w := rec.Warning(); w != "" {
		runLog(c, cfg).Warnf("%s", w)
	}
	return rec
}

// runLog logs as the run does, at its level and in its format, for what
// is said before the loop starts logging.
func runLog(c *cli.Context, cfg *config.Config) *logging.Logger {
	return logging.Configured(c.App.ErrWriter, config.LogLevel.In(&cfg.Loop).V, config.LogFormat.In(&cfg.Loop).V)
}

// stopStragglers stops what the run's agents left running where nothing
// told whose it was (no cgroup, its environment cleared), and says so in
// the run's log.
func stopStragglers(c *cli.Context, cfg *config.Config) {
	if left := agent.StopStragglers(); len(left) > 0 {
		runLog(c, cfg).Warnf("stopped %s still running below rooda as the run ended: %s", agent.Count(len(left)), agent.ProcessList(left))
	}
}

// asRecord is rec as the engine takes it: nil stays nil.
func asRecord(rec *runlog.Recorder) engine.Record {
	if rec == nil {
		return nil
	}
	return rec
}

// finishRecord writes how the run ended, and says if the record is
// incomplete.
func finishRecord(c *cli.Context, rec *runlog.Recorder, status string, code int) {
	if rec == nil {
		return
	}
	rec.Finish(status, code)
	if err := rec.Err(); err != nil {
		c.App.ErrWriter.Write([]byte("WARN: the record of this run in " + rec.Dir() + " is incomplete: " + err.Error() + "\n"))
	}
}
