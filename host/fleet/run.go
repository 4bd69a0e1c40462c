package fleet

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Run is a run queued in the fleet: the command line rooda runs, in a
// workspace made from Repo (a clone) or Dir (a worktree) at Ref.
type Run struct {
	// Name is the run's key in the fleet, unique among its runs.
	Name string `json:"name"`
	// Argv is rooda's arguments, as `rooda run` or `rooda script run`
	// take them: ["run", "build", "-n", "3"].
	Argv []string `json:"argv"`
	// Dir is the git checkout the run's workspace is made from, and Ref
	// the commit it starts at (resolved when the run is queued, so that
	// later commits do not change what it works on).
	Dir string `json:"dir,omitempty"`
	Ref string `json:"ref"`
	// Repo, when set, is the repository the run's workspace is cloned
	// from instead (any URL git clones, or an absolute path), by each
	// worker that takes the run: its remote, to which the workspace's
	// branch is pushed as the run goes, so that a worker on another
	// machine goes on from it.
	Repo string `json:"repo,omitempty"`
	// Subdir is the directory, relative to the checkout's top, that
	// rooda runs in: where the run was queued from.
	Subdir string `json:"subdir,omitempty"`
	// Queued is when it was added.
	Queued time.Time `json:"queued"`
}

// RoodaArgs are the arguments of rooda that run target (a procedure's
// name, or a Starlark script's file) with args: `rooda script run` for a
// script, `rooda run` for a procedure.
func RoodaArgs(target string, args []string) []string {
	if strings.HasSuffix(target, ".star") {
		return append([]string{"script", "run", target}, args...)
	}
	return append([]string{"run", target}, args...)
}

// CheckName says why name cannot name a run, or nil. A name is a key of
// the state bucket and the last part of the run's git branch alike, so
// it keeps to what both take.
func CheckName(name string) error {
	ok := name != "" && len(name) <= 100 && name[0] != '-' && name[0] != '_'
	for _, c := range name {
		ok = ok && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_')
	}
	if !ok {
		return fmt.Errorf("run name %q: letters, digits, '-' and '_' only, starting with a letter or digit, at most 100", name)
	}
	return nil
}

func (r Run) check() error {
	if err := CheckName(r.Name); err != nil {
		return err
	}
	if len(r.Argv) == 0 {
		return errors.New("a run needs a procedure or a script to run")
	}
	if r.Dir == "" && r.Repo == "" || r.Ref == "" {
		return errors.New("a run needs the checkout or repository and the commit its workspace is made from")
	}
	return nil
}
