// Package journal keeps a run's journal: one line per call of the run
// that has an effect or an answer from outside (an iteration of a loop, a
// command, a worktree, a merge, an environment variable, the clock, a
// file of the work read), appended as each call ends. A resumed run
// reads it back and answers those calls from it instead of making them
// again.
//
// Each line is a checksum, a space and a JSON entry. A crash at any byte
// leaves a journal that reads to its last whole entry: a line cut short,
// or one the checksum does not match (a block a power loss left
// unwritten), ends the reading there, and nothing after it is taken.
package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"rooda/host/files"
	"rooda/host/later"
)

// Name is the journal's file in a run's record.
const Name = "journal.jsonl"

// Entry is one line of the journal.
type Entry struct {
	// Kind says what the entry is: Call, Began, Ended, Void or Resumed.
	Kind string `json:"k"`
	// Key is the call's place in the run: its thread and its number
	// there.
	Key
	// Op names the call ("iterate", "run", "getenv" …), Pos where the
	// script made it ("main.star:12") and What what it asked (the
	// procedure, the command line, the variable): a resumed run's call
	// matches a recorded one only when all three are the same.
	Op   string `json:"op,omitempty"`
	Pos  string `json:"pos,omitempty"`
	What string `json:"what,omitempty"`
	// N is an iteration's number in its loop, Record its number in the
	// run's record (iterations/NNNN).
	N      int `json:"n,omitempty"`
	Record int `json:"rec,omitempty"`
	// Result is what the call, or the iteration, gave.
	Result json.RawMessage `json:"res,omitempty"`
	// At is when the entry was written, in milliseconds since 1970 UTC:
	// how long the run had gone on before it was cut short.
	At int64 `json:"at,omitempty"`
}

// The kinds of entries.
const (
	// Call is a call that gave its answer at once, or a loop that began
	// (its iterations follow as Began and Ended).
	Call = "call"
	// Began is an iteration whose agent started; Ended one that ended,
	// with what it gave.
	Began = "began"
	Ended = "ended"
	// Void says that the entries of a thread from a number on, and those
	// of the threads they started, no longer hold: a resume told to go on
	// live (--force) from a call that differed.
	Void = "void"
	// Resumed marks where a resumed run began to append.
	Resumed = "resumed"
	// Dropped names an iteration record (Record) that ended but that the
	// journal no longer holds (it was damaged, and the run resumed with
	// --force): the record stays, its iteration ran again in a new one,
	// and a later resume knows the record for one accounted for.
	Dropped = "dropped"
)

// Limit bounds the journal read back: it keeps what read() and run()
// answered whole, so it can be large, but a file past a GiB is not a
// journal rooda wrote (a device, a link swapped in), and is refused
// rather than read into memory.
const Limit = 1 << 30

// Key is a call's place in a run: the thread that made it ("main", or a
// parallel() branch's path, "main/3.2") and its number among that
// thread's calls. A script that runs again makes the same calls in the
// same order on each thread, whatever the order its threads run in.
type Key struct {
	Thread string `json:"t,omitempty"`
	Seq    int    `json:"s,omitempty"`
}

func (k Key) String() string { return fmt.Sprintf("%s#%d", k.Thread, k.Seq) }

// Writer appends to a journal.
type Writer struct {
	mu sync.Mutex
	f  *os.File
	// size is the journal's length after its last whole entry.
	size int64
	// write writes a line at the journal's end: the file's Write, or a
	// test's that fails as a full disk does.
	write func([]byte) (int, error)
	// syncs forces the journal to the disk in a goroutine of its own
	// (AppendSyncedSoon), after the files in pending, held open: those
	// its last entries name. unsynced counts the ends appended whose
	// files are not yet forced, lastSync is when that goroutine last
	// began.
	syncs    *later.Work
	pending  []*os.File
	unsynced int
	lastSync time.Time
	// syncFiles and syncSelf force the files, which it closes, and the
	// journal to the disk: files.SyncClose and the file's Sync, or a
	// test's that says when.
	syncFiles func([]*os.File) error
	syncSelf  func() error
	// syncing is held through a sync: one that an Append asks for waits
	// for the files another is forcing, so that its entry does not
	// reach the disk before them.
	syncing sync.Mutex
}

