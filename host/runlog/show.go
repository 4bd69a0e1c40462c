package runlog

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"rooda/host/files"
	"rooda/host/logging"
)

// listHeader names the columns of WriteList's lines.
const listHeader = "RUN\tSTATUS\tITERATIONS\tSTARTED\n"

// WriteList writes a header, then a line per recorded run, oldest first:
// id, status, iterations, when it started; with no runs, a line that says
// so.
func WriteList(w io.Writer, dir string) error {
	ids, err := IDs(dir)
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		_, err := fmt.Fprintf(w, "No runs recorded in %s yet.\n", dir)
		return err
	}
	io.WriteString(w, listHeader)
	for _, id := range ids {
		run, err := ReadRun(dir, id)
		if err != nil {
			fmt.Fprintf(w, "%s\tunreadable: %v\n", id, err)
			continue
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", id, run.ShownStatus(), logging.Count(run.Iterations, "iteration"), run.Started.Format("2006-01-02 15:04:05Z"))
	}
	return nil
}

// shownRun is run.json as runs show --json prints it: the record as
// written, its status included ("running" for a run whose rooda was
// killed), and beside it shown_status, the status list and show give
// ("crashed" for that run), so that a script need not tell it from the
// pid itself.
type shownRun struct {
	Run
	ShownStatus string `json:"shown_status"`
}

// WriteRun writes run.json, as JSON or as text.
func WriteRun(w io.Writer, dir, id string, asJSON bool) error {
	run, err := ReadRun(dir, id)
	if err != nil {
		return err
	}
	if asJSON {
		data, _ := json.MarshalIndent(shownRun{run, run.ShownStatus()}, "", "  ")
		_, err := w.Write(append(data, '\n'))
		return err
	}
	// Asked once: the answer rests on a process, which may end meanwhile.
	status := run.ShownStatus()
	crashed := status != run.Status
	var b strings.Builder
	fmt.Fprintf(&b, "Run: %s\nName: %s\nCommand: %s\nStatus: %s", run.ID, run.Name, strings.Join(run.Command, " "), status)
	if crashed {
		fmt.Fprintf(&b, " (recorded as running by rooda pid %d, which is gone)", run.PID)
	}
	b.WriteString("\n")
	if run.ExitCode != nil {
		fmt.Fprintf(&b, "Exit code: %d\n", *run.ExitCode)
	}
	fmt.Fprintf(&b, "Started: %s\n", run.Started.Format("2006-01-02 15:04:05Z"))
	switch {
	case run.Ended != nil:
		fmt.Fprintf(&b, "Ended: %s\n", run.Ended.Format("2006-01-02 15:04:05Z"))
	case crashed:
		b.WriteString("Ended: unknown: rooda was killed or crashed before it could record the end and the exit code\n")
	}
	fmt.Fprintf(&b, "Iterations: %d\n", run.Iterations)
	if run.Spent != nil {
		fmt.Fprintf(&b, "Spent: %s\n", run.Spent)
	}
	for i, l := range run.Loops {
		loopStatus := l.Status
		if loopStatus == "" { // the loop had not ended
			loopStatus = status
		}
		fmt.Fprintf(&b, "\nLoop %d: %s (%s)\n  Agent: %s\n", i+1, l.Procedure, loopStatus, strings.Join(l.Agent, " "))
		if len(l.Agents) > 1 {
			fmt.Fprintf(&b, "  Agents: [%s] (taking turns, one per iteration)\n", strings.Join(l.Agents, ", "))
		}
		for _, s := range l.Settings {
			b.WriteString("  " + s + "\n")
		}
	}
	_, err = io.WriteString(w, b.String())
	return err
}

