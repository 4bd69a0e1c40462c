package runlog

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"rooda/host/files"
	"rooda/host/journal"
	"rooda/host/loop"
	"rooda/host/process"
	"rooda/host/sandbox"
)

// Recorder writes one run's record as it goes. Each loop of the run
// records through a LoopRecord of its own (NewLoop), which the engine
// tells of its iterations and of when the loop starts and ends, so that
// loops that run at once keep one record.
type Recorder struct {
	mu sync.Mutex
	// spent is what every iteration's agent used so far.
	spent loop.Spend
	// err is the first write that failed: the record is incomplete.
	err     error
	dir     string // the run's directory
	run     Run
	records int
	seen    map[string]bool // context additions already given to an agent
	refused map[string]bool // context additions that could not be read, said so
	fresh   []string        // additions first given in the current iteration
	warning string
	// warn is told what the run's user should know as the run goes on.
	warn func(string)
	// journal is the run's journal; lock is the record's lock, held while
	// the run goes on (openJournal).
	journal *journal.Writer
	lock    *os.File
	// live is set once the run appended to its journal: a resumed run
	// that has not is still answering what it did before.
	live bool
	// book is the journal of the run before it was resumed, and before
	// how long it went on; nil and 0 for a run that was not.
	book   *journal.Book
	before time.Duration
	// lastRecord is the highest iteration record the resumed run's
	// record held.
	lastRecord int
	// suspect is the record of an end among the journal's last whose
	// file is changed, or gone (suspectGone), which the replay refuses
	// (lastEnds); 0 if none.
	suspect     int
	suspectGone bool
	// found are the files of the journal's last ends a resume found
	// whole, forced to the disk with its first ends (lastEnds).
	found []string
	// resumedFrom is the record as the run left it, before a resume.
	resumedFrom Run
	// later writes run.json as iterations end (saveLater).
	later *laterFile
}

// Start creates the record of a run named name (the procedure or
// script) under dir, and removes the oldest records beyond keep. Only
// runs are ever removed; a dir that holds other things keeps them, and
// Warning says so.
func Start(dir, name string, command []string, keep int, runName string) (*Recorder, error) {
	runs, others, err := survey(dir)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	wd, _ := os.Getwd()
	run := Run{ID: newID(safeName(name), now), Name: name, Command: command, Status: string(loop.Running), Started: now.UTC(), Dir: wd, RunName: runName}
	run.PID, run.PIDStart = os.Getpid(), process.StartTime(os.Getpid())
	r := newRecorder(filepath.Join(dir, run.ID), run)
	if err := r.create(); err != nil {
		return nil, err
	}
	if len(others) == 0 {
		ignoreRecords(dir)
	} else {
		r.warning = fmt.Sprintf("runs_dir %s holds files that are not rooda runs (%s); only runs are pruned from it, and no .gitignore is written there", dir, someOf(others))
	}
	prune(dir, append(runs, r.run), keep, r.run.ID)
	return r, nil
}

// create makes the run's directory with its run.json and an empty
// journal in it at once: made
// and written under a name beginning with a dot, which survey passes
// over, then renamed. Another rooda starting meanwhile never finds a run
// directory without its run.json, which it would take for the user's.
func (r *Recorder) create() error {
	if err := os.MkdirAll(filepath.Dir(r.dir), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(r.dir), newPrefix+r.run.ID+"-")
	if err != nil {
		return err
	}
	// As os.MkdirAll would have made it: MkdirTemp's is the owner's alone.
	err = os.Chmod(tmp, 0o755)
	if err == nil {
		err = r.firstFiles(tmp)
	}
	if err == nil {
		err = os.Rename(tmp, r.dir)
	}
	if err != nil {
		os.RemoveAll(tmp)
		return err
	}
	return r.openJournal()
}

// firstFiles writes in dir what a run's directory holds as it appears:
// its run.json, and its journal, empty, so that a rooda killed before its
// first entry leaves a run that resumes (from its beginning), not one
// that no resume finds.
func (r *Recorder) firstFiles(dir string) error {
	if err := writeJSON(filepath.Join(dir, "run.json"), r.run); err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, journal.Name), nil)
}

