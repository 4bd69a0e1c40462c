package files

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestOpenBelowFollowsNoLink: below the directory, a link is refused as
// such wherever it is on the path — the file, a directory on the way —
// whether it leads outside or not; so are a pipe and a path that leaves
// the directory. A file and a directory reached without a link open.
func TestOpenBelowFollowsNoLink(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret"), []byte("SECRET"), 0o600)
	os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755)
	os.WriteFile(filepath.Join(dir, "a", "b", "file"), []byte("mine"), 0o644)
	os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "a", "out"))
	os.Symlink("b/file", filepath.Join(dir, "a", "in"))
	os.Symlink(outside, filepath.Join(dir, "a", "dir"))
	for name, link := range map[string]string{"a/out": "a/out", "a/in": "a/in", "a/dir/secret": "a/dir", "a/dir": "a/dir"} {
		f, err := OpenBelow(dir, name)
		var pe *fs.PathError
		if !errors.Is(err, ErrSymlink) || !errors.As(err, &pe) || pe.Path != filepath.Join(dir, link) {
			t.Errorf("%s: %v, want ErrSymlink naming the link %s", name, err, link)
		}
		if f != nil {
			f.Close()
		}
	}
	if _, err := OpenBelow(dir, "../"+filepath.Base(outside)+"/secret"); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("a path out of the directory: %v", err)
	}
	if _, err := OpenBelow(dir, "a/none"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want fs.ErrNotExist", err)
	}
	fifo := mkfifo(t)
	if _, err := OpenBelow(filepath.Dir(fifo), "fifo"); !errors.Is(err, ErrNotFile) {
		t.Errorf("a pipe: %v, want ErrNotFile (and no wait for a writer)", err)
	}
	f, err := OpenBelow(dir, "a/b/file")
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(f)
	f.Close()
	if string(data) != "mine" || err != nil {
		t.Errorf("a file reached without a link: %q, %v", data, err)
	}
	if d, err := OpenBelow(dir, "a/b"); err != nil {
		t.Errorf("a directory: %v", err)
	} else {
		d.Close()
	}
}
