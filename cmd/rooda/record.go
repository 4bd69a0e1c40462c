package main

import (
	"os"
	"strconv"

	"github.com/urfave/cli/v2"

	"rooda/host/engine"
	"rooda/host/runlog"
)

func noRecordFlag() cli.Flag {
	return &cli.BoolFlag{Name: "no-record", Usage: "keep no record of the run in " + runlog.DefaultDir, Category: "Output"}
}

// runsDir is where runs are recorded: $ROODA_RUNS_DIR, else .rooda/runs
// in the workspace.
func runsDir() string {
	if dir := os.Getenv("ROODA_RUNS_DIR"); dir != "" {
		return dir
	}
	return runlog.DefaultDir
}

// keepRuns is how many records are kept: $ROODA_KEEP_RUNS, else 50.
func keepRuns() int {
	if n, err := strconv.Atoi(os.Getenv("ROODA_KEEP_RUNS")); err == nil && n > 0 {
		return n
	}
	return runlog.DefaultKeep
}

// startRecord starts the record of a run, unless --no-record; a record
// that cannot be written is a warning, not the end of the run.
func startRecord(c *cli.Context, name string) *runlog.Recorder {
	if c.Bool("no-record") {
		return nil
	}
	args, _ := c.App.Metadata["args"].([]string)
	rec, err := runlog.Start(runsDir(), name, args, keepRuns())
	if err != nil {
		c.App.ErrWriter.Write([]byte("WARN: no record of this run: " + err.Error() + "\n"))
		return nil
	}
	return rec
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
