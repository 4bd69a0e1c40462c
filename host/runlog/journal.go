package runlog

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"rooda/host/agentstream"
	"rooda/host/files"
	"rooda/host/git"
	"rooda/host/journal"
	"rooda/host/loop"
	"rooda/host/process"
)

// The journal of a run (host/journal) sits in its record beside run.json:
// the iterations that began and ended, with what each agent gave, and
// every call of a script with an effect or an answer from outside, which
// the session appends (Journal). A resumed run reads it back (Resume).

// lockName is the file of a record that the rooda writing it holds
// locked while it runs: a resume cannot take a run that another rooda
// still writes, and two resumes at once cannot both take one.
const lockName = ".lock"

// errBusy is a record another rooda holds: it writes it still.
var errBusy = errors.New("the record is held by another rooda")

// openJournal opens the run's journal for appending, and takes the
// record's lock, held until the process ends.
func (r *Recorder) openJournal() error {
	lock, busy, err := files.Lock(filepath.Join(r.dir, lockName))
	if busy {
		err = errBusy
	}
	if err != nil {
		return err
	}
	w, err := journal.Open(filepath.Join(r.dir, journal.Name))
	if err != nil {
		lock.Close()
		return err
	}
	r.lock, r.journal = lock, w
	return nil
}

// Journal appends e to the run's journal; sync makes it durable before
// Journal returns. A journal that cannot be written is the record's
// first error, as any file of it.
func (r *Recorder) Journal(e journal.Entry, sync bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.mend(r.records + 1)
	r.appendEntry(e, sync)
}

// appendEntry appends e, with r.mu held.
func (r *Recorder) appendEntry(e journal.Entry, sync bool) {
	r.appendWith(e, func(w *journal.Writer, e journal.Entry) error { return w.Append(e, sync) })
}

// appendEnded appends an iteration's end, forced to the disk while the
// next agent starts (journal.Writer.AppendSyncedSoon) after the files it
// names, with r.mu held.
func (r *Recorder) appendEnded(e journal.Entry, opened ...*os.File) {
	if r.journal == nil {
		files.CloseAll(opened)
		return
	}
	r.appendWith(e, func(w *journal.Writer, e journal.Entry) error { return w.AppendSyncedSoon(e, opened...) })
}

// appendWith appends e by write, with r.mu held.
func (r *Recorder) appendWith(e journal.Entry, write func(*journal.Writer, journal.Entry) error) {
	if r.journal == nil {
		return
	}
	if e.Kind != journal.Resumed {
		r.live = true
	}
	e.At = time.Now().UnixMilli()
	r.keep(write(r.journal, e))
}

// waitSynced waits for what the journal forces to the disk and for
// run.json's latest write (laterFile): the record as it is now is on the
// disk. With r.mu held.
func (r *Recorder) waitSynced() {
	r.keep(r.later.wait())
	if r.journal != nil {
		r.keep(r.journal.Settle())
	}
}

// mendJournal writes the journal again, when its file is gone with the
// rest of the record: from the file the run holds open, whose name alone
// is gone.
func (r *Recorder) mendJournal() {
	if r.journal == nil {
		return
	}
	path := filepath.Join(r.dir, journal.Name)
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		return
	}
	data, err := r.journal.Bytes()
	if err == nil {
		err = files.WriteWholeSynced(path, data)
	}
	if err == nil {
		r.journal.Close()
		r.journal, err = journal.Open(path)
	}
	r.keep(err)
}

// replayLimit bounds a file of an iteration read back for a resume: a
// prompt as large as runs diff reads.
const replayLimit = 64 << 20

