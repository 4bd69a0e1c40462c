package fleet

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"rooda/host/journal"
	"rooda/host/runlog"
)

// recordInStore reads back, as a worker taking the run over would, the
// records the store holds of run name, into a directory of their own.
func recordInStore(t *testing.T, f *Fleet, name string) (id, dir string) {
	t.Helper()
	runs := t.TempDir()
	id, err := f.downloadRecords(context.Background(), name, runs, filepath.Dir(runs))
	if err != nil {
		t.Fatal(err)
	}
	return id, filepath.Join(runs, id)
}

// sameFile fails the test unless the file rel of the record downloaded
// at got is the one at want.
func sameFile(t *testing.T, want, got, rel string) {
	t.Helper()
	w, err := os.ReadFile(filepath.Join(want, rel))
	if err != nil {
		t.Fatal(err)
	}
	g, err := os.ReadFile(filepath.Join(got, rel))
	if err != nil || !bytes.Equal(w, g) {
		t.Errorf("%s in the store: %q (%v), want %q", rel, g, err, w)
	}
}

// sameRun fails the test unless the run.json of the record downloaded at
// got is the one at want but for its directory: where the download's
// rooda is to run, the runs directory's parent.
func sameRun(t *testing.T, want, got string) {
	t.Helper()
	w, err := runlog.ReadRun(filepath.Dir(want), filepath.Base(want))
	if err != nil {
		t.Fatal(err)
	}
	g, err := runlog.ReadRun(filepath.Dir(got), filepath.Base(got))
	if err != nil {
		t.Fatal(err)
	}
	if moved := filepath.Dir(filepath.Dir(got)); g.Dir != moved {
		t.Errorf("the downloaded run.json says it ran in %s, want %s, where it is resumed", g.Dir, moved)
	}
	g.Dir = w.Dir
	if !reflect.DeepEqual(g, w) {
		t.Errorf("run.json in the store: %+v, want %+v", g, w)
	}
}

