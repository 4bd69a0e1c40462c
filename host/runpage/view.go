package runpage

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"rooda/host/loop"
	"rooda/host/runlog"
	"rooda/host/shown"
	"rooda/host/units"
)

// listRow is one run of the list page: what run.json says, and nothing
// of its iterations, so that a long history lists fast.
type listRow struct {
	ID, Status, Name string
	Iterations       int
	Duration, Cost   string
}

// listRows reads every run's run.json, newest first. A run.json that
// cannot be read is listed as unreadable, as runs list does.
func listRows(dir string, now time.Time) ([]listRow, error) {
	ids, err := runlog.IDs(dir)
	if err != nil {
		return nil, err
	}
	rows := make([]listRow, 0, len(ids))
	for _, id := range slices.Backward(ids) {
		run, err := runlog.ReadRun(dir, id)
		if err != nil {
			rows = append(rows, listRow{ID: id, Status: "unreadable", Name: err.Error()})
			continue
		}
		rows = append(rows, listRow{
			ID: id, Status: run.ShownStatus(), Name: procedures(run), Iterations: run.Iterations,
			Duration: runDuration(run, now), Cost: costText(run.Spent.Spend()),
		})
	}
	return rows, nil
}

// procedures names what a run ran: its loops' procedures, or its name
// (a script's) when it has none yet.
func procedures(run runlog.Run) string {
	var names []string
	for _, l := range run.Loops {
		if !slices.Contains(names, l.Procedure) {
			names = append(names, l.Procedure)
		}
	}
	if len(names) == 0 {
		return run.Name
	}
	return strings.Join(names, ", ")
}

// runDuration is how long the run took, or has taken so far; a crashed
// run's end is unknown.
func runDuration(run runlog.Run, now time.Time) string {
	switch {
	case run.Ended != nil:
		return units.Duration(run.Ended.Sub(run.Started))
	case run.Going():
		return units.Duration(now.Sub(run.Started)) + " so far"
	}
	return "unknown"
}

// costText is the dollars spent, or why there are none to show.
func costText(s loop.Spend) string {
	switch {
	case s.Costed:
		return units.Dollars(s.CostUSD)
	case s.IsZero():
		return "none reported"
	}
	return "unknown"
}

// tokensText is the tokens spent, with their kinds (and the cost, as
// runs show gives it).
func tokensText(s loop.Spend) string {
	if s.IsZero() {
		return "none reported"
	}
	return s.Breakdown()
}

// runView is everything the run page shows.
type runView struct {
	ID, Status, Name     string
	Going                bool
	Iterations           int
	Duration             string
	Tokens, Cost         string
	Records              []iterationView
	Timeline             timeline
	Spend                spendChart
	Version              string
	LastRecord           int
	Loops                []runlog.Loop
	Started, Ended, Exit string
	// Resumed are the times the run was resumed, as the page shows them.
	Resumed []string
	// Reason is why the run ended, as its record says (runlog.Run's).
	Reason string
}

// iterationView is one iteration record: its meta and its files.
type iterationView struct {
	N int
	// LoopName names the iteration's loop when it ran in parallel().
	LoopName  string
	Meta      runlog.Meta
	HasMeta   bool
	MetaError string
	Outcome   string
	Duration  time.Duration
	Waited    time.Duration
	Spend     loop.Spend
	// Texts are its prompt, transcript (for an output rooda decodes)
	// and output.
	Texts []recordText
	// Diff is the prompt's diff against the Previous record's, when
	// HasDiff; only a report holds it (see readRun).
	Diff     []diffLine
	HasDiff  bool
	Previous int
	// MoreFiles and MoreEscaped say how many files changed, and
	// processes left, the page leaves out (see cut).
	MoreFiles, MoreEscaped string
}

// pageListLimit bounds a list an iteration's page shows: an agent may
// change tens of thousands of files, and a page that names them all is
// megabytes; meta.json names the first git.FileLimit.
const pageListLimit = 100

// cut is the first pageListLimit of names, and, when there are more, a
// note of how many more, counted in noun, are in meta.json.
func cut(names []string, unnamed int, noun string) ([]string, string) {
	rest := max(len(names)-pageListLimit, 0)
	switch {
	case rest+unnamed == 0:
		return names, ""
	case unnamed > 0:
		return names[:len(names)-rest], fmt.Sprintf("… and %s more %s (meta.json names the first %s)", shown.Thousands(int64(rest+unnamed)), noun, shown.Thousands(int64(len(names))))
	}
	return names[:pageListLimit], fmt.Sprintf("… and %s more %s (meta.json names every one)", shown.Thousands(int64(rest)), noun)
}

// recordText is a text file of an iteration's record as its page shows
// it: a report holds the Text; a served page holds only its URL and
// size, and its script loads the text, a piece at a time, when the
// iteration is looked at.
type recordText struct {
	// Class is the pre's class, "prompt", "transcript" or "output", and
	// the file's name in the URL; Heading is what the page calls it.
	Class, Heading string
	Name           string
	Text           string
	URL            string
	Size           int64
	// Error is why the file cannot be shown.
	Error string
}

// textFile is a text file of an iteration's record: its class (and
// name in URLs), its heading, its file's name.
type textFile struct{ class, heading, name string }

// texts are the text files of a record, in the order shown.
var texts = []textFile{
	{"prompt", "Prompt", "prompt.txt"},
	{"transcript", "Transcript", "transcript.txt"},
	{"output", "Output", "output.txt"},
}