// WriteIteration writes record n of a run: its meta, as JSON or text.
// An iteration whose meta.json is missing or damaged is shown with what
// it has, its prompt and output.
func WriteIteration(w io.Writer, runDir string, n int, asJSON bool) error {
	if _, err := os.Stat(iterationDir(runDir, n)); os.IsNotExist(err) {
		return fmt.Errorf("the run has no iteration %d", n)
	}
	m, err := ReadMeta(runDir, n)
	switch {
	case err != nil && asJSON:
		return err
	case err != nil:
		_, err = io.WriteString(w, withoutMeta(runDir, n, err))
		return err
	case asJSON:
		data, _ := json.MarshalIndent(m, "", "  ")
		_, err := w.Write(append(data, '\n'))
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Iteration: %d (loop %d, iteration %d of it)\n", m.Record, m.Loop, m.Iteration)
	if m.Agent != "" {
		fmt.Fprintf(&b, "Agent: %s\n", m.Agent)
	}
	fmt.Fprintf(&b, "Outcome: %s\n", m.Outcome)
	if m.Cause != "" {
		fmt.Fprintf(&b, "Cause: %s\n", m.Cause)
	}
	fmt.Fprintf(&b, "Exit code: %d\n", m.ExitCode)
	fmt.Fprintf(&b, "Signal: %s\nTimed out: %t\nDuration: %.3fs\n", orNone(m.Signal), m.TimedOut, m.Duration)
	if m.Waited > 0 {
		fmt.Fprintf(&b, "Waited for a usage limit: %.3fs\n", m.Waited)
	}
	fmt.Fprintf(&b, "Prompt: %d bytes, sha256 %s\nOutput: %d bytes, %d dropped\n", m.PromptBytes, m.PromptSHA256, m.OutputBytes, m.DroppedBytes)
	if m.Format != "" {
		fmt.Fprintf(&b, "Format: %s, model %s, %d retries; transcript: %s\n", m.Format, orNone(m.Model), m.Retries, filepath.Join(iterationDir(runDir, n), transcriptName))
	}
	if m.Spent != nil {
		fmt.Fprintf(&b, "Spent: %s\n", m.Spent)
	}
	if len(m.Escaped) > 0 {
		what := "stopped"
		if m.EscapedSurvived {
			what = "some did not end even after SIGKILL"
		}
		fmt.Fprintf(&b, "Left outside its group (%s): %s\n", what, strings.Join(m.Escaped, ", "))
	}
	// A repository without a commit has no HEAD: recorded as nothing.
	if m.GitHeadBefore != "" || m.GitHeadAfter != "" || len(m.FilesChanged) > 0 {
		fmt.Fprintf(&b, "Git HEAD: %s → %s\nFiles changed: %s\n", orNoCommits(m.GitHeadBefore), orNoCommits(m.GitHeadAfter), orNone(strings.Join(m.FilesChanged, ", ")))
	}
	if len(m.ContextAdded) > 0 {
		fmt.Fprintf(&b, "Context added while running, first given here: %s\n", strings.Join(m.ContextAdded, ", "))
	}
	_, err = io.WriteString(w, b.String())
	return err
}

// withoutMeta shows an iteration whose meta.json cannot be read: why,
// and the prompt and output it kept.
func withoutMeta(runDir string, n int, metaErr error) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Iteration: %d\n", n)
	if os.IsNotExist(metaErr) {
		b.WriteString("Meta: not written yet: the iteration is going on, or its run ended before it finished\n")
	} else {
		fmt.Fprintf(&b, "Meta: unreadable: %v\n", metaErr)
	}
	if size, sum, err := hashFile(filepath.Join(iterationDir(runDir, n), "prompt.txt")); err == nil {
		fmt.Fprintf(&b, "Prompt: %d bytes, sha256 %s\n", size, sum)
	} else {
		b.WriteString("Prompt: none kept\n")
	}
	if output, err := os.Stat(filepath.Join(iterationDir(runDir, n), outputName)); err == nil {
		fmt.Fprintf(&b, "Output: %d bytes\n", output.Size())
	} else {
		b.WriteString("Output: none kept\n")
	}
	return b.String()
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func orNoCommits(head string) string {
	if head == "" {
		return "(no commits)"
	}
	return head
}

// hashFile is a file's size and SHA-256, read as a stream: a recorded
// prompt may be large.
func hashFile(path string) (int64, string, error) {
	f, err := files.Open(path)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	return n, hex.EncodeToString(h.Sum(nil)), err
}
