package libs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"rooda/host/files"

	"rooda/host/interrupt"
)

// lockPoll is how often a wait for the cache's lock tries it again.
const lockPoll = 100 * time.Millisecond

// lock keeps other rooda processes out of the cache and the lock files
// until the returned function is called: two runs pinning at once must
// not interleave. A wait for another's hold says whose it is, and ends
// with ctx (an interrupt). The holder writes who it is into the lock's
// file, for the next to wait to say, and sweeps what killed fetches left.
func (m *Manager) lock(ctx context.Context) (func(), error) {
	if err := os.MkdirAll(m.CacheDir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(m.CacheDir, ".lock")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := m.waitForLock(ctx, f, path); err != nil {
		f.Close()
		return nil, err
	}
	if f.Truncate(0) == nil {
		f.WriteAt([]byte(holder()), 0)
	}
	m.sweep()
	return func() { f.Close() }, nil
}

// waitForLock takes the lock on f, waiting, and saying so, while another
// process holds it.
func (m *Manager) waitForLock(ctx context.Context, f *os.File, path string) error {
	for said := false; ; said = true {
		busy, err := files.TryLock(f)
		if err != nil || !busy {
			return err
		}
		if !said && m.Notice != nil {
			m.Notice(fmt.Sprintf("waiting for the library cache's lock (%s), held by %s; Ctrl+C stops waiting", path, heldBy(path)))
		}
		select {
		case <-ctx.Done():
			return interrupt.Stopped(ctx)
		case <-time.After(lockPoll):
		}
	}
}

// holder is who holds the lock, as its file keeps it: "PID COMMAND".
func holder() string {
	words := []string{filepath.Base(os.Args[0])}
	// The command's name, without its arguments, which may be anything.
	for _, arg := range os.Args[1:min(len(os.Args), 3)] {
		if strings.HasPrefix(arg, "-") {
			break
		}
		words = append(words, arg)
	}
	return fmt.Sprintf("%d %s, since %s\n", os.Getpid(), strings.Join(words, " "), time.Now().Format("15:04:05"))
}

// heldBy says who holds the lock at path, from what its holder wrote.
func heldBy(path string) string {
	data, _ := os.ReadFile(path)
	pid, command, ok := strings.Cut(strings.TrimSpace(string(data)), " ")
	if _, err := strconv.Atoi(pid); !ok || err != nil {
		return "another rooda"
	}
	return fmt.Sprintf("pid %s (%s)", pid, command)
}

// sweep removes what fetches killed before they ended left in the cache:
// their clones and checkouts. Only the holder of the lock makes them, so
// while it is held, any there is no live process's.
func (m *Manager) sweep() {
	for _, pattern := range []string{filepath.Join(m.CacheDir, mirrors, "clone-*"), filepath.Join(m.CacheDir, "export-*")} {
		left, _ := filepath.Glob(pattern)
		for _, dir := range left {
			os.RemoveAll(dir)
		}
	}
}
