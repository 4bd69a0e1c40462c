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
	return next{record: id, ended: &Ending{Status: r.ShownStatus(), ExitCode: code, Record: id, Progress: progressOf(r)}}
}

// lastRecord is the id of the last run recorded in dir, and its record.
func lastRecord(dir string) (string, runlog.Run, error) {
	runs := filepath.Join(dir, runlog.DefaultDir)
	ids, err := runlog.IDs(runs)
	if err != nil {
		return "", runlog.Run{}, err
	}
	if len(ids) == 0 {
		return "", runlog.Run{}, fmt.Errorf("rooda left no record in %s", runs)
	}
	id := ids[len(ids)-1]
	r, err := runlog.ReadRun(runs, id)
	return id, r, err
}

// progressIn is how far the run recorded last in dir got; false while
// there is no record to say.
func progressIn(dir string) (Progress, bool) {
	_, r, err := lastRecord(dir)
	if err != nil {
		return Progress{}, false
	}
	return progressOf(r), true
}

// progressOf is a record's iterations and spend.
func progressOf(r runlog.Run) Progress {
	p := Progress{Iterations: r.Iterations}
	if s := r.Spent; s != nil {
		p.Tokens = s.InputTokens + s.OutputTokens + s.CacheReadTokens + s.CacheWriteTokens
		if s.CostUSD != nil {
			p.CostUSD = *s.CostUSD
		}
	}
	return p
}
