package fleet

import (
	"fmt"
	"path/filepath"

	"rooda/host/runlog"
)

// next is what a worker does with a run in its workspace, from the last
// record there: run its command line (no record), resume the record cut
// short, write the ending of a record that ended, or leave a record
// whose rooda still goes.
type next struct {
	argv   []string
	record string
	ended  *Ending
	going  bool
}

// whatNext reads the workspace at dir of run.
func whatNext(dir string, run Run) next {
	runs := filepath.Join(dir, runlog.DefaultDir)
	ids, err := runlog.IDs(runs)
	if err != nil || len(ids) == 0 {
		return next{argv: run.Argv}
	}
	id := ids[len(ids)-1]
	r, err := runlog.ReadRun(runs, id)
	switch {
	case err != nil:
		return next{argv: run.Argv}
	case r.Going():
		return next{record: id, going: true}
	case r.Resumable() == nil:
		return next{argv: []string{"runs", "resume", id}, record: id}
	}
	code := 1
	if r.ExitCode != nil {
		code = *r.ExitCode
	}
	return next{record: id, ended: &Ending{Status: r.ShownStatus(), ExitCode: code, Record: id}}
}

// lastRecord is the id of the last run recorded in dir, and how it
// ended, in the words of `rooda runs list`.
func lastRecord(dir string) (id, status string, err error) {
	runs := filepath.Join(dir, runlog.DefaultDir)
	ids, err := runlog.IDs(runs)
	if err != nil {
		return "", "", err
	}
	if len(ids) == 0 {
		return "", "", fmt.Errorf("rooda left no record in %s", runs)
	}
	id = ids[len(ids)-1]
	r, err := runlog.ReadRun(runs, id)
	if err != nil {
		return id, "", err
	}
	return id, r.ShownStatus(), nil
}
