package files

import (
	"context"
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
// writer; Read must not, finds it empty, and refuses it.
func TestNamedPipeWithoutWriter(t *testing.T) {
	fifo := mkfifo(t)
	_, err := readGuarded(t, fifo)
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Path != fifo || !errors.Is(err, ErrEmptyPipe) {
		t.Errorf("a pipe with no writer: %v; want a PathError naming it, wrapping ErrEmptyPipe", err)
	}
}

// TestEmptyFileIsNoPipe: an empty regular file is read as empty, as it
// always was; only a pipe that gives nothing is refused.
func TestEmptyFileIsNoPipe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := Read(path, 10); err != nil || len(data) != 0 {
		t.Errorf("an empty file: %q, %v", data, err)
	}
}

// TestSilentWriterCancelled: a writer that holds the pipe open and
// writes nothing keeps the read waiting until the context ends; then the
// read returns the context's cause.
func TestSilentWriterCancelled(t *testing.T) {
	fifo := mkfifo(t)
	// Read-write: the test itself is the silent writer, without waiting
	// for a reader.
	writer, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	cause := errors.New("SIGINT")
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := ReadContext(ctx, fifo, 1<<20)
		done <- err
	}()
	cancel(cause)
	select {
	case err := <-done:
		var pe *fs.PathError
		if !errors.As(err, &pe) || pe.Path != fifo || !errors.Is(err, cause) {
			t.Errorf("a cancelled read: %v; want a PathError naming the pipe, wrapping the cause", err)
		}
	case <-time.After(hangGuard):
		t.Fatalf("the read did not end within %s of the context", hangGuard)
	}
}

func mkfifo(t *testing.T) string {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	return fifo
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

func TestWithinAndShown(t *testing.T) {
	for _, tc := range []struct {
		dir, path, rel string
		ok             bool
	}{
		{"/a", "/a/b/c", "b/c", true}, {"/a", "/a", ".", true}, {"/a", "/ab", "", false}, {"/a", "/", "", false}, {"/a", "/a/../b", "", false},
	} {
		if rel, ok := Within(tc.dir, tc.path); rel != tc.rel || ok != tc.ok {
			t.Errorf("Within(%q, %q) = %q, %t", tc.dir, tc.path, rel, ok)
		}
	}
	if got := Shown("/a", "/b/c"); got != "/b/c" {
		t.Errorf("Shown outside: %q", got)
	}
	if got := Shown("/a", "/a/c"); got != "c" {
		t.Errorf("Shown below: %q", got)
	}
}

// TestReadSizedGoesPastTheSizeItWasTold: a file that grew since its
// size was read is read whole, past the buffer made for that size.
func TestReadSizedGoesPastTheSizeItWasTold(t *testing.T) {
	content := strings.Repeat("0123456789", 1000)
	for _, size := range []int64{1, 10, 9999, 10000, 20000} {
		data, err := readSized(strings.NewReader(content), size)
		if err != nil || string(data) != content {
			t.Errorf("told %d bytes: read %d, %v", size, len(data), err)
		}
	}
}
