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
