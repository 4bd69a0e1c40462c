package runlog

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"rooda/host/files"
	"rooda/host/journal"
	"rooda/host/loop"
	"rooda/host/process"
	"rooda/host/worktree"
)

// Resumption is a time a run was resumed, and by which process.
type Resumption struct {
	At  time.Time `json:"at"`
	PID int       `json:"pid"`
}

// Resumable says why the run cannot be resumed, or nil when it can: only
// a run cut short — crashed, killed outright, or interrupted — resumes;
// one that ended, however, does not, and one still going is its own
// rooda's.
func (r Run) Resumable() error {
	switch {
	case r.Going():
		return r.stillGoing()
	case r.Crashed(), r.Status == string(loop.Interrupted):
		return nil
	case r.Status == string(loop.Running):
		return fmt.Errorf("run %s is recorded as running by no process rooda can name: it cannot be told from a run still going", r.ID)
	}
	return r.ended()
}

// Over reports whether the run ended, however: it will never resume.
func (r Run) Over() bool {
	return r.Status != string(loop.Running) && r.Status != string(loop.Interrupted)
}

func (r Run) stillGoing() error {
	if n := len(r.Resumes); n > 0 && r.Resumes[n-1].PID == r.PID {
		return r.beingResumed()
	}
	return fmt.Errorf("run %s is still going (pid %d): only a run that was cut short resumes", r.ID, r.PID)
}

// ended says that the run ended, and how.
func (r Run) ended() error {
	code := ""
	if r.ExitCode != nil {
		code = fmt.Sprintf(", exit code %d", *r.ExitCode)
	}
	return fmt.Errorf("run %s has ended (%s%s): only a run that was cut short — crashed, killed or interrupted — resumes; start a new one", r.ID, r.Status, code)
}

// Resume takes the record of run id under dir for a rooda that resumes
// the run: the run must be resumable, and no other rooda may hold its
// record (two resumes at once: the second is refused). The record goes on
// as the run's: running again, by this process, with the time of the
// resume kept. Its loops, iterations and spend are counted again as the
// resumed run answers its iterations from the journal (Replay).
//
// Whether the rooda that wrote the record is gone is the record's lock's
// to say, which the kernel releases when its holder dies, wherever it
// ran: a recorded pid may be another live process's in a container on
// another node, where rooda runs as pid 1 in every pod.
func Resume(dir, id, name string) (*Recorder, error) {
	return ResumeWith(dir, id, name, ResumeOptions{})
}

// ResumeWith is Resume, told how (ResumeOptions). The journal is checked
// against the record before the run trusts it (checkJournal).
func ResumeWith(dir, id, name string, opts ResumeOptions) (*Recorder, error) {
	run, err := ReadRun(dir, id)
	if err != nil {
		return nil, err
	}
	if run.Over() {
		return nil, run.ended()
	}
	if err := run.ResumedAs(name); err != nil {
		return nil, err
	}
	r := newRecorder(filepath.Join(dir, id), run)
	if _, err := os.Stat(filepath.Join(r.dir, journal.Name)); errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("run %s has no journal (%s): it was recorded by an older rooda, and cannot be resumed", id, journal.Name)
	}
	_, lockErr := os.Stat(filepath.Join(r.dir, lockName))
	if err := r.lockRecord(dir, id, opts.Say); err != nil {
		return nil, err
	}
	// Another resume may have taken the run and ended it before the lock
	// was ours: what counts is the record as it is now. A lock file made
	// just now, when the record's pid lives, is no proof: the record was
	// removed (git clean) under a run still going.
	if r.run, err = ReadRun(dir, id); err == nil && r.run.Over() {
		err = r.run.ended()
	} else if err == nil && lockErr != nil && r.run.Going() {
		err = r.run.stillGoing()
	}
	var entries []journal.Entry
	if err == nil {
		// Read once the lock is ours: what another resume appended is in.
		entries, err = r.openChecked(opts.Force)
	}
	if err != nil {
		r.lock.Close()
		return nil, err
	}
	r.book = journal.NewBook(entries)
	r.before = elapsed(r.run, entries)
	r.records = max(r.book.Records(), r.lastRecord)
	now := time.Now().UTC()
	r.resumedFrom = r.run
	r.run.Status, r.run.ExitCode, r.run.Ended, r.run.InterruptedBy, r.run.Reason, r.run.Budget = string(loop.Running), nil, nil, "", "", nil
	r.run.PID, r.run.PIDStart = os.Getpid(), process.StartTime(os.Getpid())
	r.run.Resumes = append(r.run.Resumes, Resumption{At: now, PID: r.run.PID})
	// Said at once, with what the record held: the run's record is this
	// process's now. What the replay counts is written once it goes on.
	err = r.keep(writeJSON(filepath.Join(r.dir, "run.json"), r.run))
	r.run.Iterations, r.run.Spent, r.run.Worktrees = 0, nil, nil
	r.appendEntry(journal.Entry{Kind: journal.Resumed}, true)
	if r.journal != nil {
		// Found on the disk, perhaps not forced there by the rooda that
		// wrote them: forced with the first ends the resumed run
		// writes, before they can push them out of the next resume's
		// look (lastEnds), not at once, which would hold the resume.
		r.keep(r.journal.Force(r.found...))
	}
	return r, err
}

