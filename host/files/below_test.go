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
	dir, outside := linkedTree(t)
	for name, link := range links {
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

// linkedTree makes a directory holding a/b/file ("mine") and links in a/
// to a file outside it (out), to that file (in), to the outside
// directory (dir), which holds a secret, and to b (inb).
func linkedTree(t *testing.T) (dir, outside string) {
	dir, outside = t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret"), []byte("SECRET"), 0o600)
	os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755)
	os.WriteFile(filepath.Join(dir, "a", "b", "file"), []byte("mine"), 0o644)
	os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "a", "out"))
	os.Symlink("b/file", filepath.Join(dir, "a", "in"))
	os.Symlink(outside, filepath.Join(dir, "a", "dir"))
	os.Symlink("b", filepath.Join(dir, "a", "inb"))
	return dir, outside
}

// links are the paths of linkedTree that lead through a link, each with
// the link an error names.
var links = map[string]string{"a/out": "a/out", "a/in": "a/in", "a/dir/secret": "a/dir", "a/dir": "a/dir", "a/inb/file": "a/inb"}

// TestReadBelowFollowsNoLink: ReadBelow refuses what OpenBelow refuses,
// naming the same link, and a directory too; it reads a file reached
// without a link, in one part or several, up to its limit.
func TestReadBelowFollowsNoLink(t *testing.T) {
	dir, _ := linkedTree(t)
	for name, link := range links {
		data, err := ReadBelow(dir, name, 100)
		var pe *fs.PathError
		if !errors.Is(err, ErrSymlink) || !errors.As(err, &pe) || pe.Path != filepath.Join(dir, link) {
			t.Errorf("%s: %q, %v, want ErrSymlink naming the link %s", name, data, err, link)
		}
	}
	if _, err := ReadBelow(dir, "a/b/none", 100); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want fs.ErrNotExist", err)
	}
	if _, err := ReadBelow(dir, "a/b", 100); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a directory: %v, want ErrNotRegular", err)
	}
	// A pipe in one part and in several (one openat2 on Linux).
	os.Rename(mkfifo(t), filepath.Join(dir, "fifo"))
	os.Rename(mkfifo(t), filepath.Join(dir, "a", "fifo"))
	for _, name := range []string{"fifo", "a/fifo"} {
		if _, err := ReadBelow(dir, name, 100); !errors.Is(err, ErrNotRegular) {
			t.Errorf("a pipe, %s: %v, want ErrNotRegular (and no wait for a writer)", name, err)
		}
	}
	os.WriteFile(filepath.Join(dir, "top"), []byte("top"), 0o644)
	for name, want := range map[string]string{"a/b/file": "mine", "top": "top"} {
		if data, err := ReadBelow(dir, name, 4); string(data) != want || err != nil {
			t.Errorf("%s: %q, %v, want %q", name, data, err, want)
		}
	}
	var large *TooLargeError
	if data, err := ReadBelow(dir, "a/b/file", 3); !errors.As(err, &large) || data != nil {
		t.Errorf("a file past the limit: %q, %v, want a TooLargeError", data, err)
	}
}