func newRecorder(dir string, run Run) *Recorder {
	return &Recorder{dir: dir, run: run, seen: map[string]bool{}, refused: map[string]bool{}, later: newLaterFile(filepath.Join(dir, "run.json"))}
}

// ignoreRecords keeps the records, which are not the project's, out of
// an agent's "git add -A". Only for a dir that is rooda's alone: a
// .gitignore of "*" in a directory of the user's would hide their files.
func ignoreRecords(dir string) {
	if _, err := os.Stat(filepath.Join(dir, ".gitignore")); os.IsNotExist(err) {
		writeFile(filepath.Join(dir, ".gitignore"), []byte("*\n"))
	}
}

// survey reads each entry of dir once. It returns the runs whose
// run.json proves them, oldest first (ids begin with the time they
// started), which alone may be pruned; and the names of what dir holds
// that is not rooda's: anything but runs, damaged records and runs being
// started. Names beginning with a dot are left out: rooda's .gitignore
// and files being written, and the like of .DS_Store or an editor's swap
// file, which are no one's runs and no reason to warn. A dir not there
// yet holds nothing.
func survey(dir string) (runs []Run, others []string, err error) {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		if startsWithDot(e.Name()) {
			continue
		}
		run, err := record(dir, e)
		switch {
		case err == nil:
			runs = append(runs, run)
		case damaged(err), errors.Is(err, fs.ErrNotExist) && emptyOrGone(filepath.Join(dir, e.Name())):
		default:
			others = append(others, e.Name())
		}
	}
	return runs, others, nil
}

// emptyOrGone reports whether the directory holds nothing, as that of a
// run an older rooda makes does between its making and its run.json's
// writing, or is no longer there, as a run another rooda pruned after
// survey listed it.
func emptyOrGone(dir string) bool {
	f, err := os.Open(dir)
	if os.IsNotExist(err) {
		return true
	}
	if err != nil {
		return false
	}
	defer f.Close()
	_, err = f.Readdirnames(1)
	return err == io.EOF
}

// someOf lists the first few names, and how many more there are.
func someOf(names []string) string {
	const shown = 3
	if len(names) <= shown {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:shown], ", "), len(names)-shown)
}

// Warning is what the run's user should know about where it is recorded,
// or "": said once, when the run starts.
func (r *Recorder) Warning() string { return r.warning }

// OnWarning has warn told what the run's user should know as the run
// goes on: that its record was removed, and written again.
func (r *Recorder) OnWarning(warn func(string)) { r.warn = warn }

// mend notices a record removed while the run goes on (an agent's "git
// clean -fdx" removes .rooda whole, unasked): it writes run.json again
// from what the run holds, puts back the .gitignore that keeps records
// out of an agent's "git add -A", and says so. keptFrom is the first
// iteration whose files are still to be written; those before are lost.
// Every write of the record calls it first, with r.mu held.
func (r *Recorder) mend(keptFrom int) {
	// A resume that replays writes nothing to mend, and would look once
	// an iteration.
	if r.replaying() {
		return
	}
	if _, err := os.Stat(filepath.Join(r.dir, "run.json")); !os.IsNotExist(err) {
		return
	}
	r.run.Removed = append(r.run.Removed, Removal{At: time.Now().UTC(), KeptFrom: keptFrom})
	r.save()
	r.mendJournal()
	runsDir := filepath.Dir(r.dir)
	if _, others, err := survey(runsDir); err == nil && len(others) == 0 {
		ignoreRecords(runsDir)
	}
	if r.warn != nil {
		r.warn(fmt.Sprintf("the record of this run, %s, was removed while the run went on (an agent's git clean?): rooda writes it again from what it holds; %s",
			r.dir, lost(r.run.Removed, len(r.run.Removed)-1)))
	}
}

// ID is the run's id; Dir its directory.
func (r *Recorder) ID() string  { return r.run.ID }
func (r *Recorder) Dir() string { return r.dir }