// elapsed is how long run went on before it was last cut short: from its
// start, and from each resume, to the last entry the journal holds
// before the next resume.
func elapsed(run Run, entries []journal.Entry) time.Duration {
	starts := []time.Time{run.Started}
	for _, r := range run.Resumes {
		starts = append(starts, r.At)
	}
	var total time.Duration
	segment, last := 0, time.Time{}
	end := func() {
		if segment < len(starts) && last.After(starts[segment]) {
			total += last.Sub(starts[segment])
		}
	}
	for _, e := range entries {
		if e.Kind == journal.Resumed {
			end()
			segment, last = segment+1, time.Time{}
			continue
		}
		if e.At > 0 {
			last = time.UnixMilli(e.At)
		}
	}
	end()
	return total
}

// Elapsed is how long the run went on before it was resumed; 0 for a
// run that was not.
func (r *Recorder) Elapsed() time.Duration { return r.before }

// ResumedAs refuses to resume the run as another procedure or script
// than name, or from another directory than the one it ran in: its
// procedure, its files and its record are found from there.
func (r Run) ResumedAs(name string) error {
	if r.Name != name {
		return fmt.Errorf("run %s ran %s, not %s: rooda runs resume %s runs it again as it was", r.ID, r.Name, name, r.ID)
	}
	wd, err := os.Getwd()
	if err != nil || r.Dir == "" {
		return err
	}
	if files.Canonical(wd) != files.Canonical(r.Dir) {
		return fmt.Errorf("run %s ran in %s: resume it from there (cd %s && rooda runs resume %s)", r.ID, r.Dir, r.Dir, r.ID)
	}
	return nil
}

// Book is the journal of the run before it was resumed; nil for a run
// that was not.
func (r *Recorder) Book() *journal.Book { return r.book }

// Replay answers the iterations of the loop that the journal of a
// resumed run holds (loop.Config.Replay); nil for a run that was not
// resumed.
func (l *LoopRecord) Replay() func(n int) loop.Replayed {
	book := l.r.book
	if book == nil {
		return nil
	}
	var ahead *ahead
	var once sync.Once
	return func(n int) loop.Replayed {
		// Begun on the first call, the loop's settings (Unseen) made.
		once.Do(func() { ahead = l.decodeAhead() })
		if rep, ok := ahead.take(n); ok {
			return rep
		}
		if e, ok := book.Ended(l.key, n); ok {
			return l.replayed(e)
		}
		_, again := book.Began(l.key, n)
		return loop.Replayed{Again: again}
	}
}

// ahead decodes the answers of a loop's ended iterations, from the first
// on, in two goroutines beside the loop that replays them (one takes the
// odd ones, one the even), at most aheadWindow past the one the loop
// takes: decoding them is most of a long run's resume, and each answer
// may hold its iteration's prompt and output.
type ahead struct {
	mu sync.Mutex
	// changed is signalled as an answer is decoded, and as the loop
	// takes half a window's answers: the decoders are woken once for
	// those, not once for each.
	changed sync.Cond
	// ring holds answer i (from 0) at i%aheadWindow, from its decoding
	// to its taking; taken counts the answers taken.
	ring [aheadWindow]struct {
		rep   loop.Replayed
		ready bool
	}
	taken, count int
}

// aheadWindow is how many answers may wait, decoded, for the loop.
const aheadWindow = 64

// decodeAhead starts decoding the loop's ended iterations.
func (l *LoopRecord) decodeAhead() *ahead {
	var entries []journal.Entry
	for n := 1; ; n++ {
		e, ok := l.r.book.Ended(l.key, n)
		if !ok {
			break
		}
		entries = append(entries, e)
	}
	return newAhead(len(entries), func(i int) loop.Replayed { return l.replayed(entries[i]) })
}

