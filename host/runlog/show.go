package runlog

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"rooda/host/logging"
	"rooda/host/shown"
	"rooda/host/units"
	"rooda/host/worktree"
)

// listHeader names the columns of WriteList's lines.
const listHeader = "RUN\tSTATUS\tITERATIONS\tSTARTED\n"

// WriteList writes a header, then a line per recorded run, newest first,
// as the run page lists them and "last" finds them: id, status,
// iterations, when it started; with no runs, a line that says so. Given
// a runName, only the runs started under that name (--run-name) are
// listed, and a record that cannot be read, whose name is unknown, is
// not. What a record holds is shown safe for a terminal (shown.Line): a
// procedure's name is in its run's id.
func WriteList(w io.Writer, dir, runName string) error {
	ids, err := IDs(dir)
	if err != nil {
		return err
	}
	var lines []string
	for _, id := range slices.Backward(ids) {
		run, err := ReadRun(dir, id)
		switch {
		case err != nil && runName == "":
			lines = append(lines, fmt.Sprintf("%s\tunreadable: %s\n", shown.Line(id), shown.Line(err.Error())))
		case err == nil && (runName == "" || run.RunName == runName):
			lines = append(lines, fmt.Sprintf("%s\t%s\t%s\t%s\n", shown.Line(id), shown.Line(run.ShownStatus()), logging.Count(run.Iterations, "iteration"), run.Started.Format("2006-01-02 15:04:05Z")))
		}
	}
	switch {
	case len(lines) == 0 && runName != "":
		_, err := fmt.Fprintf(w, "No run named %s is recorded in %s.\n", shown.Line(runName), dir)
		return err
	case len(lines) == 0:
		_, err := fmt.Fprintf(w, "No runs recorded in %s yet.\n", dir)
		return err
	}
	io.WriteString(w, listHeader)
	for _, line := range lines {
		io.WriteString(w, line)
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

// WriteRun writes run.json, as JSON or as text, safe for a terminal:
// each field from the record on its one line (shown.Line).
func WriteRun(w io.Writer, dir, id string, asJSON bool) error {
	run, err := ReadRun(dir, id)
	if err != nil {
		return err
	}
	if asJSON {
		data, _ := json.MarshalIndent(shownRun{run, run.ShownStatus()}, "", "  ")
		_, err := w.Write(append(shown.JSON(data), '\n'))
		return err
	}
	// Asked once: the answer rests on a process, which may end meanwhile.
	status := run.ShownStatus()
	crashed := status != run.Status
	var b strings.Builder
	fmt.Fprintf(&b, "Run: %s\nName: %s\nCommand: %s\nStatus: %s", shown.Line(run.ID), shown.Line(run.Name), shown.Line(strings.Join(run.Command, " ")), shown.Line(status))
	if crashed {
		fmt.Fprintf(&b, " (recorded as running by rooda pid %d, which is gone)", run.PID)
	}
	if run.InterruptedBy != "" {
		b.WriteString(" by " + shown.Line(run.InterruptedBy))
	}
	b.WriteString("\n")
	if run.ExitCode != nil {
		fmt.Fprintf(&b, "Exit code: %d\n", *run.ExitCode)
	}
	if run.Reason != "" && run.Reason != statusLine(status, run.InterruptedBy) {
		fmt.Fprintf(&b, "Reason: %s\n", shown.Line(run.Reason))
	}
	fmt.Fprintf(&b, "Started: %s\n", run.Started.Format("2006-01-02 15:04:05Z"))
	switch {
	case run.Ended != nil:
		fmt.Fprintf(&b, "Ended: %s\n", run.Ended.Format("2006-01-02 15:04:05Z"))
	case crashed:
		b.WriteString("Ended: unknown: rooda was killed or crashed before it could record the end and the exit code\n")
	}
	fmt.Fprintf(&b, "Iterations: %d\n", run.Iterations)
	if run.RunName != "" {
		fmt.Fprintf(&b, "Run name: %s\n", shown.Line(run.RunName))
	}
	for _, r := range run.Resumes {
		fmt.Fprintf(&b, "Resumed: %s, by rooda pid %d\n", r.At.Format("2006-01-02 15:04:05Z"), r.PID)
	}
	if run.Resumable() == nil {
		fmt.Fprintf(&b, "Resume: rooda runs resume %s\n", shown.Line(run.ID))
	}
	for i := range run.Removed {
		fmt.Fprintf(&b, "Record: removed while the run went on and written again from what rooda held; %s\n", lost(run.Removed, i))
	}
	if run.Spent != nil {
		fmt.Fprintf(&b, "Spent: %s\n", shown.Line(run.Spent.String()))
	}
	writeWorktrees(&b, run.Worktrees, run.Going())
	for i, l := range run.Loops {
		loopStatus := l.Status
		if loopStatus == "" { // the loop had not ended
			loopStatus = status
		}
		fmt.Fprintf(&b, "\nLoop %d: %s (%s%s)\n  Agent: %s\n", i+1, shown.Line(l.Procedure), shown.Line(loopStatus), reasonText(l.Reason), shown.Line(strings.Join(l.Agent, " ")))
		if len(l.Agents) > 1 {
			fmt.Fprintf(&b, "  Agents: [%s] (taking turns, one per iteration)\n", shown.Line(strings.Join(l.Agents, ", ")))
		}
		for _, s := range l.Settings {
			b.WriteString("  " + shown.Line(s) + "\n")
		}
		if line := refusedLine(l.Refused); line != "" {
			b.WriteString("  " + line)
		}
		if l.Why != "" && l.Why != run.Reason {
			// A loop that did not end the run (a script's earlier one, one
			// of a parallel()) says why it ended itself.
			fmt.Fprintf(&b, "  Ended: %s\n", shown.Line(l.Why))
		}
	}
	writeIterations(&b, filepath.Join(dir, id), len(run.Loops))
	_, err = io.WriteString(w, b.String())
	return err
}

// statusLine is the status as runs show's Status line gives it, for a
// reason that would only say it again ("interrupted by SIGINT").
func statusLine(status, interruptedBy string) string {
	if interruptedBy != "" {
		return status + " by " + interruptedBy
	}
	return status
}

// writeIterations writes a line per iteration of the record at runDir,
// in a table: its number, its loop's (when the run had several), outcome,
// a failure's cause, duration (and a limit's wait before it), tokens,
// cost and the count of files it changed; "-" where the record has
// nothing to say. A run of more than listLimit iterations shows its last
// ones: how it ended is there, and --iteration N shows any.
func writeIterations(b *strings.Builder, runDir string, loops int) {
	numbers, err := Records(runDir)
	if err != nil {
		fmt.Fprintf(b, "\nIterations: cannot be listed: %v\n", err)
		return
	}
	if len(numbers) == 0 {
		return
	}
	b.WriteString("\n")
	if left := len(numbers) - listLimit; left > 0 {
		fmt.Fprintf(b, "The first %d iterations are left out; runs show ID --iteration N shows any of them.\n", left)
		numbers = numbers[left:]
	}
	t := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	header := []string{"ITERATION", "OUTCOME", "CAUSE", "DURATION", "TOKENS", "COST", "FILES CHANGED"}
	if loops > 1 {
		header = slices.Insert(header, 1, "LOOP")
	}
	fmt.Fprintln(t, strings.Join(header, "\t"))
	for _, n := range numbers {
		row := iterationRow(runDir, n)
		if loops <= 1 {
			row = slices.Delete(row, 1, 2)
		}
		fmt.Fprintln(t, strings.Join(row, "\t"))
	}
	t.Flush()
}

// iterationRow is record n's line of writeIterations, its loop second
// (its number, as the Loop N headings above name it); an iteration
// without a readable meta.json says why in its cause.
func iterationRow(runDir string, n int) []string {
	m, err := ReadMeta(runDir, n)
	switch {
	case os.IsNotExist(err):
		return []string{strconv.Itoa(n), "-", "unfinished", "-", "-", "-", "-", "-"}
	case err != nil:
		return []string{strconv.Itoa(n), "-", "unreadable meta.json", "-", "-", "-", "-", "-"}
	}
	took := units.Duration(Seconds(m.Duration))
	if m.Waited > 0 {
		took += " (after a wait of " + units.Duration(Seconds(m.Waited)) + ")"
	}
	tokens, cost := "-", "-"
	if spend := m.Spent.Spend(); !spend.IsZero() {
		tokens = shown.Thousands(spend.TotalTokens())
		if spend.Costed {
			cost = units.Dollars(spend.CostUSD)
		}
	}
	files := "-"
	// Outside a git repository nothing was looked at (see WriteIteration).
	if m.GitHeadBefore != "" || m.GitHeadAfter != "" || len(m.FilesChanged) > 0 {
		files = shown.Thousands(int64(len(m.FilesChanged) + m.FilesChangedMore))
	}
	return []string{strconv.Itoa(n), strconv.Itoa(m.Loop), shown.Line(m.Outcome), shown.Line(orDash(m.Cause)), took, tokens, cost, files}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// writeWorktrees names the worktrees a run made, and for each whether it
// is still there: one a run kept, or one holding work a crashed run left,
// is removed by the user alone, and this says how.
func writeWorktrees(b *strings.Builder, trees []Worktree, going bool) {
	if len(trees) > 0 {
		b.WriteString("Worktrees:\n")
	}
	for _, t := range trees {
		_, err := os.Stat(t.Path)
		switch {
		case os.IsNotExist(err):
			fmt.Fprintf(b, "  %s: removed\n", shown.Line(t.Name))
		case going:
			fmt.Fprintf(b, "  %s: %s, on branch %s\n", shown.Line(t.Name), shown.Line(t.Path), shown.Line(t.Branch))
		case t.Kept != "":
			fmt.Fprintf(b, "  %s: kept at %s, on branch %s, as %s; to look at it: %s; to remove it: %s\n", shown.Line(t.Name), shown.Line(t.Path), shown.Line(t.Branch),
				shown.Line(t.Kept), shown.Line(worktree.LookHint(t.Path)), shown.Line(worktree.RemoveHint(t.Path, t.Branch)))
		default:
			fmt.Fprintf(b, "  %s: kept at %s, on branch %s; to remove it: %s\n", shown.Line(t.Name), shown.Line(t.Path), shown.Line(t.Branch), shown.Line(worktree.RemoveHint(t.Path, t.Branch)))
		}
	}
}

// WriteIteration writes record n of a run: its meta, as JSON or text,
// safe for a terminal, each field on its one line, the lists of files
// and processes cut at listLimit.
// An iteration whose meta.json is missing or damaged is shown with what
// it has, its prompt and output.
func WriteIteration(w io.Writer, runDir string, n int, asJSON bool) error {
	if _, err := statRecord(runDir, iterationPart(n, "")); os.IsNotExist(err) {
		return missing(runDir, n, "")
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
		_, err := w.Write(append(shown.JSON(data), '\n'))
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Iteration: %d (loop %d, iteration %d of it)\n", m.Record, m.Loop, m.Iteration)
	if m.Agent != "" {
		fmt.Fprintf(&b, "Agent: %s\n", shown.Line(m.Agent))
	}
	fmt.Fprintf(&b, "Outcome: %s\n", shown.Line(m.Outcome))
	if m.Cause != "" {
		fmt.Fprintf(&b, "Cause: %s\n", shown.Line(m.Cause))
	}
	if m.Reason != "" {
		fmt.Fprintf(&b, "Reason: %s\n", shown.Line(m.Reason))
	}
	fmt.Fprintf(&b, "Exit code: %d\n", m.ExitCode)
	if m.RanAgain {
		b.WriteString("Ran again: it was in flight when the run was cut short, and ran again when the run was resumed\n")
	}
	fmt.Fprintf(&b, "Signal: %s\nTimed out: %t\nDuration: %s\n", shown.Line(orNone(m.Signal)), m.TimedOut, units.Duration(Seconds(m.Duration)))
	if m.Waited > 0 {
		fmt.Fprintf(&b, "Waited for a limit or an outage: %s\n", units.Duration(Seconds(m.Waited)))
	}
	b.WriteString(keptOrMissing(runDir, n, promptName, fmt.Sprintf("%d bytes, sha256 %s", m.PromptBytes, shown.Line(m.PromptSHA256))))
	b.WriteString(keptOrMissing(runDir, n, outputName, fmt.Sprintf("%d bytes, %d dropped", m.OutputBytes, m.DroppedBytes)))
	if m.Format != "" {
		fmt.Fprintf(&b, "Format: %s, model %s, %d retries; transcript: %s\n", shown.Line(m.Format), shown.Line(orNone(m.Model)), m.Retries, shown.Line(filepath.Join(iterationDir(runDir, n), transcriptName)))
	}
	if m.Spent != nil {
		fmt.Fprintf(&b, "Spent: %s\n", shown.Line(m.Spent.String()))
	}
	if len(m.Escaped) > 0 {
		what := "stopped"
		if m.EscapedSurvived {
			what = "some did not end even after SIGKILL"
		}
		fmt.Fprintf(&b, "Left outside its group (%s): %s\n", what, shown.List(m.Escaped, listLimit, "processes"))
	}
	b.WriteString(refusedLine(refusedOf(m.Sandbox)))
	// A repository without a commit has no HEAD: recorded as nothing.
	if m.GitHeadBefore != "" || m.GitHeadAfter != "" || len(m.FilesChanged) > 0 {
		fmt.Fprintf(&b, "Git HEAD: %s → %s\nFiles changed: %s\n", shown.Line(orNoCommits(m.GitHeadBefore)), shown.Line(orNoCommits(m.GitHeadAfter)), orNone(shown.ListOf(m.FilesChanged, m.FilesChangedMore, listLimit, "files")))
	}
	if len(m.ContextAdded) > 0 {
		fmt.Fprintf(&b, "Context added while running, first given here: %s\n", shown.Line(strings.Join(m.ContextAdded, ", ")))
	}
	_, err = io.WriteString(w, b.String())
	return err
}

// Seconds is a count of seconds as the record keeps one (meta.json's
// duration and waited, a loop's stats) as a time.Duration.
func Seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// keptOrMissing is show's line of a file of record n: as meta.json
// recorded it, or, when the file is gone, which file is missing and what
// meta.json recorded of it.
func keptOrMissing(runDir string, n int, name, recorded string) string {
	label := fileLabels[name]
	if _, err := statRecord(runDir, iterationPart(n, name)); os.IsNotExist(err) {
		return fmt.Sprintf("%s: %v\n  (meta.json recorded %s)\n", label, missing(runDir, n, name), recorded)
	}
	return fmt.Sprintf("%s: %s\n", label, recorded)
}

// fileLabels name an iteration's files in what show writes.
var fileLabels = map[string]string{promptName: "Prompt", outputName: "Output"}

// withoutMeta shows an iteration whose meta.json cannot be read: why,
// and the prompt and output it kept, or why they are not there.
func withoutMeta(runDir string, n int, metaErr error) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Iteration: %d\n", n)
	if os.IsNotExist(metaErr) {
		b.WriteString("Meta: not written yet: " + unfinished + "\n")
	} else {
		fmt.Fprintf(&b, "Meta: unreadable: %v\n", metaErr)
	}
	if size, sum, err := hashFile(runDir, iterationPart(n, promptName)); err == nil {
		fmt.Fprintf(&b, "Prompt: %d bytes, sha256 %s\n", size, sum)
	} else {
		fmt.Fprintf(&b, "Prompt: %v\n", orMissing(err, runDir, n, promptName))
	}
	if output, err := statRecord(runDir, iterationPart(n, outputName)); err == nil {
		fmt.Fprintf(&b, "Output: %d bytes\n", output.Size())
	} else {
		fmt.Fprintf(&b, "Output: %v\n", orMissing(err, runDir, n, outputName))
	}
	return b.String()
}

// listLimit bounds a list of runs show's text, the files an iteration
// changed or the processes it left, which may hold tens of thousands: a
// hundred names is more than a reader scans on one line, and --json gives
// every one.
const listLimit = 100

// orMissing is err, or for a file not there, why it is not.
func orMissing(err error, runDir string, n int, name string) error {
	if os.IsNotExist(err) {
		return missing(runDir, n, name)
	}
	return err
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

// hashFile is the size and SHA-256 of rel, a file of the record at
// runDir, read as a stream: a recorded prompt may be large.
func hashFile(runDir, rel string) (int64, string, error) {
	f, err := openRecord(runDir, rel)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	return n, hex.EncodeToString(h.Sum(nil)), err
}

// reasonText is a loop's reason as its heading ends with it: ": over
// budget", or "".
func reasonText(reason string) string {
	if reason == "" {
		return ""
	}
	return ": " + shown.Line(reason)
}
