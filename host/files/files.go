// Package files reads the files a user names — context, fragments and
// templates, scripts and the modules they load, configuration, rooda.lock,
// the records of runs — with a bound on how much it reads. Whatever the
// file (/dev/zero, /dev/urandom, a sparse file of gigabytes, a file under
// /proc whose size says nothing), rooda reads at most the limit and one
// byte more, and refuses the file with an error naming it and the limit;
// it never trusts the size a file reports.
//
// A named pipe is opened without waiting for a writer: one that has none
// gives nothing at once instead of blocking rooda for ever, and is refused
// (ErrEmptyPipe), and a pipe that something writes to, such as process
// substitution's -c <(cmd), reads as usual, to its end. A writer that
// holds a pipe open and never writes would still keep the read waiting:
// ReadContext ends that wait when its context ends, at Ctrl+C. A pipe
// gives its content once: IsPipe tells the callers that must keep what
// they read.
package files

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The limits, by kind of file. Each is far above what such a file holds
// in use and far below what would strain the machine: a file over its
// limit is a mistake (a device, a log, a binary), not an input.
const (
	// PromptLimit bounds a piece of a prompt read from a file: a context
	// file, a fragment, a template. An agent's context window holds about
	// a million tokens, a few MiB of text; a piece larger than several
	// such windows cannot be meant.
	PromptLimit = 16 << 20
	// ScriptLimit bounds a Starlark script and each module it loads:
	// source written by hand, kilobytes in practice.
	ScriptLimit = 4 << 20
	// ConfigLimit bounds a configuration file (global, workspace,
	// --config): hand-written YAML, kilobytes even with inline fragments.
	ConfigLimit = 4 << 20
	// LockLimit bounds rooda.lock: a few lines per library.
	LockLimit = 1 << 20
	// RecordLimit bounds the JSON files of a run's record (run.json,
	// meta.json), which rooda writes: the largest parts, the command line
	// and the list of files an iteration changed, stay far below it even
	// in a large repository.
	RecordLimit = 16 << 20
	// RecordedPromptLimit bounds a recorded prompt read whole, as runs
	// diff does with two: a few prompt pieces and the host's sections.
	// Printing one (runs show --prompt) streams it instead.
	RecordedPromptLimit = 64 << 20
)

// TooLargeError is why a file was refused: it holds more than Limit
// bytes.
type TooLargeError struct {
	Limit int64
}

func (e *TooLargeError) Error() string {
	return "larger than the limit of " + size(e.Limit)
}

// ErrEmptyPipe is why a pipe that gave nothing was refused: most likely a
// named pipe no one writes to, which rooda reads without waiting. Were it
// read as an empty file, a configuration or a script would silently be
// nothing.
var ErrEmptyPipe = errors.New("a pipe that gave nothing to read; is anything writing to it?")

// Read returns the content of the file at path, reading at most limit+1
// bytes. Its errors are *fs.PathError, as os.ReadFile's are, so callers
// keep telling a missing file from others; for a file over the limit the
// PathError wraps a *TooLargeError, for a pipe that gave nothing
// ErrEmptyPipe.
func Read(path string, limit int64) ([]byte, error) {
	return ReadContext(context.Background(), path, limit)
}

// ReadContext is Read, but a read that waits ends when ctx does, with a
// PathError wrapping ctx's cause: a named pipe whose writer holds it open
// and writes nothing must not keep rooda past Ctrl+C.
func ReadContext(ctx context.Context, path string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// A deadline in the past makes the waiting read return at once; it
	// takes on what Go's poller waits for, as a pipe opened
	// non-blocking is, and regular files never wait.
	defer context.AfterFunc(ctx, func() { f.SetReadDeadline(time.Now()) })()
	data, err := ReadAll(f, path, limit)
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded) && ctx.Err() != nil:
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("stopped waiting for its writer: %w", context.Cause(ctx))}
	case err == nil && len(data) == 0 && isPipe(f.Stat()):
		return nil, &fs.PathError{Op: "read", Path: path, Err: ErrEmptyPipe}
	}
	return data, err
}

// ReadAll reads r to its end, or refuses it past limit bytes; name is
// what the error calls it.
func ReadAll(r io.Reader, name string, limit int64) ([]byte, error) {
	return readLimited(r, sizeOf(r, limit+1), name, limit)
}

// readLimited is ReadAll of r, which holds about size bytes (0 if not
// known).
func readLimited(r io.Reader, size int64, name string, limit int64) ([]byte, error) {
	data, err := readSized(io.LimitReader(r, limit+1), min(size, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, TooLarge(name, limit)
	}
	return data, nil
}

// sizeOf is what r holds, if it is a regular file, up to most; 0 if not
// known.
func sizeOf(r io.Reader, most int64) int64 {
	f, ok := r.(*os.File)
	if !ok {
		return 0
	}
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return 0
	}
	return min(info.Size(), most)
}

// readSized is io.ReadAll into a buffer made for size bytes and one
// more, where io.ReadAll grows one by doubling: a resume reads a journal
// of megabytes, and each growth copied and cleared it again.
func readSized(r io.Reader, size int64) ([]byte, error) {
	if size <= 0 {
		return io.ReadAll(r)
	}
	data := make([]byte, 0, size+1)
	for {
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return data, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)] // it grew meanwhile
		}
	}
}

// TooLarge is the error of reading name past limit bytes.
func TooLarge(name string, limit int64) error {
	return &fs.PathError{Op: "read", Path: name, Err: &TooLargeError{Limit: limit}}
}

// Open opens the file at path for reading; a named pipe with no writer
// does not block it (see the package comment).
func Open(path string) (*os.File, error) {
	flag := os.O_RDONLY
	if IsPipe(path) {
		flag |= nonBlocking
	}
	return os.OpenFile(path, flag, 0)
}

// IsPipe reports whether path is a pipe — a named one, or process
// substitution's /dev/fd/N — whose content is gone once read: what it
// gives must be kept, not read again.
func IsPipe(path string) bool { return isPipe(os.Stat(path)) }

// isPipe reports whether a stat's result is a pipe's.
func isPipe(info fs.FileInfo, err error) bool {
	return err == nil && info.Mode()&fs.ModeNamedPipe != 0
}

// size is a limit as people read it: 16 MiB, 512 KiB, 100 bytes.
func size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Canonical is path with its links followed, or path as it is when they
// cannot be (it does not exist): the name to compare two paths by.
func Canonical(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	return path
}

// Within reports whether path is dir or below it, and how it is named
// from dir (filepath.Rel's answer): what a library may read, how a file
// is shown to a user in dir.
func Within(dir, path string) (string, bool) {
	rel, err := filepath.Rel(dir, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

// Shown names abs as a user in dir reads it: relative when it is below
// dir, absolute otherwise.
func Shown(dir, abs string) string {
	if rel, ok := Within(dir, abs); ok {
		return rel
	}
	return abs
}
