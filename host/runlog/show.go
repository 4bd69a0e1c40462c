package runlog

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"rooda/host/files"
)

// WriteList writes a line per recorded run, oldest first: id, status,
// iterations, when it started.
func WriteList(w io.Writer, dir string) error {
	ids, err := IDs(dir)
	if err != nil {
		return err
	}
	for _, id := range ids {
		run, err := ReadRun(dir, id)
		if err != nil {
			fmt.Fprintf(w, "%s\tunreadable: %v\n", id, err)
			continue
		}
		fmt.Fprintf(w, "%s\t%s\t%d iterations\t%s\n", id, run.Status, run.Iterations, run.Started.Format("2006-01-02 15:04:05Z"))
	}
	return nil
}

// WriteRun writes run.json, as JSON or as text.
func WriteRun(w io.Writer, dir, id string, asJSON bool) error {
	if asJSON {
		data, err := files.Read(filepath.Join(dir, id, "run.json"), files.RecordLimit)
		if err == nil {
			_, err = w.Write(data)
		}
		return err
	}
	run, err := ReadRun(dir, id)
	if err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Run: %s\nName: %s\nCommand: %s\nStatus: %s\n", run.ID, run.Name, strings.Join(run.Command, " "), run.Status)
	if run.ExitCode != nil {
		fmt.Fprintf(&b, "Exit code: %d\n", *run.ExitCode)
	}
	fmt.Fprintf(&b, "Started: %s\n", run.Started.Format("2006-01-02 15:04:05Z"))
	if run.Ended != nil {
		fmt.Fprintf(&b, "Ended: %s\n", run.Ended.Format("2006-01-02 15:04:05Z"))
	}
	fmt.Fprintf(&b, "Iterations: %d\n", run.Iterations)
	for i, l := range run.Loops {
		fmt.Fprintf(&b, "\nLoop %d: %s (%s)\n  Agent: %s\n", i+1, l.Procedure, l.Status, strings.Join(l.Agent, " "))
		for _, s := range l.Settings {
			b.WriteString("  " + s + "\n")
		}
	}
	_, err = io.WriteString(w, b.String())
	return err
}

// WriteIteration writes record n of a run: its meta, as JSON or text.
func WriteIteration(w io.Writer, runDir string, n int, asJSON bool) error {
	m, ok := ReadMeta(runDir, n)
	if !ok {
		return fmt.Errorf("the run has no iteration %d", n)
	}
	if asJSON {
		data, _ := json.MarshalIndent(m, "", "  ")
		_, err := w.Write(append(data, '\n'))
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Iteration: %d (loop %d, iteration %d of it)\nOutcome: %s\nExit code: %d\n", m.Record, m.Loop, m.Iteration, m.Outcome, m.ExitCode)
	fmt.Fprintf(&b, "Signal: %s\nTimed out: %t\nDuration: %.3fs\n", orNone(m.Signal), m.TimedOut, m.Duration)
	fmt.Fprintf(&b, "Prompt: %d bytes, sha256 %s\nOutput: %d bytes, %d dropped\n", m.PromptBytes, m.PromptSHA256, m.OutputBytes, m.DroppedBytes)
	if m.GitHeadBefore != "" {
		fmt.Fprintf(&b, "Git HEAD: %s → %s\nFiles changed: %s\n", m.GitHeadBefore, m.GitHeadAfter, orNone(strings.Join(m.FilesChanged, ", ")))
	}
	if len(m.ContextAdded) > 0 {
		fmt.Fprintf(&b, "Context added while running, first given here: %s\n", strings.Join(m.ContextAdded, ", "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
