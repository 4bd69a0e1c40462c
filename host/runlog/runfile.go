package runlog

import (
	"errors"
	"io/fs"
	"sync"

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
// agent's run. Contents handed over while a write goes on are
// coalesced: only the newest is written.
//
// The journal, not run.json, is what a resume reads, and what an
// iteration's end writes at once; run.json trails it by one write at
// most. Recorder.save waits for this writer before it writes run.json
// itself, so an older content never lands after a newer one.
type laterFile struct {
	path  string
	write *later.Work
	mu    sync.Mutex
	next  []byte // the content to write, nil once taken
}

func newLaterFile(path string) *laterFile {
	f := &laterFile{path: path}
	f.write = later.New(f.writeNewest)
	return f
}

// put has data written as the file, soon.
func (f *laterFile) put(data []byte) {
	f.mu.Lock()
	f.next = data
	f.mu.Unlock()
	f.write.Ask()
}

// writeNewest writes the content handed over last, if not yet written.
func (f *laterFile) writeNewest() error {
	f.mu.Lock()
	data := f.next
	f.next = nil
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

// wait returns once what was handed over is written, with the first
// write that failed since the last wait, if one did.
func (f *laterFile) wait() error { return f.write.Wait() }
