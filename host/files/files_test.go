package files

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hangGuard bounds the wait for a read that must not block: a guard
// against a hang, not a measure of speed.
const hangGuard = 30 * time.Second

func TestReadWithinTheLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notes.md")
	if err := os.WriteFile(path, []byte(strings.Repeat("x", 1024)), 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := Read(path, 1024)
	if err != nil || len(data) != 1024 {
		t.Fatalf("a file of exactly the limit: %d bytes, %v", len(data), err)
	}
	_, err = Read(path, 1023)
	var tooLarge *TooLargeError
	if !errors.As(err, &tooLarge) || err.Error() != "read "+path+": larger than the limit of 1023 bytes" {
		t.Fatalf("a byte over the limit: %v", err)
	}
}

// TestReadNeverTrustsTheSize: /dev/zero says it is empty and never ends;
// a sparse file says it is huge. Both are refused after limit+1 bytes.
func TestReadNeverTrustsTheSize(t *testing.T) {
	sparse := filepath.Join(t.TempDir(), "sparse")
	if err := os.WriteFile(sparse, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(sparse, 3<<30); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/dev/zero", "/dev/urandom", sparse} {
		_, err := Read(path, 1<<20)
		var pe *fs.PathError
		var tooLarge *TooLargeError
		if !errors.As(err, &pe) || pe.Path != path || !errors.As(err, &tooLarge) || tooLarge.Limit != 1<<20 {
			t.Errorf("%s: %v, want a PathError naming it, wrapping the limit", path, err)
		}
	}
}

func TestReadKeepsOSErrors(t *testing.T) {
	_, err := Read(filepath.Join(t.TempDir(), "missing"), 10)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want fs.ErrNotExist", err)
	}
	_, err = Read(t.TempDir(), 10)
	var pe *fs.PathError
	if !errors.As(err, &pe) || !errors.Is(err, syscall.EISDIR) {
		t.Errorf("a directory: %v, want a PathError for EISDIR", err)
	}
}

// TestNamedPipeWithoutWriter: opening a FIFO for reading waits for a
// writer; Read must not, and finds it empty.
func TestNamedPipeWithoutWriter(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	data, err := readGuarded(t, fifo)
	if err != nil || len(data) != 0 {
		t.Errorf("a pipe with no writer: %q, %v; want it empty", data, err)
	}
}

// TestPipeWithData: process substitution's /dev/fd/N reads to its end.
func TestPipeWithData(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w.WriteString("from a pipe\n")
	w.Close()
	data, err := readGuarded(t, fmt.Sprintf("/dev/fd/%d", r.Fd()))
	if err != nil || string(data) != "from a pipe\n" {
		t.Errorf("a pipe with data: %q, %v", data, err)
	}
}

func readGuarded(t *testing.T, path string) ([]byte, error) {
	t.Helper()
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		data, err := Read(path, 1<<20)
		done <- result{data, err}
	}()
	select {
	case r := <-done:
		return r.data, r.err
	case <-time.After(hangGuard):
		t.Fatalf("reading %s did not return within %s", path, hangGuard)
		return nil, nil
	}
}

func TestLimitSize(t *testing.T) {
	for n, want := range map[int64]string{16 << 20: "16 MiB", 512 << 10: "512 KiB", 100: "100 bytes", 1<<20 + 1: "1048577 bytes"} {
		if got := size(n); got != want {
			t.Errorf("size(%d) = %q, want %q", n, got, want)
		}
	}
}