// MaxUnsynced bounds the iterations' ends of a journal whose files may
// not be on the disk yet (AppendSyncedSoon): a resume after a power loss
// checks the files of the journal's last MaxUnsynced ends (runlog).
const MaxUnsynced = 16

// SyncEvery paces the forcing of ends to the disk: no oftener than once
// in that time, so that iterations faster than it share one fsync of
// each file and one commit of the file system's journal, where each
// made its own (an ext4 with its journal stalled the next iteration's
// files for as long: docs/performance.md). An agent that takes longer
// has its end forced before the next.
const SyncEvery = 20 * time.Millisecond

// Open opens the journal at path for appending, making it if need be.
// A torn last line (a crash in the middle of a write) is cut off first,
// so that what is appended starts a line of its own.
func Open(path string) (*Writer, error) {
	_, good, err := Read(path)
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	return OpenAfter(path, good)
}

// OpenAfter is Open for a journal already read (Parse): good is the
// length of its whole entries, and what follows is cut off. Its reader
// must hold the record, so that nothing was appended since.
func OpenAfter(path string, good int64) (*Writer, error) {
	if info, err := os.Stat(path); err == nil && info.Size() > good {
		if err := os.Truncate(path, good); err != nil {
			return nil, err
		}
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err == nil && !info.Mode().IsRegular() {
		// Swapped in since Read refused it: appending to a pipe or a
		// device would hang or lose the entries.
		err = &fs.PathError{Op: "open", Path: path, Err: files.ErrNotFile}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	w := &Writer{f: f, size: info.Size(), write: f.Write, syncFiles: files.SyncClose, syncSelf: f.Sync}
	w.syncs = later.New(w.paced)
	return w, nil
}

// Append writes e as one line, in one write; sync makes it durable
// (fsync) before Append returns, with the files the entries before it
// named (AppendSyncedSoon).
func (w *Writer) Append(e Entry, sync bool) error {
	if err := w.append(e); err != nil || !sync {
		return err
	}
	return w.sync()
}

func (w *Writer) append(e Entry) error {
	line, err := Line(e)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := w.write(line); err != nil {
		// Part of the line may be written (a full disk): cut it off, so
		// that the entries appended after it are read.
		return errors.Join(err, w.f.Truncate(w.size))
	}
	w.size += int64(len(line))
	return nil
}

// AppendSyncedSoon is Append for an iteration's end, which names the
// files it wrote without forcing them to the disk, still open
// (files.WriteWholeOpen), which the writer closes: e is written at once,
// so that a rooda killed from then on has it, and a goroutine of the
// writer's own forces the files, then the journal, to
// the disk while the next agent starts, where Append would wait for the
// disk (an output's fsync alone takes 0.8 ms on the development VM,
// docs/performance.md).
//
// A power loss before that may lose e, and what it names runs again on a
// resume; or keep e (the kernel wrote the journal's page back on its
// own) and lose a file it names. An end waits while MaxUnsynced others
// are so, and the resume checks that many (runlog). The error is e's
// write's, or an earlier fsync's of this kind.
func (w *Writer) AppendSyncedSoon(e Entry, opened ...*os.File) error {
	var before error
	for w.unsyncedEnds() >= MaxUnsynced {
		before = errors.Join(before, w.syncs.Wait())
	}
	if err := w.append(e); err != nil {
		// No entry names them: nothing of them need reach the disk.
		return errors.Join(before, err, files.CloseAll(opened))
	}
	w.mu.Lock()
	w.pending = append(w.pending, opened...)
	w.unsynced++
	w.mu.Unlock()
	w.syncs.Ask()
	return errors.Join(before, w.syncs.Err())
}

func (w *Writer) unsyncedEnds() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.unsynced
}

// Force has the files at paths forced to the disk with the journal's
// next entries: the files of ends a resume found on the disk, which
// another rooda wrote and may not have forced. They are opened now
// (files.OpenAll), and the error is why some could not be.
func (w *Writer) Force(paths ...string) error {
	opened, err := files.OpenAll(paths)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending = append(w.pending, opened...)
	return err
}

// paced is sync for the writer's goroutine, no sooner than SyncEvery
// after its last, and only if a synced Append has not done it since.
func (w *Writer) paced() error {
	time.Sleep(time.Until(w.lastSync.Add(SyncEvery)))
	w.lastSync = time.Now()
	if !w.owed() {
		return nil
	}
	return w.sync()
}

// owed reports whether ends or files wait to be forced to the disk.
func (w *Writer) owed() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.unsynced > 0 || len(w.pending) > 0
}