// save writes run.json; not while a resumed run is still answering from
// its journal what it did before (replaying): until it goes on live, the
// record says what the run left, not what the replay has counted so far.
func (r *Recorder) save() error {
	if r.replaying() {
		return nil
	}
	r.keep(r.later.wait())
	return r.keep(writeJSON(filepath.Join(r.dir, "run.json"), r.run))
}

// saveLater is save for an iteration's end: run.json is written by its
// own goroutine (laterFile) while the next agent starts.
func (r *Recorder) saveLater() {
	if r.replaying() {
		return
	}
	data, err := marshalJSON(r.run)
	if r.keep(err) == nil {
		r.later.put(data)
	}
}

// replaying reports whether the run was resumed and has appended nothing
// to its journal yet.
func (r *Recorder) replaying() bool { return r.book != nil && !r.live }

// keep remembers the first error a write met, and returns err.
func (r *Recorder) keep(err error) error {
	if err != nil && r.err == nil {
		r.err = err
	}
	return err
}

// keepOpen is keep for a file written and held open: the file, or nil
// if its write failed.
func (r *Recorder) keepOpen(f *os.File, err error) *os.File {
	if r.keep(err) != nil {
		return nil
	}
	return f
}

// Err is the first write that failed, if one did: the record is
// incomplete, though the run went on.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.waitSynced()
	return r.err
}

// LoopRecord records one loop of a run: its settings, its iterations and
// how it ended. Loops that run at once (parallel()) each have one, so
// that each iteration lands in its own loop; the iterations of every
// loop are numbered in one sequence, the run's, without collisions.
type LoopRecord struct {
	r *Recorder
	// index is the loop's in Run.Loops, -1 before LoopStarted; record is
	// the record number of its iteration going on.
	index  int
	record int
	name   string
	// key is the loop's place in the journal; again is set while an
	// iteration that was in flight when the run stopped runs again.
	key   journal.Key
	again bool
	// unseen is set for a loop no script sees (Unseen).
	unseen bool
	// partial is the ref that keeps what the killed try of the
	// iteration running again left (KeptPartial).
	partial string
	// agents are the names of the agents that ran or take turns, so far:
	// a script's agent function adds those it chooses as they run.
	agents []string
	// prompt is the prompt's file of the iteration going on, held open
	// for its end to have it forced to the disk (appendEnded).
	prompt *os.File
}

// NewLoop is the record of a loop of the run that is about to start,
// named as parallel() names it ("" for a loop that runs alone), at key
// in the journal.
func (r *Recorder) NewLoop(name string, key journal.Key) *LoopRecord {
	return &LoopRecord{r: r, index: -1, name: name, key: key}
}

// LoopStarted records a loop's settings (with their sources) and agent,
// and, when several take turns, the names of them all.
func (l *LoopRecord) LoopStarted(procedure string, settings, agent, agents []string) {
	r := l.r
	r.mu.Lock()
	defer r.mu.Unlock()
	r.mend(r.records + 1)
	loop := Loop{Name: l.name, Key: l.key.String(), Procedure: procedure, Settings: settings, Agent: agent}
	l.agents = slices.Clone(agents)
	if len(agents) > 1 {
		loop.Agents = agents
	}
	// A resumed run's loop keeps its place, which the meta.json of its
	// iterations name: loops at once may start in another order.
	l.index = -1
	if r.book != nil {
		l.index = slices.IndexFunc(r.run.Loops, func(old Loop) bool { return old.Key == loop.Key })
	}
	if l.index < 0 {
		r.run.Loops = append(r.run.Loops, loop)
		l.index = len(r.run.Loops) - 1
	} else {
		// And its name: of two loops of one name at once, which was
		// told apart ("build#2") was the order they started in then.
		loop.Name = r.run.Loops[l.index].Name
		r.run.Loops[l.index] = loop
	}
	r.save()
}