// ended is what the journal keeps of an iteration that ended: enough to
// judge it again as it was judged, without its agent. The prompt, the
// output and the transcript stay in the iteration's files, named by
// their hashes.
type ended struct {
	Agent  string `json:"agent,omitempty"`
	Result process.Result
	// StartErr is why the agent could not start, if it could not.
	StartErr string               `json:"start_err,omitempty"`
	Decoded  *agentstream.Summary `json:"decoded,omitempty"`
	Spent    *Spent               `json:"spent,omitempty"`
	Stop     *loop.Stop           `json:"stop,omitempty"`
	Changes  *git.Changes         `json:"changes,omitempty"`
	Duration time.Duration        `json:"duration"`
	Waited   time.Duration        `json:"waited,omitempty"`
	Elapsed  time.Duration        `json:"elapsed"`
	// ContextAdded are the additions first given in the iteration: a
	// resumed run gives them as fresh to no other.
	ContextAdded []string `json:"context_added,omitempty"`
	// NoPromiseTag is set when what the agent said holds no promise
	// tag: its signals are none whatever its prompt and output hold, so
	// a loop no script sees replays it without reading them back.
	NoPromiseTag     bool   `json:"no_promise_tag,omitempty"`
	PromptSHA256     string `json:"prompt_sha256"`
	OutputSHA256     string `json:"output_sha256"`
	TranscriptSHA256 string `json:"transcript_sha256,omitempty"`
}

// endedOf is what the journal keeps of it, given the additions first
// given in it.
func endedOf(it *loop.Iteration, fresh []string) ended {
	e := ended{Agent: it.Agent, Result: it.Result, Decoded: it.Decoded, Spent: spentOf(it.Spent), Stop: it.Stop, Changes: it.Changes,
		Duration: it.Duration, Waited: it.Waited, Elapsed: it.Elapsed,
		PromptSHA256: sha256Hex([]byte(it.Prompt)), OutputSHA256: sha256Hex(it.Result.Output)}
	e.ContextAdded, e.NoPromiseTag = fresh, !loop.MaySignal(it.Said())
	e.Result.Output = nil
	if it.StartErr != nil {
		e.StartErr = it.StartErr.Error()
	}
	if it.Decoded != nil {
		e.TranscriptSHA256 = sha256Hex(it.Transcript)
	}
	return e
}

// replayed reads back what the journal keeps of an iteration that ended
// in record n of the run at runDir, with its files: a file that is gone
// or does not match its hash is an error, for the iteration cannot be
// judged again as it was. Unseen (no script sees the loop's iterations),
// the files are not read when the journal's entry is enough to judge it
// again: its agent said no promise tag. Nothing reads them then, and
// each is checked against its hash when something does.
func replayed(runDir string, n int, data json.RawMessage, unseen bool) (loop.Replayed, error) {
	var e ended
	if err := journal.Decode(data, &e); err != nil {
		return loop.Replayed{}, fmt.Errorf("the journal's entry of iteration record %d: %w", n, err)
	}
	rep := loop.Replayed{Ended: true, NoCompose: unseen, Changes: e.Changes, Duration: e.Duration, Waited: e.Waited, Elapsed: e.Elapsed, ContextAdded: e.ContextAdded}
	rep.Reply = loop.Reply{Result: e.Result, Decoded: e.Decoded, Stop: e.Stop, Spent: e.Spent.Spend()}
	if e.StartErr != "" {
		rep.StartErr = errors.New(e.StartErr)
	}
	if unseen && e.NoPromiseTag {
		return rep, nil
	}
	return withFiles(runDir, n, e, rep)
}

// withFiles is rep with the prompt, output and transcript of record n
// read back and checked against the hashes e holds.
func withFiles(runDir string, n int, e ended, rep loop.Replayed) (loop.Replayed, error) {
	read := func(name, sum string) ([]byte, error) {
		_, data, err := readRecord(runDir, iterationPart(n, name), replayLimit)
		if err == nil && sha256Hex(data) != sum {
			err = errors.New("it does not match the journal (changed since the run wrote it)")
		}
		var pathErr *fs.PathError
		if errors.As(err, &pathErr) {
			err = pathErr.Err // the path is said once, below
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(runDir, iterationPart(n, name)), err)
		}
		return data, nil
	}
	prompt, err := read(promptName, e.PromptSHA256)
	if err != nil {
		return loop.Replayed{}, err
	}
	if rep.Reply.Output, err = read(outputName, e.OutputSHA256); err != nil {
		return loop.Replayed{}, err
	}
	rep.Prompt = string(prompt)
	if e.Decoded != nil {
		if rep.Reply.Transcript, err = read(transcriptName, e.TranscriptSHA256); err != nil {
			return loop.Replayed{}, err
		}
	}
	return rep, nil
}