// sync forces the files the journal's entries named to the disk, then
// the journal, so that no entry reaches the disk by an fsync before what
// it names. The journal's writeback is begun with theirs: on ext4 the
// first fsync commits them all at once (files.SyncClose). Ends written
// while it forces the files may reach the disk with the journal before
// theirs, as the kernel's own writeback may take them: they are among
// the last MaxUnsynced, which a resume checks. Files that could not be
// forced (a disk's error) are said, and the journal is not forced over
// them this time.
func (w *Writer) sync() error {
	w.syncing.Lock()
	defer w.syncing.Unlock()
	w.mu.Lock()
	pending, ends := w.pending, w.unsynced
	w.pending = nil
	w.mu.Unlock()
	files.StartWriteback(w.f)
	err := w.syncFiles(pending)
	if err == nil {
		err = w.syncSelf()
	}
	w.mu.Lock()
	w.unsynced -= ends
	w.mu.Unlock()
	return err
}

// WaitSynced returns once what AppendSyncedSoon appended is on the disk,
// with the first fsync of it that failed since it was last said.
func (w *Writer) WaitSynced() error { return w.syncs.Wait() }

// Bytes are the journal's whole entries, read from the file the writer
// holds open: the journal as it is, even once its name is gone (an
// agent's git clean).
func (w *Writer) Bytes() ([]byte, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	data := make([]byte, w.size)
	_, err := w.f.ReadAt(data, 0)
	return data, err
}

// Settle returns once what the journal forces to the disk is there: the
// ends AppendSyncedSoon appended, and the files Force named with no end
// since, which are forced now (and closed).
func (w *Writer) Settle() error {
	err := w.WaitSynced()
	if w.owed() {
		err = errors.Join(err, w.sync())
	}
	return err
}

// Close closes the journal, once what it forces to the disk is there.
func (w *Writer) Close() error { return errors.Join(w.Settle(), w.f.Close()) }

// Line is e as the journal writes it.
func Line(e Entry) ([]byte, error) {
	data, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	line := fmt.Appendf(nil, "%08x ", crc32.Checksum(data, table()))
	line = append(line, data...)
	return append(line, '\n'), nil
}

// table is made when first used, not as rooda starts: rooda starts too
// as each agent's trampoline (host/sandbox), where it costs.
var table = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// Read reads the journal at path: its entries up to the first line that
// is not whole, and how many bytes they take.
func Read(path string) ([]Entry, int64, error) {
	data, err := ReadBytes(path)
	if err != nil {
		return nil, 0, err
	}
	entries, good := Parse(data)
	return entries, good, nil
}

// ReadBytes reads the journal at path whole, as every other file of a
// record is read: a symbolic link is not followed, a pipe or a device
// is refused at once (a link to /dev/zero would fill the memory, a FIFO
// would hang the resume), and a file past Limit is refused.
func ReadBytes(path string) ([]byte, error) {
	f, err := files.OpenBelow(filepath.Dir(path), filepath.Base(path))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err == nil && info.IsDir() {
		err = &fs.PathError{Op: "open", Path: path, Err: files.ErrNotFile}
	}
	if err != nil {
		return nil, err
	}
	return files.ReadAll(f, path, Limit)
}