// LoopName is the name the record of a resumed run gives its loop at
// key, as the log named the loop when it first ran; false when the run
// is not resumed or its record has no loop at key (one that had not
// started).
func (r *Recorder) LoopName(key journal.Key) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.book == nil {
		return "", false
	}
	i := slices.IndexFunc(r.run.Loops, func(old Loop) bool { return old.Key == key.String() })
	if i < 0 {
		return "", false
	}
	return r.run.Loops[i].Name, true
}

// IterationStarted keeps the exact prompt the agent is given, and
// journals that the iteration began. An iteration answered from the
// journal of a resumed run keeps the record it has; one that runs again
// takes the record it had.
func (l *LoopRecord) IterationStarted(req loop.Request) {
	r := l.r
	r.mu.Lock()
	defer r.mu.Unlock()
	r.mend(r.records + 1)
	l.record, l.again, l.partial = 0, req.Again, ""
	if r.book != nil {
		e, ok := r.book.Ended(l.key, req.Iteration)
		if !ok {
			e, ok = r.book.Began(l.key, req.Iteration)
		}
		if ok && (req.Replayed || req.Again) {
			l.record = e.Record
		}
	}
	if req.Replayed {
		return
	}
	if l.record == 0 {
		r.records++
		l.record = r.records
	}
	l.closePrompt()
	l.prompt = r.keepOpen(writeFileOpen(filepath.Join(iterationDir(r.dir, l.record), promptName), []byte(req.Prompt)))
	r.appendEntry(journal.Entry{Kind: journal.Began, Key: l.key, N: req.Iteration, Record: l.record}, false)
}

// OutputFile is where the iteration going on keeps the agent's output,
// as the run's directory was given: written as the iteration finishes.
func (l *LoopRecord) OutputFile() string {
	return filepath.Join(iterationDir(l.r.dir, l.record), outputName)
}

// addAgent names an agent the loop ran that it did not name at its
// start (one a script's function chose) among the loop's agents.
func (l *LoopRecord) addAgent(name string) {
	if name == "" || slices.Contains(l.agents, name) || l.index < 0 {
		return
	}
	l.agents = append(l.agents, name)
	l.r.run.Loops[l.index].Agents = slices.Clone(l.agents)
}

// Additions are the context added while the run goes on (see
// Recorder.Additions).
func (l *LoopRecord) Additions() (blocks, fresh []string, refused []error) { return l.r.Additions() }

// IterationFinished keeps what the agent printed and the iteration's facts.
func (l *LoopRecord) IterationFinished(it *loop.Iteration) {
	r := l.r
	r.mu.Lock()
	defer r.mu.Unlock()
	if it.Replayed {
		for _, name := range it.ContextAdded {
			r.seen[name+".txt"] = true
		}
		l.count(it)
		r.save()
		return
	}
	r.mend(l.record)
	dir := iterationDir(r.dir, l.record)
	if !l.promptInPlace(filepath.Join(dir, promptName)) { // removed or replaced meanwhile
		l.closePrompt()
		l.prompt = r.keepOpen(writeFileOpen(filepath.Join(dir, promptName), []byte(it.Prompt)))
	}
	// The files the end names, held open until forced (appendEnded).
	named := []*os.File{l.prompt, r.keepOpen(writeFileOpen(filepath.Join(dir, outputName), it.Result.Output))}
	l.prompt = nil
	m := Meta{
		Record: l.record, Loop: l.index + 1, Iteration: it.Number, Agent: it.Agent,
		PromptSHA256: sha256Hex([]byte(it.Prompt)), PromptBytes: len(it.Prompt),
		Outcome: string(it.Outcome), Cause: string(it.Cause), Reason: it.Reason, OutcomeNames: OutcomeNames2, ExitCode: it.Result.ExitCode, Signal: strings.TrimSuffix(it.Signals.String(), "none"),
		KilledBy: it.Result.Signal, TimedOut: it.Result.TimedOut,
		OutputBytes: it.Result.Total, DroppedBytes: it.Result.Dropped, Duration: it.Duration.Seconds(),
		Waited:       it.Waited.Seconds(),
		ContextAdded: r.fresh, Escaped: processNames(it.Result.Escaped),
		EscapedSurvived: it.Result.EscapedSurvived, RanAgain: l.again, Sandbox: it.Sandbox, Partial: l.partial,
	}
	if d := it.Decoded; d != nil {
		m.Format, m.Model, m.Retries, m.Refused = string(d.Format), d.Model, d.Retries, d.Refused
		named = append(named, r.keepOpen(writeFileOpen(filepath.Join(dir, transcriptName), it.Transcript)))
	}
	m.Spent = spentOf(it.Spent)
	if c := it.Changes; c != nil {
		m.GitHeadBefore, m.GitHeadAfter, m.FilesChanged, m.FilesChangedMore = c.HeadBefore, c.HeadAfter, c.Files, c.More
	}
	r.keep(writeJSON(filepath.Join(dir, "meta.json"), m))
	named = slices.DeleteFunc(named, func(f *os.File) bool { return f == nil })
	fresh := r.fresh
	r.fresh = nil
	if it.Outcome != loop.OutcomeInterrupted {
		// Only an iteration that ended is answered from the journal on
		// a resume; one an interrupt cut short runs again.
		data, err := json.Marshal(endedOf(it, fresh))
		if r.keep(err) == nil {
			// Its files reach the disk after the entry is written,
			// before it is forced there (appendEnded): a resume
			// checks the last ends' (lastEnds).
			r.appendEnded(journal.Entry{Kind: journal.Ended, Key: l.key, N: it.Number, Record: l.record, Result: data}, named...)
			named = nil
		}
		l.count(it)
	}
	files.CloseAll(named)
	r.saveLater()
}

