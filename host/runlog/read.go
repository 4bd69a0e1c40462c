package runlog

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ReadMeta reads record n of a run. Its error names meta.json: missing
// (the iteration has not finished) or damaged.
func ReadMeta(runDir string, n int) (Meta, error) {
	var m Meta
	path := filepath.Join(iterationDir(runDir, n), "meta.json")
	data, err := os.ReadFile(path)
	if err != nil {
		return m, err
	}
	return m, decodeJSON(path, data, &m)
}

// ReadFile reads a file of record n of a run: prompt.txt or output.txt.
func ReadFile(runDir string, n int, name string) ([]byte, error) {
	data, err := os.ReadFile(filepath.Join(iterationDir(runDir, n), name))
	if os.IsNotExist(err) {
		return nil, fmt.Errorf("the run has no iteration %d", n)
	}
	return data, err
}

// Find resolves what a user typed for a run: its id, a unique prefix or
// part of it, or "last".
func Find(dir, query string) (string, error) {
	ids, err := IDs(dir)
	if err != nil {
		return "", err
	}
	if len(ids) == 0 {
		return "", fmt.Errorf("no runs are recorded in %s", dir)
	}
	if query == "last" {
		return ids[len(ids)-1], nil
	}
	var matches []string
	for _, id := range ids {
		if id == query {
			return id, nil
		}
		if strings.Contains(id, query) {
			matches = append(matches, id)
		}
	}
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		return "", fmt.Errorf("no run %q in %s (rooda runs list shows them)", query, dir)
	}
	sort.Strings(matches)
	return "", fmt.Errorf("%q names %d runs: %s", query, len(matches), strings.Join(matches, ", "))
}
