package fleet

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"rooda/host/files"
	"rooda/host/journal"
	"rooda/host/runlog"
)

// TestAWriteThroughReadsNoLinkAndNoPipe: an agent writes in the
// workspace, the record's too; a symbolic link it left in an iteration
// of the record (to a key of the user's, or to a directory) is not
// followed and not uploaded, readable by every client of the fleet, and
// a named pipe there does not keep the look waiting for a writer: the
// regular files beside them are uploaded all the same.
func TestAWriteThroughReadsNoLinkAndNoPipe(t *testing.T) {
	f := client(t, embedded(t))
	runs := t.TempDir()
	rec := startRecord(t, runs)
	it := filepath.Join(rec.Dir(), "iterations", "0001")
	if err := os.MkdirAll(it, 0o755); err != nil {
		t.Fatal(err)
	}
	secrets := t.TempDir()
	if err := os.WriteFile(filepath.Join(secrets, "id_ed25519"), []byte("SECRET KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(secrets, "id_ed25519"), filepath.Join(it, "output.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secrets, filepath.Join(it, "dir")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(it, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(it, "meta.json"), []byte(`{"n":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := f.newRecordCopy(context.Background(), "r", runs, nil)
	if err != nil {
		t.Fatal(err)
	}
	synced := make(chan error, 1)
	go func() { synced <- c.sync(context.Background(), true) }()
	select {
	case err := <-synced:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the write-through waits on a named pipe of the record")
	}
	stored, err := storedRecords(context.Background(), f.records, "r")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, p := range stored[filepath.Base(rec.Dir())].files {
		got[p] = true
	}
	if !got["iterations/0001/meta.json"] {
		t.Errorf("the record's regular file was not uploaded: %v", got)
	}
	for _, p := range []string{"iterations/0001/output.txt", "iterations/0001/dir/id_ed25519", "iterations/0001/fifo"} {
		if got[p] {
			t.Errorf("%s, a link or a pipe, was uploaded", p)
		}
	}
}

// TestADownloadWritesOnlyInsideTheRecord: the store's names are not
// trusted, nor the clone, which an agent may have committed links to:
// a name whose id is not a run's or whose path leaves the record is not
// written, and a runs directory, or a directory of a record, that is a
// link in the clone makes the download fail, writing nothing where the
// link leads.
func TestADownloadWritesOnlyInsideTheRecord(t *testing.T) {
	ctx := context.Background()
	f := client(t, embedded(t))
	const id = "20260101T000000.000000Z-build-abcd"
	put := func(name, data string) {
		t.Helper()
		if _, err := f.records.PutBytes(ctx, name, []byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	put("r/"+id+"/run.json", `{"id":"`+id+`"}`)
	put("r/"+id+"/iterations/0001/meta.json", `{"n":1}`)
	put("r/"+id+"/../../../escaped.txt", "escaped")
	put("r/"+id+"/iterations/../../../../escaped.txt", "escaped")
	put("r/"+id+"//abs/escaped.txt", "escaped")
	put("r/../escaped/run.json", "escaped")
	put("r/..", "escaped")

	work := filepath.Join(t.TempDir(), "a", "b", "c")
	runs := filepath.Join(work, ".rooda", "runs")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := f.downloadRecords(ctx, "r", runs, work); err != nil {
		t.Fatal(err)
	}
	var written []string
	filepath.WalkDir(filepath.Dir(filepath.Dir(filepath.Dir(work))), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			written = append(written, p)
		}
		return nil
	})
	for _, p := range written {
		rel, _ := filepath.Rel(runs, p)
		switch rel {
		case filepath.Join(id, "run.json"), filepath.Join(id, "iterations", "0001", "meta.json"), filepath.Join(id, "journal.jsonl"), ".gitignore":
		default:
			t.Errorf("the download wrote %s", p)
		}
	}

	for _, link := range []string{".rooda", filepath.Join(".rooda", "runs"), filepath.Join(".rooda", "runs", id, "iterations")} {
		work := t.TempDir()
		elsewhere := t.TempDir()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(work, link)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(elsewhere, filepath.Join(work, link)); err != nil {
			t.Fatal(err)
		}
		_, err := f.downloadRecords(ctx, "r", filepath.Join(work, ".rooda", "runs"), work)
		if err == nil {
			t.Errorf("a download into a clone whose %s is a link succeeded", link)
		}
		if entries, _ := os.ReadDir(elsewhere); len(entries) > 0 {
			t.Errorf("a download through the link %s wrote %v where it leads", link, entries)
		}
	}
}

// TestALateHolderDoesNotReplaceItsTakersJournal: a worker paused past
// its lease goes on writing the journal's pieces while its taker, on
// another machine, writes its own from the same offset: the store's
// journal is the taker's, the stale worker's pieces, at the taker's
// offsets and after them, are not part of it.
func TestALateHolderDoesNotReplaceItsTakersJournal(t *testing.T) {
	ctx := context.Background()
	f := client(t, embedded(t))
	key := journal.Key{Thread: "main", Seq: 1}
	stale := t.TempDir()
	rec := startRecord(t, stale)
	id := filepath.Base(rec.Dir())
	staleJnl := openJournal(t, filepath.Join(rec.Dir(), journal.Name))
	appendTo(t, staleJnl, journal.Entry{Kind: journal.Began, Key: key, N: 1, Record: 1})
	first, err := f.newRecordCopy(ctx, "r", stale, nil)
	if err != nil {
		t.Fatal(err)
	}
	first.attempt = 1
	if err := first.sync(ctx, false); err != nil {
		t.Fatal(err)
	}

	taking := t.TempDir()
	runs := filepath.Join(taking, runlog.DefaultDir)
	if err := os.MkdirAll(runs, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := f.downloadRecords(ctx, "r", runs, taking); err != nil {
		t.Fatal(err)
	}
	taker, err := f.newRecordCopy(ctx, "r", runs, nil)
	if err != nil {
		t.Fatal(err)
	}
	taker.attempt = 2
	takerJnl := openJournal(t, filepath.Join(runs, id, journal.Name))
	appendTo(t, takerJnl, journal.Entry{Kind: journal.Ended, Key: key, N: 1, Record: 1, What: "taker"})
	if err := taker.sync(ctx, false); err != nil {
		t.Fatal(err)
	}

	// The stale worker wakes: a piece at the taker's offset, of the
	// same size, then one past it, which would follow the taker's.
	appendTo(t, staleJnl, journal.Entry{Kind: journal.Ended, Key: key, N: 1, Record: 1, What: "stale"})
	if err := first.sync(ctx, false); err != nil {
		t.Fatal(err)
	}
	appendTo(t, staleJnl, journal.Entry{Kind: journal.Began, Key: key, N: 2, Record: 2})
	if err := first.sync(ctx, false); err != nil {
		t.Fatal(err)
	}
	_, got := recordInStore(t, f, "r")
	sameFile(t, filepath.Join(runs, id), got, journal.Name)
}

// startRecord starts a run's record of build in runs.
func startRecord(t testing.TB, runs string) *runlog.Recorder {
	t.Helper()
	rec, err := runlog.Start(runs, "build", []string{"run", "build"}, 10, "")
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func openJournal(t *testing.T, path string) *journal.Writer {
	t.Helper()
	j, err := journal.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return j
}

func appendTo(t *testing.T, j *journal.Writer, e journal.Entry) {
	t.Helper()
	if err := j.Append(e, true); err != nil {
		t.Fatal(err)
	}
}

// TestAJournalWrittenAnewLongerIsKnownByItsContent: a resume that cut
// a damaged end of the journal and appended past its old length wrote
// it anew: the store's journal becomes the new one, not the old one's
// bytes followed by the new one's tail, both for the copy that
// uploaded the old one and for one made after (a worker taking over).
func TestAJournalWrittenAnewLongerIsKnownByItsContent(t *testing.T) {
	ctx := context.Background()
	f := client(t, embedded(t))
	key := journal.Key{Thread: "main", Seq: 1}
	for _, later := range []bool{false, true} {
		name := fmt.Sprintf("anew-%v", later)
		runs := t.TempDir()
		rec := startRecord(t, runs)
		path := filepath.Join(rec.Dir(), journal.Name)
		j := openJournal(t, path)
		appendTo(t, j, journal.Entry{Kind: journal.Began, Key: key, N: 1, Record: 1})
		appendTo(t, j, journal.Entry{Kind: journal.Ended, Key: key, N: 1, Record: 1, What: "the old end"})
		c, err := f.newRecordCopy(ctx, name, runs, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.sync(ctx, false); err != nil {
			t.Fatal(err)
		}
		j.Close()
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		j = openJournal(t, path)
		appendTo(t, j, journal.Entry{Kind: journal.Began, Key: key, N: 1, Record: 1})
		appendTo(t, j, journal.Entry{Kind: journal.Ended, Key: key, N: 1, Record: 1, What: "a new end, written anew and longer than the old"})
		if later {
			if c, err = f.newRecordCopy(ctx, name, runs, nil); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.sync(ctx, false); err != nil {
			t.Fatal(err)
		}
		_, got := recordInStore(t, f, name)
		sameFile(t, rec.Dir(), got, journal.Name)
	}
}

// TestAFileRewrittenToTheSameSizeAndTimeIsSentAgain: rooda rewrites a
// record's file by a rename; one rewritten to the same size within the
// file system's clock tick is uploaded again all the same.
func TestAFileRewrittenToTheSameSizeAndTimeIsSentAgain(t *testing.T) {
	ctx := context.Background()
	f := client(t, embedded(t))
	runs := t.TempDir()
	rec := startRecord(t, runs)
	path := filepath.Join(rec.Dir(), "iterations", "0001", "meta.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := files.WriteWhole(path, []byte(`{"n":1}`)); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := f.newRecordCopy(ctx, "r", runs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.sync(ctx, true); err != nil {
		t.Fatal(err)
	}
	if err := files.WriteWhole(path, []byte(`{"n":2}`)); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := c.sync(ctx, true); err != nil {
		t.Fatal(err)
	}
	_, got := recordInStore(t, f, "r")
	sameFile(t, rec.Dir(), got, filepath.Join("iterations", "0001", "meta.json"))
}

// TestANewerRecordInTheWorkspaceIsWrittenThrough: the store holds a
// record of the run, and rooda, taking it over, starts a record anew
// (one it could not resume): the new record is the one written through
// from then on.
func TestANewerRecordInTheWorkspaceIsWrittenThrough(t *testing.T) {
	ctx := context.Background()
	f := client(t, embedded(t))
	key := journal.Key{Thread: "main", Seq: 1}
	runs := t.TempDir()
	old, err := runlog.Start(runs, "build", []string{"run", "build"}, 10, "")
	if err != nil {
		t.Fatal(err)
	}
	appendTo(t, openJournal(t, filepath.Join(old.Dir(), journal.Name)), journal.Entry{Kind: journal.Began, Key: key, N: 1, Record: 1})
	first, err := f.newRecordCopy(ctx, "r", runs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := first.sync(ctx, false); err != nil {
		t.Fatal(err)
	}
	c, err := f.newRecordCopy(ctx, "r", runs, nil)
	if err != nil {
		t.Fatal(err)
	}
	var newer *runlog.Recorder
	for newer == nil || filepath.Base(newer.Dir()) <= filepath.Base(old.Dir()) {
		if newer, err = runlog.Start(runs, "build", []string{"run", "build"}, 10, ""); err != nil {
			t.Fatal(err)
		}
	}
	appendTo(t, openJournal(t, filepath.Join(newer.Dir(), journal.Name)), journal.Entry{Kind: journal.Began, Key: key, N: 1, Record: 1, What: "anew"})
	if err := c.sync(ctx, false); err != nil {
		t.Fatal(err)
	}
	id, got := recordInStore(t, f, "r")
	if id != filepath.Base(newer.Dir()) {
		t.Fatalf("the store's newest record is %s, want the one started anew, %s", id, filepath.Base(newer.Dir()))
	}
	sameFile(t, newer.Dir(), got, journal.Name)
}

// TestAPieceWhosePushFailedIsNotUploaded: a push that fails before a
// piece of the journal (the remote out of reach) keeps the piece out of
// the store, and the look says why; the next look that pushes uploads it.
func TestAPieceWhosePushFailedIsNotUploaded(t *testing.T) {
	ctx := context.Background()
	f := client(t, embedded(t))
	runs := t.TempDir()
	rec := startRecord(t, runs)
	c, err := f.newRecordCopy(ctx, "r", runs, nil)
	if err != nil {
		t.Fatal(err)
	}
	unreachable := errors.New("the remote is out of reach")
	pushErr := unreachable
	c.beforeJournal = func(context.Context, string, []journal.Entry) error { return pushErr }
	appendTo(t, openJournal(t, filepath.Join(rec.Dir(), journal.Name)), journal.Entry{Kind: journal.Began, Key: journal.Key{Thread: "main", Seq: 1}, N: 1, Record: 1})
	if err := c.sync(ctx, false); !errors.Is(err, unreachable) {
		t.Errorf("a look whose push failed: %v, want the push's error", err)
	}
	stored, err := storedRecords(ctx, f.records, "r")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(stored[filepath.Base(rec.Dir())].pieces); n != 0 {
		t.Fatalf("a piece whose push failed was uploaded: %d pieces", n)
	}
	pushErr = nil
	if err := c.sync(ctx, false); err != nil {
		t.Fatal(err)
	}
	_, got := recordInStore(t, f, "r")
	sameFile(t, rec.Dir(), got, journal.Name)
}

// TestAFileMadeInAnIterationSentBeforeIsSent: an iteration's directory
// sent whole once (its output not written yet), then given its output,
// has it uploaded with the end that names it, though the directory of
// iterations around it did not change.
func TestAFileMadeInAnIterationSentBeforeIsSent(t *testing.T) {
	ctx := context.Background()
	f := client(t, embedded(t))
	key := journal.Key{Thread: "main", Seq: 1}
	runs := t.TempDir()
	rec := startRecord(t, runs)
	iteration := filepath.Join(rec.Dir(), "iterations", "0001")
	if err := os.MkdirAll(iteration, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(iteration, "prompt.txt"), []byte("prompt"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Older than a coarse clock's tick: passed over once sent.
	long := time.Now().Add(-time.Minute)
	for _, d := range []string{iteration, filepath.Dir(iteration)} {
		if err := os.Chtimes(d, long, long); err != nil {
			t.Fatal(err)
		}
	}
	jnl := openJournal(t, filepath.Join(rec.Dir(), journal.Name))
	appendTo(t, jnl, journal.Entry{Kind: journal.Began, Key: key, N: 1, Record: 1})
	c, err := f.newRecordCopy(ctx, "r", runs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.sync(ctx, false); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(iteration, "output.txt"), []byte("output"), 0o644); err != nil {
		t.Fatal(err)
	}
	appendTo(t, jnl, journal.Entry{Kind: journal.Ended, Key: key, N: 1, Record: 1})
	if err := c.sync(ctx, false); err != nil {
		t.Fatal(err)
	}
	_, got := recordInStore(t, f, "r")
	sameFile(t, rec.Dir(), got, filepath.Join("iterations", "0001", "output.txt"))
}
