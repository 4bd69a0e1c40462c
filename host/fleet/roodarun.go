package fleet

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"rooda/host/ledger"
)

type runEnd struct {
	Ending
	err error
}

// rooda runs rooda with argv in dir, its output in the run's log, and
// reads how it ended from the record it left; env is added to the
// worker's environment. Stopped by ctx, it gets
// SIGTERM (the run ends interrupted, its record resumable), then SIGKILL
// after the grace period; the worker's death kills it too (its parent
// death signal), so no run goes on unheld.
func (w *Worker) rooda(ctx context.Context, dir, name string, argv, env []string) runEnd {
	failed := func(err error) runEnd { return runEnd{Ending{Status: "error", ExitCode: 1}, err} }
	if err := os.MkdirAll(w.Logs, 0o755); err != nil {
		return failed(err)
	}
	log, err := os.OpenFile(filepath.Join(w.Logs, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return failed(err)
	}
	defer log.Close()
	cmd := exec.CommandContext(ctx, w.Rooda, argv...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, log, log
	if w.ledgerAddr != "" {
		env = append(env[:len(env):len(env)], ledger.Env+"="+w.ledgerAddr)
	}
	cmd.Env = append(withoutFleetAccess(os.Environ()), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = w.Grace
	err = cmd.Run()
	code := cmd.ProcessState.ExitCode()
	id, r, recErr := lastRecord(dir)
	if recErr != nil {
		return runEnd{Ending{Status: "error", ExitCode: code}, errors.Join(err, recErr)}
	}
	return runEnd{Ending{Status: r.ShownStatus(), ExitCode: code, Record: id, Progress: progressOf(r)}, nil}
}

// withoutFleetAccess is the worker's environment less what reaches the
// fleet (its server's URL with its token, a creds file, TLS keys: every
// ROODA_FLEET_ variable): the run's rooda never talks to NATS, and its
// agent, which may be made to run anything, must not be able to queue a
// run that every worker would run, nor read the other runs' records.
func withoutFleetAccess(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "ROODA_FLEET_") })
}