// promptInPlace reports whether the prompt's file at path is the one
// written as the iteration began and held open since: the one its end
// forces to the disk. One an agent removed, or put back as another file
// (a git stash and its pop), is written again.
func (l *LoopRecord) promptInPlace(path string) bool {
	if l.prompt == nil {
		return false
	}
	held, err := l.prompt.Stat()
	if err != nil {
		return false
	}
	named, err := os.Stat(path)
	return err == nil && os.SameFile(held, named)
}

// closePrompt closes the prompt's file held open, if any: its iteration
// has no end to force it with.
func (l *LoopRecord) closePrompt() {
	if l.prompt != nil {
		l.prompt.Close()
		l.prompt = nil
	}
}

// count adds an iteration that ended to the run's: its agent, its spend,
// what its proxy refused and the count of iterations.
func (l *LoopRecord) count(it *loop.Iteration) {
	r := l.r
	l.addAgent(it.Agent)
	r.spent = r.spent.Add(it.Spent)
	r.run.Spent = spentOf(r.spent)
	r.run.Iterations++
	if it.Sandbox != nil && it.Sandbox.Net != nil && l.index >= 0 {
		loop := &r.run.Loops[l.index]
		loop.Refused = sandbox.AddRefusals(loop.Refused, it.Sandbox.Net.Refused)
	}
}

// LoopFinished records how a loop ended and its timings.
func (l *LoopRecord) LoopFinished(res loop.Result) {
	r := l.r
	r.mu.Lock()
	defer r.mu.Unlock()
	l.closePrompt() // of an iteration that did not end
	if l.index < 0 {
		return
	}
	r.mend(r.records + 1)
	loop := &r.run.Loops[l.index]
	loop.Status, loop.Reason, loop.Why = string(res.Status), res.Reason, res.Why
	s := res.Stats
	loop.Stats = &Stats{Count: s.Count, Min: s.Min.Seconds(), Max: s.Max.Seconds(), Mean: s.Mean().Seconds(), StdDev: s.StdDev().Seconds(), Total: s.Total.Seconds()}
	r.save()
}

// WorktreeMade records a git worktree the run made.
func (r *Recorder) WorktreeMade(name, path, branch string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.mend(r.records + 1)
	r.run.Worktrees = append(r.run.Worktrees, Worktree{Name: name, Path: path, Branch: branch})
	r.save()
}

