package runlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"rooda/host/files"
	"rooda/host/journal"
	"rooda/host/units"
)

// ResumeOptions are how a resume takes a record (ResumeWith).
type ResumeOptions struct {
	// Force resumes over a journal that disagrees with the record: what
	// it no longer holds runs again, in new iteration records.
	Force bool
	// Say is told what the resume waits for; nil says nothing.
	Say func(string)
}

// lockWait bounds the wait for a record's lock whose rooda is gone: a
// process it was starting when it was killed (forked, not yet running
// its program) holds a copy of the lock until it runs its program or
// dies, a matter of milliseconds, longer on a loaded machine.
const lockWait = 10 * time.Second

// lockRecord takes the record's lock for a resume. Held by a live rooda
// (the run's, or a resume's), it is refused at once; held while the
// recorded rooda is gone, it is waited for, up to lockWait.
func (r *Recorder) lockRecord(dir, id string, say func(string)) error {
	deadline := time.Now().Add(lockWait)
	for said := false; ; said = true {
		lock, busy, err := files.Lock(filepath.Join(r.dir, lockName))
		if !busy {
			r.lock = lock
			return err
		}
		run, err := ReadRun(dir, id)
		switch {
		case err != nil:
			return err
		case run.Going():
			return run.stillGoing()
		case time.Now().After(deadline):
			return fmt.Errorf("run %s: its record is still locked %s after its rooda (pid %d) ended, by a process it started; try again once that process has ended", id, units.Duration(lockWait), run.PID)
		}
		if !said && say != nil {
			say(fmt.Sprintf("run %s: waiting for its record, still held by a process its rooda (pid %d) was starting when it ended", id, run.PID))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// openChecked opens the run's journal for appending once it is checked
// against the record (checkJournal), and returns its entries. Forced
// over a damaged journal, it keeps the damaged file beside it, names
// in the record what runs again (journal.Dropped) and says so.
func (r *Recorder) openChecked(force bool) ([]journal.Entry, error) {
	path := filepath.Join(r.dir, journal.Name)
	// The records' directories are listed while the journal is read:
	// thousands of each in a long run.
	listed := make(chan []int, 1)
	go func() {
		records, _ := Records(r.dir)
		listed <- records
	}()
	data, err := journal.ReadBytes(path)
	if err != nil {
		return nil, err
	}
	// Parsed once: the check, the writer and the replay take these.
	entries, good := journal.Parse(data)
	records := <-listed
	r.lastRecord = lastRecord(records)
	bad := checkJournal(r.dir, data, entries, good, records)
	if bad != nil && !force {
		return nil, bad
	}
	if bad != nil {
		kept := path + ".damaged"
		if err := files.WriteWholeSynced(kept, data); err != nil {
			return nil, err
		}
		r.warning = fmt.Sprintf("resuming over a damaged journal (--force): %s; the journal as it was is kept in %s", bad.told(), kept)
	}
	tail := lastEnds(r.dir, entries, force)
	r.suspect, r.suspectGone, r.found = tail.refused, tail.gone, tail.files
	var dropped []int // records that ended, which the journal no longer holds
	if bad != nil {
		dropped = bad.again
	}
	if i := tail.lost; i >= 0 {
		// Cut where that end begins: it and the iterations after it run
		// again, as they would had their ends not reached the disk either.
		r.warning = join(r.warning, tail.told(entries))
		for _, e := range entries[i:] {
			if e.Kind == journal.Ended {
				dropped = append(dropped, e.Record)
			}
		}
		entries, good = entries[:i], journal.LineStart(data, i)
	}
	if r.journal, err = journal.OpenAfter(path, good); err != nil {
		return nil, err
	}
	// Their records stay, with their meta.json: the next resume knows
	// them for accounted for.
	entries = slices.Clip(entries)
	for _, n := range dropped {
		e := journal.Entry{Kind: journal.Dropped, Record: n}
		r.keep(r.journal.Append(e, false))
		entries = append(entries, e)
	}
	return entries, nil
}

// tail is what a resume finds of the journal's last ends, whose files a
// power loss may have taken (lastEnds).
type tail struct {
	// lost is the index among the entries of the first end whose files
	// a power loss took, -1 for none.
	lost int
	// refused is the record of the first end with a file changed or
	// gone otherwise, which the replay refuses (0 for none); gone says
	// it is gone.
	refused int
	gone    bool
	// files are those of the ends checked and found whole.
	files []string
}

// told says which end's files a power loss took, and what runs again.
func (t tail) told(entries []journal.Entry) string {
	again := "it runs again"
	n := 0
	for _, e := range entries[t.lost+1:] {
		if e.Kind == journal.Ended {
			n++
		}
	}
	if n == 1 {
		again += ", and so does the one that ended after it"
	} else if n > 1 {
		again += fmt.Sprintf(", and so do the %d that ended after it", n)
	}
	return fmt.Sprintf("the files of %s did not all reach the disk before the run stopped (a power loss as it ended): %s", iterationPart(entries[t.lost].Record, ""), again)
}

// lastEnds checks the files of the journal's last journal.MaxUnsynced
// iteration ends against their hashes. An end's files reach the disk
// after it is written, with those of the ends appended meanwhile, and
// at most that many ends wait so (journal.Writer.AppendSyncedSoon): a
// power loss can leave them without their files, and the entries after
// them unforced, as lost as the ends. What a power loss leaves of a file
// written whole is an empty file, as old as its end (ext4), or none (on
// some file systems). The first end with a file so emptied is cut with
// what follows; one with a file gone is cut when forced (it may be an
// agent's git clean); one changed otherwise, or emptied since, is left
// to the replay, which refuses it as it reads it.
func lastEnds(runDir string, entries []journal.Entry, force bool) tail {
	t := tail{lost: -1}
	var ends []int // the last first
	for i := len(entries) - 1; i >= 0 && len(ends) < journal.MaxUnsynced; i-- {
		if entries[i].Kind == journal.Ended {
			ends = append(ends, i)
		}
	}
	for _, i := range slices.Backward(ends) {
		e := entries[i]
		var end ended
		if json.Unmarshal(e.Result, &end) != nil {
			continue
		}
		switch endState(runDir, e.Record, end, time.UnixMilli(e.At)) {
		case filesWhole:
			t.files = append(t.files, endFiles(runDir, e.Record, end.Decoded != nil)...)
			continue
		case fileEmptied:
			t.lost = i
		case fileGone:
			if force {
				t.lost = i
			} else {
				t.refused, t.gone = e.Record, true
			}
		default:
			t.refused = e.Record
		}
		return t
	}
	return t
}

// The states of an end's files (endState).
const (
	filesWhole  = iota
	fileEmptied // empty where the journal says it held something, and no newer than the end: a power loss's
	fileGone
	fileChanged
)

// emptiedSince is how much newer than its end an emptied file may be and
// still be the power loss's (the clock's steps, a coarse file time): one
// emptied later was emptied by someone.
const emptiedSince = 2 * time.Second

// endState tells whether the files of record n are as its end e, written
// at at, says.
func endState(runDir string, n int, e ended, at time.Time) int {
	state := filesWhole
	for _, f := range [][2]string{{promptName, e.PromptSHA256}, {outputName, e.OutputSHA256}, {transcriptName, e.TranscriptSHA256}} {
		if f[1] == "" {
			continue
		}
		data, mod, err := readRecordWithTime(runDir, iterationPart(n, f[0]))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return fileGone
		case err == nil && sha256Hex(data) == f[1]:
		case err == nil && len(data) == 0 && !mod.After(at.Add(emptiedSince)):
			state = max(state, fileEmptied)
		default:
			return fileChanged
		}
	}
	return state
}

// readRecordWithTime reads a record's file as readRecord does, with its
// modification time.
func readRecordWithTime(runDir, rel string) ([]byte, time.Time, error) {
	f, err := openRecord(runDir, rel)
	if err != nil {
		return nil, time.Time{}, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, time.Time{}, err
	}
	data, err := files.ReadAll(f, filepath.Join(runDir, rel), replayLimit)
	return data, info.ModTime(), err
}

// endFiles are the paths of the files iteration record n's end names:
// its prompt, its output and, for a decoded CLI's, its transcript.
func endFiles(runDir string, n int, transcript bool) []string {
	names := []string{promptName, outputName}
	if transcript {
		names = append(names, transcriptName)
	}
	paths := make([]string, len(names))
	for i, name := range names {
		paths[i] = filepath.Join(runDir, iterationPart(n, name))
	}
	return paths
}

// join is two warnings in one.
func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// JournalError is a journal that disagrees with its record: a line of it
// is damaged, or iterations the record says ended are not in it. Resumed
// as it is, the run would run them again, and lose the entries after
// the damaged line.
type JournalError struct {
	path string
	// line is the first damaged line (from 1), 0 for none; after the
	// whole entries after it, which would be lost.
	line, after int
	// again are the iteration records that ended but that the journal
	// does not hold: they would run again.
	again []int
	// ends is the journal's number of lines, said when none is damaged.
	ends int
}

func (e *JournalError) Error() string {
	return "cannot resume: the journal disagrees with the record: " + e.told() + "; --force resumes all the same, running again what the journal lacks, in new iteration records"
}

// ExitCode is a record's error's.
func (e *JournalError) ExitCode() int { return 1 }

// told says what is wrong and what would run again.
func (e *JournalError) told() string {
	var b strings.Builder
	if e.line > 0 {
		fmt.Fprintf(&b, "%s:%d is damaged (not a whole entry: its checksum or its JSON is wrong)", e.path, e.line)
		if e.after > 0 {
			fmt.Fprintf(&b, ", and the %d whole entries after it would be lost", e.after)
		}
	} else {
		fmt.Fprintf(&b, "%s ends at line %d", e.path, e.ends)
	}
	if len(e.again) == 0 {
		b.WriteString("; the calls after it would run again")
		return b.String()
	}
	names := make([]string, len(e.again))
	for i, n := range e.again {
		names[i] = iterationPart(n, "")
	}
	fmt.Fprintf(&b, "; %d iterations that ended by the record would run again: %s", len(e.again), strings.Join(names, ", "))
	return b.String()
}

// checkJournal compares the journal (its bytes, and the entries read
// from them) with the record at runDir: nil when they agree. They
// disagree when a line is damaged and more follows it, or when an
// iteration record holds a meta.json (the iteration ended) and the
// journal names it nowhere. An iteration whose meta.json was written and
// whose end was not yet journaled when rooda was killed is in the
// journal as begun: it runs again, as the one in flight. good is the
// length of the entries (Parse), records the iteration records under
// runDir (Records); only those the journal does not name are looked into.
func checkJournal(runDir string, data []byte, entries []journal.Entry, good int64, records []int) *JournalError {
	e := &JournalError{path: filepath.Join(runDir, journal.Name), ends: bytes.Count(data, []byte("\n"))}
	if d, ok := journal.DamagedAfter(data, good); ok {
		e.line, e.after = d.Line, len(d.After)
	}
	known := map[int]bool{}
	for _, en := range entries {
		known[en.Record] = true
	}
	for _, n := range records {
		if known[n] {
			continue
		}
		if _, err := statRecord(runDir, iterationPart(n, "meta.json")); err == nil {
			e.again = append(e.again, n)
		}
	}
	if e.line == 0 && len(e.again) == 0 {
		return nil
	}
	return e
}

// lastRecord is the highest of a run's iteration record numbers
// (Records): a resumed run numbers its new iterations after it, whatever
// its journal names, so that none is written over.
func lastRecord(records []int) int {
	if len(records) == 0 {
		return 0
	}
	return slices.Max(records)
}

// beingResumed says that a live rooda resumes the run: the pid the
// record names is the last resume's.
func (r Run) beingResumed() error {
	return fmt.Errorf("run %s is being resumed by pid %d", r.ID, r.PID)
}

// resumedNow is the error of the newest run under dir that a live rooda
// is resuming, nil when there is none: a second resume at once should
// say so, not that nothing was cut short.
func resumedNow(dir string) error {
	run, found, err := newest(dir, func(r Run) bool {
		n := len(r.Resumes)
		return r.Going() && n > 0 && r.Resumes[n-1].PID == r.PID
	})
	if err != nil || !found {
		return err
	}
	return run.beingResumed()
}
