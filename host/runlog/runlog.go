// Package runlog keeps the record of every run in the workspace
// (.rooda/runs/<run-id>/): run.json with the settings, the agent, the
// status and the statistics; per iteration the exact prompt bytes sent,
// the output kept and meta.json (the prompt's SHA-256, exit code, signals,
// timeout, bytes dropped, duration, and in a git workspace HEAD before and
// after and the files changed); and the context added while the run
// goes on. Every file is written whole (a rename), so an interrupted run
// still leaves readable records.
package runlog

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	"rooda/host/files"
)

// DefaultDir is where runs are recorded, from the workspace.
const DefaultDir = ".rooda/runs"

// DefaultKeep is how many runs are kept; older ones are removed.
const DefaultKeep = 50

// Run is run.json.
type Run struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	Command []string `json:"command"`
	Status  string   `json:"status"`
	// PID is rooda's process while it runs: a record left "running" by a
	// rooda killed outright is told from a live run by it.
	PID        int        `json:"pid,omitempty"`
	ExitCode   *int       `json:"exit_code,omitempty"`
	Started    time.Time  `json:"started"`
	Ended      *time.Time `json:"ended,omitempty"`
	Iterations int        `json:"iterations"`
	Loops      []Loop     `json:"loops"`
}

// Loop is one loop of a run: a YAML procedure's only one, or one
// iterate() of a script.
type Loop struct {
	Procedure string   `json:"procedure"`
	Settings  []string `json:"settings"`
	Agent     []string `json:"agent"`
	Status    string   `json:"status,omitempty"`
	Stats     *Stats   `json:"stats,omitempty"`
}

// Stats are a loop's iteration timings, in seconds.
type Stats struct {
	Count  int     `json:"count"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	Mean   float64 `json:"mean"`
	StdDev float64 `json:"stddev"`
	Total  float64 `json:"total"`
}

// Meta is an iteration's meta.json.
type Meta struct {
	Record        int      `json:"record"`
	Loop          int      `json:"loop"`
	Iteration     int      `json:"iteration"`
	PromptSHA256  string   `json:"prompt_sha256"`
	PromptBytes   int      `json:"prompt_bytes"`
	Outcome       string   `json:"outcome"`
	ExitCode      int      `json:"exit_code"`
	Signal        string   `json:"signal,omitempty"`
	KilledBy      string   `json:"killed_by,omitempty"`
	TimedOut      bool     `json:"timed_out"`
	OutputBytes   int64    `json:"output_bytes"`
	DroppedBytes  int64    `json:"dropped_bytes"`
	Duration      float64  `json:"duration"`
	ContextAdded  []string `json:"context_added,omitempty"`
	GitHeadBefore string   `json:"git_head_before,omitempty"`
	GitHeadAfter  string   `json:"git_head_after,omitempty"`
	FilesChanged  []string `json:"files_changed,omitempty"`
}

// newID names a run: sortable by time (to the microsecond, so that runs
// started within a second sort in order), saying what ran, unique.
func newID(name string, now time.Time) string {
	b := make([]byte, 2)
	rand.Read(b)
	return fmt.Sprintf("%s-%s-%s", now.UTC().Format("20060102T150405.000000Z"), name, hex.EncodeToString(b))
}

// writeJSON writes v as a file, whole.
func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(path, append(data, '\n'))
}

// writeFile writes a file under a temporary name and renames it: a reader,
// or a run killed midway, never sees half of it.
func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// IDs lists the runs recorded under dir, oldest first.
func IDs(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, e := range entries {
		if e.IsDir() && !startsWithDot(e.Name()) {
			ids = append(ids, e.Name())
		}
	}
	sort.Strings(ids)
	return ids, nil
}

func startsWithDot(name string) bool { return len(name) > 0 && name[0] == '.' }

// ReadRun reads a run's run.json.
func ReadRun(dir, id string) (Run, error) {
	var r Run
	data, err := files.Read(filepath.Join(dir, id, "run.json"), files.RecordLimit)
	if err != nil {
		return r, err
	}
	return r, json.Unmarshal(data, &r)
}

// iterationDir is where record n of a run keeps its files.
func iterationDir(runDir string, n int) string {
	return filepath.Join(runDir, "iterations", fmt.Sprintf("%04d", n))
}

// Going reports whether the run is still going: recorded as running by a
// process that is still alive.
func (r Run) Going() bool {
	return r.Status == "running" && r.PID > 0 && syscall.Kill(r.PID, 0) != syscall.ESRCH
}