// WorktreeKept records why the run, as it ended, left worktree name
// though it was not made to be kept: runs show says so.
func (r *Recorder) WorktreeKept(name, why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.run.Worktrees {
		if r.run.Worktrees[i].Name == name {
			r.run.Worktrees[i].Kept = why
		}
	}
	r.save()
}

// InterruptedBy keeps the name of the signal that interrupted the run,
// which Finish writes with the rest of its end.
func (r *Recorder) InterruptedBy(signal string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.run.InterruptedBy = signal
}

// Finish records how the run ended: run.json is complete whatever the
// ending, an interrupt included.
func (r *Recorder) Finish(status loop.Status) error {
	return r.FinishWith(status, status.ExitCode(), "", nil)
}

// FinishWith records how the run ended, with its exit code (a script's
// exit(code, reason) chooses its own), why, and the budget it reached,
// if one did.
func (r *Recorder) FinishWith(status loop.Status, code int, reason string, budget *Budget) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.mend(r.records + 1)
	if r.replaying() && (status == loop.Errored || status == loop.Interrupted) {
		// A resume that failed, or was stopped, before it did anything
		// leaves the run as it was: cut short, to be resumed.
		resumes := r.run.Resumes
		r.run, r.live = r.resumedFrom, true
		r.run.Resumes = resumes
		return r.save()
	}
	r.waitSynced()
	// Ended by what its journal answered: its end is written.
	r.live = true
	now := time.Now().UTC()
	r.run.Status, r.run.ExitCode, r.run.Ended, r.run.Reason, r.run.Budget = string(status), &code, &now, reason, budget
	return r.save()
}

// sha256Hex is the SHA-256 of data in hex, as meta.json keeps a prompt's.
func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// safeName keeps an id to letters, digits, - and _.
func safeName(name string) string {
	name = filepath.Base(strings.TrimSuffix(name, ".star"))
	return strings.Map(func(c rune) rune {
		if c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			return c
		}
		return '_'
	}, name)
}

// prune removes the oldest finished runs of runs (as survey found them,
// oldest first) beyond keep; the one being written, runs still going,
// and runs cut short that can be resumed stay: their record is what
// resumes them. Only runs that their run.json proves are ever removed, and what
// is left of those a rooda killed while it removed them.
func prune(dir string, runs []Run, keep int, current string) {
	removeLeftovers(dir)
	if keep <= 0 || len(runs) <= keep {
		return
	}
	for _, run := range runs[:len(runs)-keep] {
		if run.ID != current && !run.Going() && !CanResume(dir, run.ID) {
			removeRun(dir, run.ID)
		}
	}
}

// removeRun removes a run's directory, first renamed to a name beginning
// with a dot: another rooda surveying meanwhile finds the run whole or
// not at all, never half removed. Two pruning it at once: the rename of
// one fails, and it leaves the run to the other.
func removeRun(dir, id string) {
	gone := filepath.Join(dir, prunedPrefix+id)
	if os.Rename(filepath.Join(dir, id), gone) == nil {
		os.RemoveAll(gone)
	}
}

// prunedPrefix begins the name of a run being removed.
const prunedPrefix = ".pruned-"

// newPrefix begins the name of a run being made (create).
const newPrefix = ".new-"

// removeLeftovers removes what a rooda killed midway left: runs being
// removed (removeRun), under their prunedPrefix names, and runs being
// made (create) a while ago, which another rooda making one at this
// moment cannot be.
func removeLeftovers(dir string) {
	names, _ := namesIn(dir, func(e os.DirEntry) bool {
		if strings.HasPrefix(e.Name(), prunedPrefix) {
			return true
		}
		info, err := e.Info()
		return strings.HasPrefix(e.Name(), newPrefix) && err == nil && time.Since(info.ModTime()) > time.Minute
	})
	for _, name := range names {
		os.RemoveAll(filepath.Join(dir, name))
	}
}

// processNames are "pid name" of each process, or nil for none.
func processNames(list []process.Found) []string {
	var names []string
	for _, p := range list {
		names = append(names, p.String())
	}
	return names
}
