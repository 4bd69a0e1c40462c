package runlog

import (
	"errors"
	"io/fs"
	"sync"
	"time"

	"rooda/host/files"
	"rooda/host/later"
)

// laterFile writes one file of the record, run.json, in a goroutine of
// its own (later.Work), the newest content each time: an iteration's end
// hands it the record and goes on to start the next agent. On a disk,
// replacing run.json is most of what an iteration's record costs (the
// replaced file's inode and blocks are freed, a discard on a drive
// mounted with it: 0.3–0.6 ms on the development VM,
// docs/performance.md); written later, that cost overlaps the next
// agent's run. Contents handed over while a write goes on, or within
// laterEvery of the last, are coalesced: only the newest is written.
//
// The journal, not run.json, is what a resume reads, and what an
// iteration's end writes at once; run.json trails it by laterEvery at
// most. Recorder.save waits for this writer before it writes run.json
// itself, so an older content never lands after a newer one.
type laterFile struct {
	path  string
	write *later.Work
	mu    sync.Mutex
	next  []byte // the content to write, nil once taken
	// last is when the last write took its content; put puts a write
	// off until laterEvery after it, with a timer of generation due.
	last  time.Time
	timer *time.Timer
	due   int
}

// laterEvery is how often run.json is written at most while iterations
// end faster than that: a loop of quick iterations replaced it, an inode
// made and one freed, each iteration. It is the record's summary, which
// runs list and the run page read; each iteration's own files and the
// journal are written as it ends.
const laterEvery = time.Second

func newLaterFile(path string) *laterFile {
	f := &laterFile{path: path}
	f.write = later.New(f.writeNewest)
	return f
}

// put has data written as the file, soon: now, or laterEvery after the
// last write, whichever is later.
func (f *laterFile) put(data []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.next = data
	if f.timer != nil {
		return // the write put off takes the newest content
	}
	if wait := laterEvery - time.Since(f.last); wait > 0 {
		f.due++
		due := f.due
		f.timer = time.AfterFunc(wait, func() { f.fire(due) })
		return
	}
	f.write.Ask()
}

// fire has the write put off done, unless wait did it first.
func (f *laterFile) fire(due int) {
	f.mu.Lock()
	if f.due == due {
		f.timer = nil
	}
	f.mu.Unlock()
	f.write.Ask()
}

// writeNewest writes the content handed over last, if not yet written.
func (f *laterFile) writeNewest() error {
	f.mu.Lock()
	data := f.next
	f.next = nil
	if data != nil {
		f.last = time.Now()
	}
	f.mu.Unlock()
	if data == nil {
		return nil
	}
	err := files.WriteWhole(f.path, data)
	// A directory gone is a record removed while the run went on (an
	// agent's git clean): not made again here, where it would hide the
	// removal from Recorder.mend, which writes it all again at the run's
	// next step and says so.
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// wait returns once what was handed over is written, a write put off
// done now, with the first write that failed since the last wait, if
// one did.
func (f *laterFile) wait() error {
	f.mu.Lock()
	if f.timer != nil {
		f.timer.Stop()
		f.timer = nil
		f.due++ // a timer that fired meanwhile finds nothing to clear
	}
	pending := f.next != nil
	f.mu.Unlock()
	if pending {
		f.write.Ask()
	}
	return f.write.Wait()
}