// TestARecordIsWrittenThroughAsItsJournalGrows: a run's record, as rooda
// writes it (runlog's run.json, the journal's entries, an iteration's
// files), reaches the object store at each look once its journal grew:
// the journal in pieces of what was appended since the last (never the
// whole again), the other files whole when they are new or changed; the
// pushes the journal's iterations need come before their piece, which
// waits while one says not yet; a worker that no longer holds the run
// uploads nothing; and a copy made later (a worker taking the run over)
// goes on after what the store holds, and a journal written anew
// replaces it there. A record downloaded names the
// directory it is downloaded for as its run's.
func TestARecordIsWrittenThroughAsItsJournalGrows(t *testing.T) {
	ctx := context.Background()
	f := client(t, embedded(t))
	runs := t.TempDir()
	rec := startRecord(t, runs)
	dir := rec.Dir()
	id := filepath.Base(dir)
	var held error
	c, err := f.newRecordCopy(ctx, "r1", runs, func(context.Context) error { return held })
	if err != nil {
		t.Fatal(err)
	}
	var pushed [][]string
	var notYet bool
	c.beforeJournal = func(_ context.Context, got string, entries []journal.Entry) error {
		if got != id {
			t.Errorf("the push was told of record %s, want %s", got, id)
		}
		var kinds []string
		for _, e := range entries {
			kinds = append(kinds, e.Kind)
		}
		pushed = append(pushed, kinds)
		if notYet {
			return errNotYet
		}
		return nil
	}
	look := func() {
		t.Helper()
		if err := c.sync(ctx, false); err != nil {
			t.Fatal(err)
		}
	}
	pieces := func() map[int64]int64 {
		t.Helper()
		stored, err := storedRecords(ctx, f.records, "r1")
		if err != nil {
			t.Fatal(err)
		}
		return stored[id].pieces
	}

	look() // no journal yet: nothing to write
	if got := pieces(); len(got) != 0 {
		t.Fatalf("before any entry, the store holds %v", got)
	}
	jnl, err := journal.Open(filepath.Join(dir, journal.Name))
	if err != nil {
		t.Fatal(err)
	}
	defer jnl.Close()
	appendEntry := func(e journal.Entry) int64 {
		t.Helper()
		if err := jnl.Append(e, true); err != nil {
			t.Fatal(err)
		}
		info, err := os.Stat(filepath.Join(dir, journal.Name))
		if err != nil {
			t.Fatal(err)
		}
		return info.Size()
	}
	appendEntry(journal.Entry{Kind: journal.Call, Key: journal.Key{Thread: "main", Seq: 1}, Op: "iterate"})
	began := appendEntry(journal.Entry{Kind: journal.Began, Key: journal.Key{Thread: "main", Seq: 1}, N: 1, Record: 1})
	look()
	if got := pieces(); len(got) != 1 || got[0] != began {
		t.Fatalf("after two entries, the journal's pieces: %v, want one of %d bytes at 0", got, began)
	}
	gotID, got := recordInStore(t, f, "r1")
	if gotID != id {
		t.Fatalf("the store's record is %q, want %q", gotID, id)
	}
	sameFile(t, dir, got, journal.Name)
	sameRun(t, dir, got)

	look() // nothing appended: nothing pushed, nothing written
	if err := os.MkdirAll(filepath.Join(dir, "iterations", "0001"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "iterations", "0001", "meta.json"), []byte(`{"n":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	ended := appendEntry(journal.Entry{Kind: journal.Ended, Key: journal.Key{Thread: "main", Seq: 1}, N: 1, Record: 1})
	look()
	if got := pieces(); len(got) != 2 || got[0] != began || got[began] != ended-began {
		t.Fatalf("after the iteration's end, the journal's pieces: %v, want the first as it was and the %d bytes appended at %d", got, ended-began, began)
	}
	_, got = recordInStore(t, f, "r1")
	sameFile(t, dir, got, journal.Name)
	sameFile(t, dir, got, filepath.Join("iterations", "0001", "meta.json"))
	if want := [][]string{{"call", "began"}, {"ended"}}; !reflect.DeepEqual(pushed, want) {
		t.Errorf("the pushes were told of %v, want %v", pushed, want)
	}

	// A push not yet possible holds its piece back, until a look when
	// it is.
	notYet = true
	next := appendEntry(journal.Entry{Kind: journal.Began, Key: journal.Key{Thread: "main", Seq: 1}, N: 2, Record: 2})
	look()
	if got := pieces(); len(got) != 2 {
		t.Fatalf("a piece held back was written: %v", got)
	}
	notYet = false
	look()
	if got := pieces(); len(got) != 3 || got[ended] != next-ended {
		t.Fatalf("the piece held back, then let go: %v", got)
	}

	// A worker that lost the run writes nothing more.
	held = ErrRevisionMoved
	lost := appendEntry(journal.Entry{Kind: journal.Ended, Key: journal.Key{Thread: "main", Seq: 1}, N: 2, Record: 2})
	if err := c.sync(ctx, false); !errors.Is(err, ErrRevisionMoved) {
		t.Fatalf("a sync by a worker that lost the run: %v", err)
	}
	if got := pieces(); len(got) != 3 {
		t.Fatalf("a worker that lost the run wrote: %v", got)
	}

	// The worker that takes the run over goes on after the store's
	// journal, not from its start.
	taker, err := f.newRecordCopy(ctx, "r1", runs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if taker.id != id || taker.journalAt != next {
		t.Fatalf("the taker's copy starts at %s@%d, want %s@%d", taker.id, taker.journalAt, id, next)
	}
	if err := taker.sync(ctx, false); err != nil {
		t.Fatal(err)
	}
	if got := pieces(); len(got) != 4 || got[next] != lost-next {
		t.Fatalf("the taker's piece: %v", got)
	}
	_, got = recordInStore(t, f, "r1")
	sameFile(t, dir, got, journal.Name)

	// A journal written anew, shorter (a resume that cut a damaged
	// end), replaces the store's: its old pieces do not follow it.
	jnl.Close()
	if err := os.Truncate(filepath.Join(dir, journal.Name), began); err != nil {
		t.Fatal(err)
	}
	if err := taker.sync(ctx, false); err != nil {
		t.Fatal(err)
	}
	if got := pieces(); len(got) != 1 || got[0] != began {
		t.Fatalf("the pieces of a journal written anew: %v, want one of %d bytes at 0", got, began)
	}
	_, got = recordInStore(t, f, "r1")
	sameFile(t, dir, got, journal.Name)
}
