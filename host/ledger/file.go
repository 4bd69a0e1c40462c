package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"rooda/host/files"
)

// File is the ledger of the loops of one machine: a JSON file, each
// entry with its revision, read and written under the lock of a file
// beside it, so that the loops of one rooda (parallel()) and of every
// rooda of the user share it.
type File struct {
	Path string
	// Unbudgeted is set for the machine's ledger of plain runs: budgets
	// are set on a fleet's bucket (rooda fleet budget), never on it, so
	// Reserve need not read it twice per iteration to find none.
	Unbudgeted bool
	// made makes Path's directory once, madeErr its failure.
	made    sync.Once
	madeErr error
}

// lockPoll is how often a busy lock is tried again: it is held for a
// read and a write of a small file. lockWait is how long a loop waits
// for it at most: a holder stopped with the lock held (SIGSTOP) must not
// stop every loop of the machine; the loop goes on without the ledger
// (host/loop turns a ledger that failed off for the rest of its run).
// The loops of this process poll it each on its own: flock locks an
// open file, not a process, so they exclude each other as two roodas do.
const lockPoll = 10 * time.Millisecond

var lockWait = time.Second

// DefaultPath is the machine's ledger: ledger.json in rooda's state
// directory (StateDir).
func DefaultPath() (string, error) {
	dir, err := StateDir()
	if err != nil {
		return "", fmt.Errorf("no state directory for the accounts' ledger: %w", err)
	}
	return filepath.Join(dir, "ledger.json"), nil
}

// StateDir is rooda's directory under the user's state directory,
// ${XDG_STATE_HOME:-~/.local/state}/rooda: the ledger's, and the fleet
// store's by default.
func StateDir() (string, error) {
	state := os.Getenv("XDG_STATE_HOME")
	if state == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		state = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(state, "rooda"), nil
}

// fileEntry is an entry as the file keeps it.
type fileEntry struct {
	Entry
	Revision uint64 `json:"revision"`
}

// Get reads account's entry without the lock: Put replaces the file by
// a rename, so a read sees it whole, before or after a write; and a loop
// that only reads (each try of a plain run) never waits for a lock.
func (f *File) Get(ctx context.Context, account string) (Entry, uint64, error) {
	all, err := f.read()
	got := all[account]
	return got.Entry, got.Revision, err
}

func (f *File) Put(ctx context.Context, account string, e Entry, rev uint64) (uint64, error) {
	var next uint64
	err := f.locked(ctx, func() error {
		all, err := f.read()
		if err != nil {
			return err
		}
		if all[account].Revision != rev {
			return ErrRevisionMoved
		}
		next = rev + 1
		all[account] = fileEntry{Entry: e, Revision: next}
		data, err := json.MarshalIndent(all, "", "  ")
		if err != nil {
			return err
		}
		return files.WriteWhole(f.Path, data)
	})
	return next, err
}

func (f *File) read() (map[string]fileEntry, error) {
	all := map[string]fileEntry{}
	data, err := os.ReadFile(f.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return all, nil
	}
	if err != nil {
		return all, err
	}
	if err := json.Unmarshal(data, &all); err != nil {
		return map[string]fileEntry{}, f.setAside(err)
	}
	return all, nil
}

// setAside moves a ledger that cannot be read (a crash of another
// program, an edit) aside, so that the next read starts an empty one
// instead of every loop of every later run failing on it; its error says
// so, once.
func (f *File) setAside(unreadable error) error {
	aside := fmt.Sprintf("%s.corrupt-%s", f.Path, time.Now().UTC().Format("20060102T150405.000"))
	if err := os.Rename(f.Path, aside); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s is not readable (%v), and cannot be moved aside: %w", f.Path, unreadable, err)
	}
	return fmt.Errorf("%s was not readable (%v): moved to %s; it starts again empty", f.Path, unreadable, filepath.Base(aside))
}

// locked runs do holding the ledger's lock, waiting for it while another
// holds it.
func (f *File) locked(ctx context.Context, do func() error) error {
	f.made.Do(func() { f.madeErr = os.MkdirAll(filepath.Dir(f.Path), 0o700) })
	if f.madeErr != nil {
		return f.madeErr
	}
	deadline := time.Now().Add(lockWait)
	for {
		lock, busy, err := files.Lock(f.Path + ".lock")
		if err != nil {
			return err
		}
		if !busy {
			defer lock.Close()
			return do()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s.lock: held by another process for %s", f.Path, lockWait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(lockPoll):
		}
	}
}
