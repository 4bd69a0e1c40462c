package fleet

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"rooda/host/journal"
	"rooda/host/runlog"
)

// failingLists makes the store's listing fail n times, as a server out
// of reach a moment would, until the test ends.
func failingLists(t *testing.T, n int32) {
	t.Helper()
	list := listObjects
	var failed atomic.Int32
	listObjects = func(ctx context.Context, obs jetstream.ObjectStore) ([]*jetstream.ObjectInfo, error) {
		if failed.Add(1) <= n {
			return nil, errors.New("the store is out of reach")
		}
		return list(ctx, obs)
	}
	t.Cleanup(func() { listObjects = list })
}

// TestAFailedListingDoesNotStopTheWriteThrough: the store's listing
// fails as a run's write-through begins (a server out of reach a
// moment): the copy is tried again at the next looks, and the record
// reaches the store once the store answers, rather than never.
func TestAFailedListingDoesNotStopTheWriteThrough(t *testing.T) {
	s := embedded(t)
	f := client(t, s)
	ctx := context.Background()
	if _, err := f.Add(ctx, testRun("listed")); err != nil {
		t.Fatal(err)
	}
	q := queue(t, f, time.Minute)
	l := take(t, q, "w", 10*time.Second)
	dir := t.TempDir()
	rec, err := runlog.Start(filepath.Join(dir, runlog.DefaultDir), "build", []string{"run", "build"}, 10, "")
	if err != nil {
		t.Fatal(err)
	}
	jnl, err := journal.Open(filepath.Join(rec.Dir(), journal.Name))
	if err != nil {
		t.Fatal(err)
	}
	defer jnl.Close()
	if err := jnl.Append(journal.Entry{Kind: journal.Call, Key: journal.Key{Thread: "main", Seq: 1}, Op: "iterate"}, true); err != nil {
		t.Fatal(err)
	}
	failingLists(t, 3)
	w := &Worker{Queue: q, Name: "w", Log: io.Discard}
	c := w.writeThrough(ctx, l, dir, dir)
	defer c.stop()
	id := filepath.Base(rec.Dir())
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		stored, err := storedRecords(ctx, f.records, "listed")
		if err == nil && len(stored[id].pieces) > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the record never reached the store after its listing failed at the start")
		}
	}
}