// Parse reads the entries of a journal's bytes, up to the first line
// that is cut short, damaged or not an entry, and says how many bytes
// the entries before it take. A long journal (a run of thousands of
// iterations, read back to resume it) is read in two halves at once,
// the second kept only if the first is whole: a resume waits for it.
// The entries' results are data's own bytes, not copies: data is not
// written to once parsed.
func Parse(data []byte) ([]Entry, int64) {
	lines := bytes.Count(data, []byte("\n"))
	if lines > len(data)/shortestLines {
		// No journal rooda wrote: its entries are not made ahead, but as
		// far as it reads.
		return parse(nil, data)
	}
	entries := make([]Entry, 0, lines)
	mid := bytes.IndexByte(data[len(data)/2:], '\n') + len(data)/2 + 1
	if len(data) < parseInHalves || mid <= len(data)/2 {
		return parse(entries, data)
	}
	split := bytes.Count(data[:mid], []byte("\n"))
	var second []Entry
	var secondGood int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		second, secondGood = parse(entries[split:split], data[mid:])
	}()
	first, good := parse(entries[:0:split], data[:mid])
	<-done
	if good < int64(mid) {
		return first, good
	}
	// Whole, the first half's entries fill entries[:split], and the
	// second's follow them there.
	n := split + len(second)
	return entries[:n:n], good + secondGood
}

// shortestLines bounds the entries Parse makes ahead: a line per this
// many bytes of the journal, on average, at most. The shortest line
// rooda writes is 44 bytes (a resume's mark), an iteration's start 70.
const shortestLines = 40

// LineStart is where line i (from 0) of data begins: entry i's, of the
// entries Parse read from it.
func LineStart(data []byte, i int) int64 {
	var at int64
	for ; i > 0; i-- {
		at += int64(bytes.IndexByte(data[at:], '\n') + 1)
	}
	return at
}

// sumOf reports whether sum is Line's writing of checksum: eight
// lower-case hexadecimal digits.
func sumOf(sum []byte, checksum uint32) bool {
	if len(sum) != 8 {
		return false
	}
	const digits = "0123456789abcdef"
	for i := 7; i >= 0; i, checksum = i-1, checksum>>4 {
		if sum[i] != digits[checksum&0xf] {
			return false
		}
	}
	return true
}

// parseInHalves is the length from which Parse reads a journal in two
// halves: about a thousand entries.
const parseInHalves = 256 << 10

// parse is Parse, in one piece, appending to entries: the entries it
// read, and their lines' length.
func parse(entries []Entry, data []byte) ([]Entry, int64) {
	var good int64
	for {
		end := bytes.IndexByte(data, '\n')
		if end < 0 {
			return slices.Clip(entries), good
		}
		e, ok := parseLine(data[:end])
		if !ok {
			return slices.Clip(entries), good
		}
		entries = append(entries, e)
		good += int64(end + 1)
		data = data[end+1:]
	}
}

// parseLine reads one line, without its newline.
func parseLine(line []byte) (Entry, bool) {
	sum, data, ok := bytes.Cut(line, []byte(" "))
	if !ok || !sumOf(sum, crc32.Checksum(data, table())) {
		return Entry{}, false
	}
	e, ok := fastEntry(data)
	if !ok {
		// Afresh: what the fast path read of it is no part of it.
		return slowEntry(data)
	}
	return e, e.Kind != ""
}

// slowEntry is parseLine's entry by json.Unmarshal, whose pointer to it
// would have every entry made on the heap were it parseLine's.
func slowEntry(data []byte) (Entry, bool) {
	var e Entry
	if json.Unmarshal(data, &e) != nil {
		return Entry{}, false
	}
	return e, e.Kind != ""
}
