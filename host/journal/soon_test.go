package journal

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

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
	good := w.f
	w.f = p
	defer func() { p.Close(); w.f = good }()
	w.write = func(line []byte) (int, error) { return len(line), nil }
	if err := w.AppendSyncedSoon(Entry{Kind: Ended, N: 1}); err != nil {
		t.Fatalf("the append itself failed: %v", err)
	}
	if err := w.WaitSynced(); err == nil {
		t.Fatal("a failed fsync was not said")
	}
	if err := w.WaitSynced(); err != nil {
		t.Fatalf("a failed fsync was said twice: %v", err)
	}
}