// readRun reads a run's record for its page: run.json and every
// iteration's meta. Only a report (inline) reads the iterations' files
// and diffs their prompts: a served page reads their sizes, and its
// script loads them on demand, so that a record of any size makes a
// small page and takes little memory to serve.
func readRun(dir, id string, now time.Time, inline bool) (runView, error) {
	run, err := runlog.ReadRun(dir, id)
	if err != nil {
		return runView{}, err
	}
	runDir := filepath.Join(dir, id)
	numbers, err := runlog.Records(runDir)
	if err != nil {
		return runView{}, err
	}
	v := runView{
		ID: id, Status: run.ShownStatus(), Reason: run.Reason, Name: procedures(run), Going: run.Going(), Iterations: run.Iterations,
		Duration: runDuration(run, now), Tokens: tokensText(run.Spent.Spend()), Cost: costText(run.Spent.Spend()),
		Loops: run.Loops, Started: run.Started.Format(time.RFC3339),
	}
	if run.Ended != nil {
		v.Ended = run.Ended.Format(time.RFC3339)
	}
	if run.ExitCode != nil {
		v.Exit = fmt.Sprint(*run.ExitCode)
	}
	for _, r := range run.Resumes {
		v.Resumed = append(v.Resumed, r.At.Format(time.RFC3339))
	}
	// Each prompt is diffed against the one before it in its own loop:
	// loops that ran at once (parallel()) take turns in the record.
	previousOf := map[int]int{} // a loop's index in the record → its last record's
	for _, n := range numbers {
		it := readIteration(runDir, id, n, v.Going, inline)
		if l := it.Meta.Loop; l >= 1 && l <= len(run.Loops) {
			it.LoopName = run.Loops[l-1].Name
		}
		if i, ok := previousOf[it.Meta.Loop]; ok {
			previous := v.Records[i]
			it.HasDiff, it.Previous = true, previous.N
			if inline {
				it.Diff = diffLines(runlog.Diff(previous.Texts[0].Text, it.Texts[0].Text))
			}
		}
		previousOf[it.Meta.Loop] = len(v.Records)
		v.Records = append(v.Records, it)
	}
	if len(numbers) > 0 {
		v.LastRecord = numbers[len(numbers)-1]
	}
	v.Timeline = drawTimeline(v.Records)
	v.Spend = drawSpend(v.Records)
	v.Version, err = versionOf(dir, id, run, len(numbers))
	return v, err
}

// readIteration reads record n of run id: its meta, and its texts
// whole when inline. What cannot be read is said on the page rather than
// failing it: one damaged file hides nothing else.
func readIteration(runDir, id string, n int, going, inline bool) iterationView {
	it := iterationView{N: n, Outcome: "unfinished"}
	if going {
		it.Outcome = "running"
	}
	m, err := runlog.ReadMeta(runDir, n)
	switch {
	case err == nil:
		it.Meta, it.HasMeta, it.Outcome = m, true, m.Outcome
		it.Duration, it.Waited = runlog.Seconds(m.Duration), runlog.Seconds(m.Waited)
		it.Spend = m.Spent.Spend()
		it.Meta.FilesChanged, it.MoreFiles = cut(m.FilesChanged, m.FilesChangedMore, "files")
		it.Meta.Escaped, it.MoreEscaped = cut(m.Escaped, 0, "processes")
	case errors.Is(err, os.ErrNotExist):
		it.MetaError = "meta.json is not written yet: the iteration is going on, or its run ended before it finished"
	default:
		it.MetaError = err.Error()
	}
	for _, text := range texts {
		if text.class == "transcript" && it.Meta.Format == "" {
			continue
		}
		t := recordText{Class: text.class, Heading: text.heading, Name: text.name, URL: fmt.Sprintf("%s/iterations/%d/%s", id, n, text.class)}
		if inline {
			t.Text, t.Error = readText(runDir, n, text.name)
		} else if info, err := runlog.StatFile(runDir, n, text.name); err != nil {
			t.Error = cannotRead(text.name, err)
		} else {
			t.Size = info.Size()
		}
		it.Texts = append(it.Texts, t)
	}
	return it
}

// readText is a file of record n as text, or why it cannot be shown.
func readText(runDir string, n int, name string) (string, string) {
	var b bytes.Buffer
	if err := runlog.CopyFile(&b, runDir, n, name); err != nil {
		return "", cannotRead(name, err)
	}
	return b.String(), ""
}

// cannotRead says on a page why a file of a record is not shown.
func cannotRead(name string, err error) string {
	return fmt.Sprintf("(%s cannot be read: %v)", name, err)
}

// version is a token that changes whenever the record of a run does:
// its status, its run.json's time and size (saved as each iteration
// finishes), and how many iteration records it has (one more as each
// starts). The page of a run going on asks for it every
// two seconds and reloads when it changes.
func version(dir, id string) (string, error) {
	run, err := runlog.ReadRun(dir, id)
	if err != nil {
		return "", err
	}
	numbers, err := runlog.Records(filepath.Join(dir, id))
	if err != nil {
		return "", err
	}
	return versionOf(dir, id, run, len(numbers))
}

// versionOf is the version of a run already read, with its number of
// records.
func versionOf(dir, id string, run runlog.Run, records int) (string, error) {
	info, err := runlog.StatRun(dir, id)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s-%d-%d-%d-%d", run.ShownStatus(), run.Iterations, info.ModTime().UnixNano(), info.Size(), records), nil
}
