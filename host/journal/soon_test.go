package journal

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// made is a file of each name in a directory of the test's, open as an
// iteration's end hands its files to the writer.
func made(t *testing.T, names ...string) []*os.File {
	t.Helper()
	dir := t.TempDir()
	var opened []*os.File
	for _, name := range names {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		opened = append(opened, f)
	}
	return opened
}

// madePath is the path of a file made of that name, as a resume finds
// one (Force).
func madePath(t *testing.T, name string) string {
	t.Helper()
	f := made(t, name)[0]
	f.Close()
	return f.Name()
}

// namesOf are the names of files, which it closes, as a test's
// syncFiles is given them.
func namesOf(opened []*os.File) []string {
	var names []string
	for _, f := range opened {
		names = append(names, filepath.Base(f.Name()))
		f.Close()
	}
	return names
}

// TestAppendSyncedSoonWritesAtOnce: an entry appended to be synced soon
// is in the file as the call returns (a rooda killed from then on has
// it), whatever the fsync's progress, and every one of many appended at
// once from many goroutines is there once the syncs are waited for.
func TestAppendSyncedSoonWritesAtOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), Name)
	w, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.AppendSyncedSoon(Entry{Kind: Ended, N: 1}); err != nil {
		t.Fatal(err)
	}
	if entries, _, err := Read(path); err != nil || len(entries) != 1 {
		t.Fatalf("read %d entries (%v) as the append returned, want 1", len(entries), err)
	}
	var wg sync.WaitGroup
	for n := 2; n <= 50; n++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.AppendSyncedSoon(Entry{Kind: Ended, N: n}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if entries, _, err := Read(path); err != nil || len(entries) != 50 {
		t.Fatalf("read %d entries (%v), want 50", len(entries), err)
	}
}

// TestAppendSyncedSoonSaysAFailedSync: an fsync that failed after the
// append returned is said by the next append, or by WaitSynced, once.
func TestAppendSyncedSoonSaysAFailedSync(t *testing.T) {
	w, err := Open(filepath.Join(t.TempDir(), Name))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// A pipe cannot be synced (EINVAL): what a disk's failure would say.
	r, p, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer p.Close()
	w.syncSelf = p.Sync
	w.write = func(line []byte) (int, error) { return len(line), nil }
	// The first sync is not paced: it may fail before the append
	// returns, which then says it, or after, and the wait does.
	appended := w.AppendSyncedSoon(Entry{Kind: Ended, N: 1})
	waited := w.WaitSynced()
	if (appended == nil) == (waited == nil) {
		t.Fatalf("a failed fsync said by the append (%v) and by the wait (%v): want one of them", appended, waited)
	}
	if err := w.WaitSynced(); err != nil {
		t.Fatalf("a failed fsync was said twice: %v", err)
	}
}

// TestAppendSyncedSoonForcesItsFilesFirst: the files an end names reach
// the disk before the journal that names them, in the goroutine that
// forces it; an entry appended with sync waits for them too, so that no
// fsync of the journal goes before the files of an entry it holds.
func TestAppendSyncedSoonForcesItsFilesFirst(t *testing.T) {
	w, err := Open(filepath.Join(t.TempDir(), Name))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var mu sync.Mutex
	var forced []string
	w.syncFiles = func(opened []*os.File) error {
		mu.Lock()
		defer mu.Unlock()
		forced = append(forced, namesOf(opened)...)
		return nil
	}
	w.syncSelf = func() error {
		mu.Lock()
		defer mu.Unlock()
		forced = append(forced, Name)
		return nil
	}
	if err := w.AppendSyncedSoon(Entry{Kind: Ended, N: 1}, made(t, "prompt", "output")...); err != nil {
		t.Fatal(err)
	}
	if err := w.WaitSynced(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"prompt", "output", Name}; !slices.Equal(forced, want) {
		t.Errorf("forced %q, want %q", forced, want)
	}
	forced = nil
	if err := w.AppendSyncedSoon(Entry{Kind: Ended, N: 2}, made(t, "output2")...); err != nil {
		t.Fatal(err)
	}
	if err := w.Force(madePath(t, "found")); err != nil {
		t.Fatal(err)
	}
	if err := w.Append(Entry{Kind: Call}, true); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, file := range []string{"output2", "found"} {
		if i := slices.Index(forced, file); i < 0 || !slices.Contains(forced[i:], Name) {
			t.Errorf("as the synced append returned, forced %q: %s, then the journal", forced, file)
		}
	}
}

