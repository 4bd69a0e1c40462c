package runlog

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"rooda/host/files"
)

// contextDir holds the context added while a run goes on, one file per
// addition, numbered in order.
func contextDir(runDir string) string { return filepath.Join(runDir, "context") }

// AddContext records a block of context for the run's next iterations
// and returns its name. Names are numbered in order and never reused,
// cleared ones included; two adds at once each get their own.
func AddContext(runDir, block string) (string, error) {
	dir := contextDir(runDir)
	if err := os.MkdirAll(filepath.Join(dir, "cleared"), 0o755); err != nil {
		return "", err
	}
	for n := highest(dir) + 1; ; n++ {
		name := fmt.Sprintf("%04d.txt", n)
		if _, err := os.Stat(filepath.Join(dir, "cleared", name)); err == nil {
			continue
		}
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if os.IsExist(err) {
			continue
		}
		if err != nil {
			return "", err
		}
		_, err = f.WriteString(block)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return name, err
	}
}

// highest is the largest number an addition has had, cleared or not.
func highest(dir string) int {
	max := 0
	for _, d := range []string{dir, filepath.Join(dir, "cleared")} {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			var n int
			if _, err := fmt.Sscanf(e.Name(), "%04d.txt", &n); err == nil && n > max {
				max = n
			}
		}
	}
	return max
}

// ClearContext takes back the context added to a run so far: later
// iterations do not get it; the record keeps it, under context/cleared.
func ClearContext(runDir string) error {
	names, err := additionNames(runDir)
	if err != nil {
		return err
	}
	dir := contextDir(runDir)
	if err := os.MkdirAll(filepath.Join(dir, "cleared"), 0o755); err != nil {
		return err
	}
	for _, name := range names {
		if err := os.Rename(filepath.Join(dir, name), filepath.Join(dir, "cleared", name)); err != nil {
			return err
		}
	}
	return nil
}

func additionNames(runDir string) ([]string, error) {
	return recordNames(runDir, "context", func(e os.DirEntry) bool {
		return strings.HasSuffix(e.Name(), ".txt") && !startsWithDot(e.Name())
	})
}

// additionLimit bounds a file of context added while running: a context
// file's content (files.PromptLimit), with a MiB to spare for its
// Source: line.
const additionLimit = files.PromptLimit + 1<<20

// Additions reads the context added while the run goes on, anew before
// each iteration: every block, in order, and the names of those no
// iteration was given before. An addition that cannot be read (one over
// additionLimit, put there by hand) is left out, and refused says why,
// once; should it become readable, it is fresh then.
func (r *Recorder) Additions() (blocks, fresh []string, refused []error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	names, _ := additionNames(r.dir)
	for _, name := range names {
		_, data, err := readRecord(r.dir, filepath.Join("context", name), additionLimit)
		switch {
		case err != nil && !r.refused[name]:
			r.refused[name] = true
			refused = append(refused, fmt.Errorf("context added while running, %s: %v; left out", strings.TrimSuffix(name, ".txt"), errors.Unwrap(err)))
		case err == nil:
			blocks = append(blocks, string(data))
			if !r.seen[name] {
				r.seen[name] = true
				fresh = append(fresh, strings.TrimSuffix(name, ".txt"))
			}
		}
	}
	r.fresh = fresh
	return blocks, fresh, refused
}

// Running is the newest run under dir that is still going.
func Running(dir string) (string, error) {
	ids, err := IDs(dir)
	if err != nil {
		return "", err
	}
	for i := len(ids) - 1; i >= 0; i-- {
		if run, err := ReadRun(dir, ids[i]); err == nil && run.Going() {
			return ids[i], nil
		}
	}
	return "", fmt.Errorf("no run is going on in %s; name one with --run ID", dir)
}
