//go:build unix

package journal

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
)

// TestFailedWriteIsCutAway: a write that fails part way (a full disk,
// ENOSPC) leaves no half line behind to hide the entries appended after
// it: the journal reads back every whole entry, in order.
func TestFailedWriteIsCutAway(t *testing.T) {
	path := filepath.Join(t.TempDir(), Name)
	w, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	entries := sample()
	must(t, w.Append(entries[0], false))
	real := w.write
	w.write = func(line []byte) (int, error) {
		n, _ := real(line[:len(line)/2]) // the disk took half of it
		return n, syscall.ENOSPC
	}
	if err := w.Append(entries[1], true); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("the failed write's error: %v", err)
	}
	w.write = real
	must(t, w.Append(entries[2], true))
	got, good, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{entries[0], entries[2]}
	if info, _ := os.Stat(path); !reflect.DeepEqual(got, want) || info.Size() != good {
		t.Fatalf("read back %d of %d bytes:\n%+v\nwant:\n%+v", good, info.Size(), got, want)
	}
}

// TestDamagedLineIsToldFromATornOne: a crash tears only the last line;
// a bad line with lines after it is damage, named by its number, with
// the whole entries that follow it.
func TestDamagedLineIsToldFromATornOne(t *testing.T) {
	var whole []byte
	for _, e := range sample() {
		line, err := Line(e)
		if err != nil {
			t.Fatal(err)
		}
		whole = append(whole, line...)
	}
	if _, ok := Damaged(whole[:len(whole)-5]); ok {
		t.Error("a torn last line taken for damage")
	}
	if _, ok := Damaged(whole); ok {
		t.Error("a whole journal taken for damage")
	}
	changed := bytes.Clone(whole)
	changed[12] ^= 1
	d, ok := Damaged(changed)
	if !ok || d.Line != 1 || len(d.After) != 2 {
		t.Errorf("first line with a byte changed: %+v %v", d, ok)
	}
	empty := append([]byte("\n"), whole...)
	if d, ok := Damaged(empty); !ok || d.Line != 1 || len(d.After) != 3 {
		t.Errorf("an empty first line: %+v %v", d, ok)
	}
}

// TestReadRefusesLinksAndPipes: the journal is read as every other file
// of a record: no symbolic link followed, no pipe waited on.
func TestReadRefusesLinksAndPipes(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, Name)
	must(t, os.Symlink("/dev/zero", path))
	if _, _, err := Read(path); err == nil {
		t.Error("a link to /dev/zero was read")
	}
	if _, err := Open(path); err == nil {
		t.Error("a link to /dev/zero was opened for appending")
	}
	must(t, os.Remove(path))
	must(t, syscall.Mkfifo(path, 0o644))
	if _, _, err := Read(path); err == nil {
		t.Error("a FIFO was read")
	}
	if _, err := Open(path); err == nil {
		t.Error("a FIFO was opened for appending")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