// newAhead starts decoding count answers, answer i (from 0) by decode.
func newAhead(count int, decode func(i int) loop.Replayed) *ahead {
	a := &ahead{count: count}
	a.changed.L = &a.mu
	for first := range 2 {
		go func() {
			for i := first; i < count; i += 2 {
				a.mu.Lock()
				for i >= a.taken+aheadWindow {
					a.changed.Wait()
				}
				a.mu.Unlock()
				rep := decode(i)
				a.mu.Lock()
				a.ring[i%aheadWindow].rep, a.ring[i%aheadWindow].ready = rep, true
				a.changed.Broadcast()
				a.mu.Unlock()
			}
		}()
	}
	return a
}

// take is the answer of iteration n, once; false past the ended
// iterations, or out of their order (the loop takes them in order). A
// loop that stops early leaves the decoders waiting, with at most the
// window's answers decoded.
func (a *ahead) take(n int) (loop.Replayed, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if n != a.taken+1 || n > a.count {
		return loop.Replayed{}, false
	}
	slot := &a.ring[(n-1)%aheadWindow]
	for !slot.ready {
		a.changed.Wait()
	}
	rep := slot.rep
	slot.rep, slot.ready = loop.Replayed{}, false
	a.taken = n
	if n%(aheadWindow/2) == 0 {
		a.changed.Broadcast()
	}
	return rep, true
}

// replayed is the answer of the ended iteration e.
func (l *LoopRecord) replayed(e journal.Entry) loop.Replayed {
	rep, err := replayed(l.r.dir, e.Record, e.Result, l.unseen)
	switch {
	case err != nil && e.Record == l.r.suspect && l.r.suspectGone:
		err = fmt.Errorf("%w (put it back and resume again; if it was lost, a resume with --force runs the iteration again)", err)
	case err != nil && e.Record == l.r.suspect:
		err = fmt.Errorf("%w (put it back as the run wrote it, and resume again)", err)
	}
	if err != nil {
		return loop.Replayed{Ended: true, Err: err}
	}
	return rep
}

// Unseen says that no script sees the loop's iterations (a YAML
// procedure's loop): Replay answers each from the journal alone when its
// entry is enough to judge it again, reading no file of its record, and
// its prompt is not composed again (loop.Replayed.NoCompose).
func (l *LoopRecord) Unseen() { l.unseen = true }

// CanResume reports whether run id under dir was cut short and keeps a
// journal to resume it from.
func CanResume(dir, id string) bool {
	run, err := ReadRun(dir, id)
	if err != nil || run.Over() {
		return false
	}
	_, err = os.Stat(filepath.Join(dir, id, journal.Name))
	return err == nil
}

// HoldName takes the name a run is started under (--run-name) for this
// process, until it ends: another rooda asking for the same name is
// refused while this one holds it, whether it starts the run or resumes
// it.
func HoldName(dir, name string) error {
	if !validRunName(name) {
		return fmt.Errorf("run name %q: use letters, digits, '.', '_' and '-', starting with a letter or digit", name)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, busy, err := files.Lock(filepath.Join(dir, ".name-"+name+".lock"))
	if busy {
		err = fmt.Errorf("a run named %s is going on: another rooda holds the name", name)
	}
	if err != nil {
		return err
	}
	heldNames = append(heldNames, f) // held until the process ends
	return nil
}

// heldNames are the run names this process holds, open until it ends.
var heldNames []*os.File

// validRunName reports whether name may name a run: a file name of
// letters, digits, '.', '_' and '-', starting with a letter or digit, as
// a worktree's, at most 100 long. (The bound is not the pattern's: a
// counted repetition compiles into a large program at every start of
// rooda, the sandbox's trampoline's included.)
func validRunName(name string) bool {
	return len(name) <= 100 && worktree.ValidName().MatchString(name)
}

// Named is the newest run under dir started under name (--run-name), if
// there is one.
func Named(dir, name string) (Run, bool, error) {
	return newest(dir, func(r Run) bool { return r.RunName == name })
}

// LastResumable is the id of the newest run under dir that can be
// resumed.
func LastResumable(dir string) (string, error) {
	run, found, err := newest(dir, func(r Run) bool { return r.Resumable() == nil })
	if err == nil && !found {
		err = resumedNow(dir)
	}
	if err == nil && !found {
		err = fmt.Errorf("no run in %s can be resumed: none was cut short (rooda runs list shows them)", dir)
	}
	return run.ID, err
}

// newest is the newest run under dir that keep keeps.
func newest(dir string, keep func(Run) bool) (Run, bool, error) {
	ids, err := IDs(dir)
	if err != nil {
		return Run{}, false, err
	}
	for i := len(ids) - 1; i >= 0; i-- {
		if run, err := ReadRun(dir, ids[i]); err == nil && keep(run) {
			return run, true, nil
		}
	}
	return Run{}, false, nil
}