// TestEndsWaitOnceMaxUnsyncedLackTheirFiles: ends are written at once
// while their files are on their way to the disk, up to MaxUnsynced of
// them; the next waits until they are there, so that a resume after a
// power loss need check only that many (runlog's lastEnds).
func TestEndsWaitOnceMaxUnsyncedLackTheirFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), Name)
	w, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	release := make(chan struct{})
	w.syncFiles = func(opened []*os.File) error { <-release; namesOf(opened); return nil }
	for n := 1; n <= MaxUnsynced; n++ {
		if err := w.AppendSyncedSoon(Entry{Kind: Ended, N: n}, made(t, "output")...); err != nil {
			t.Fatal(err)
		}
	}
	next := make(chan error)
	go func() { next <- w.AppendSyncedSoon(Entry{Kind: Ended, N: MaxUnsynced + 1}, made(t, "output")...) }()
	time.Sleep(50 * time.Millisecond)
	if entries, _, err := Read(path); err != nil || len(entries) != MaxUnsynced {
		t.Errorf("%d entries (%v) while %d ends' files were forced, want %d", len(entries), err, MaxUnsynced, MaxUnsynced)
	}
	close(release)
	if err := <-next; err != nil {
		t.Fatal(err)
	}
	if entries, _, err := Read(path); err != nil || len(entries) != MaxUnsynced+1 {
		t.Errorf("%d entries (%v) once they were, want %d", len(entries), err, MaxUnsynced+1)
	}
}

// TestFailedEndsLeaveNoWait: ends whose write failed (a full disk) are
// not counted as waiting for their files: the next end, once the disk
// has room, is written at once, not held for ever.
func TestFailedEndsLeaveNoWait(t *testing.T) {
	w, err := Open(filepath.Join(t.TempDir(), Name))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	good := w.write
	w.write = func([]byte) (int, error) { return 0, errors.New("no space left on device") }
	for n := 1; n <= MaxUnsynced+4; n++ {
		output := made(t, "output")
		if err := w.AppendSyncedSoon(Entry{Kind: Ended, N: n}, output...); err == nil {
			t.Fatal("a failed write was not said")
		}
		if err := output[0].Close(); !errors.Is(err, os.ErrClosed) {
			t.Fatalf("the file of an end not written was left open (%v)", err)
		}
	}
	if n := w.unsyncedEnds(); n != 0 {
		t.Fatalf("%d ends that were never written wait to be forced", n)
	}
	w.write = good
	done := make(chan error)
	go func() { done <- w.AppendSyncedSoon(Entry{Kind: Ended, N: 99}, made(t, "output")...) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("an end after failed ones waited for ever")
	}
}

// TestFilesNotForcedKeepTheJournalBack: files that could not be forced
// to the disk are said, and the journal that names them is not forced
// over them; what Force named and no end followed is forced as the
// journal closes.
func TestFilesNotForcedKeepTheJournalBack(t *testing.T) {
	w, err := Open(filepath.Join(t.TempDir(), Name))
	if err != nil {
		t.Fatal(err)
	}
	var selfSyncs int
	var forced []string
	w.syncFiles = func(opened []*os.File) error {
		names := namesOf(opened)
		forced = append(forced, names...)
		if slices.Contains(names, "bad") {
			return errors.New("input/output error")
		}
		return nil
	}
	w.syncSelf = func() error { selfSyncs++; return nil }
	// Said by the append, if its sync (not paced, the first) ended
	// before it returned, or by the wait.
	appended := w.AppendSyncedSoon(Entry{Kind: Ended, N: 1}, made(t, "bad")...)
	if err := errors.Join(appended, w.WaitSynced()); err == nil || selfSyncs != 0 {
		t.Errorf("files not forced: error %v, the journal forced %d times", err, selfSyncs)
	}
	if err := w.Force(madePath(t, "found")); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil || !slices.Contains(forced, "found") || selfSyncs != 1 {
		t.Errorf("closed: %v, forced %q, the journal %d times", err, forced, selfSyncs)
	}
}

// TestSettleForcesWhatForceNamed: the files a resume found (Force) are
// forced to the disk, and let go, by Settle even when no end follows
// them: a resume that only replays ends with them on the disk.
func TestSettleForcesWhatForceNamed(t *testing.T) {
	w, err := Open(filepath.Join(t.TempDir(), Name))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var forced []string
	w.syncFiles = func(opened []*os.File) error {
		forced = append(forced, namesOf(opened)...)
		return nil
	}
	if err := w.Force(madePath(t, "found")); err != nil {
		t.Fatal(err)
	}
	if err := w.Settle(); err != nil || !slices.Equal(forced, []string{"found"}) {
		t.Errorf("settled: %v, forced %q, want the found file", err, forced)
	}
}
