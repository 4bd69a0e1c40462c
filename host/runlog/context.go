package runlog

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// contextDir holds the context added while a run goes on, one file per
// addition, numbered in order.
func contextDir(runDir string) string { return filepath.Join(runDir, "context") }

// AddContext records a block of context for the run's next iterations
// and returns its name.
func AddContext(runDir, block string) (string, error) {
	names, err := additionNames(runDir)
	if err != nil {
		return "", err
	}
	name := fmt.Sprintf("%04d.txt", len(names)+1)
	if len(names) > 0 {
		var last int
		fmt.Sscanf(names[len(names)-1], "%04d", &last)
		name = fmt.Sprintf("%04d.txt", last+1)
	}
	return name, writeFile(filepath.Join(contextDir(runDir), name), []byte(block))
}

// ClearContext removes the context added to a run so far.
func ClearContext(runDir string) error {
	return os.RemoveAll(contextDir(runDir))
}

func additionNames(runDir string) ([]string, error) {
	entries, err := os.ReadDir(contextDir(runDir))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".txt") && !startsWithDot(e.Name()) {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

// Additions reads the context added while the run goes on, anew before
// each iteration: every block, in order, and the names of those no
// iteration was given before.
func (r *Recorder) Additions() (blocks, fresh []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	names, _ := additionNames(r.dir)
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(contextDir(r.dir), name))
		if err != nil {
			continue
		}
		blocks = append(blocks, string(data))
		if !r.seen[name] {
			r.seen[name] = true
			fresh = append(fresh, strings.TrimSuffix(name, ".txt"))
		}
	}
	r.fresh = fresh
	return blocks, fresh
}

// Running is the newest run under dir that is still going.
func Running(dir string) (string, error) {
	ids, err := IDs(dir)
	if err != nil {
		return "", err
	}
	for i := len(ids) - 1; i >= 0; i-- {
		if run, err := ReadRun(dir, ids[i]); err == nil && run.Status == "running" {
			return ids[i], nil
		}
	}
	return "", fmt.Errorf("no run is going on in %s; name one with --run ID", dir)
}
