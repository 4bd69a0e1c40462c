package fleet

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

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
	rec, err := runlog.Start(runs, "build", []string{"run", "build"}, 10, "")
	if err != nil {
		t.Fatal(err)
	}
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
