// Package runlog keeps the record of every run in the workspace
// (.rooda/runs/<run-id>/): run.json with the settings, the agent, the
// status and the statistics; per iteration the exact prompt bytes sent,
// the output kept and meta.json (the prompt's SHA-256, exit code, signals,
// timeout, bytes dropped, duration, and in a git workspace HEAD before and
// after and the files changed); and the context added while the run
// goes on. Every file is written whole (a rename), so an interrupted run
// still leaves readable records; a record removed while its run goes on
// (an agent's "git clean -fdx") is written again, from what the run
// holds, at its next write.
package runlog

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"rooda/host/agentstream"
	"rooda/host/files"
	"rooda/host/loop"
	"rooda/host/process"
	"rooda/host/sandbox"
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
	// InterruptedBy names the signal that interrupted the run ("SIGQUIT"),
	// when one did.
	InterruptedBy string `json:"interrupted_by,omitempty"`
	// PID is rooda's process while it runs: a record left "running" by a
	// rooda killed outright is told from a live run by it. PIDStart is
	// when that process started (clock ticks since boot; 0 where unknown):
	// a later process given the same pid is not taken for it.
	PID      int    `json:"pid,omitempty"`
	PIDStart uint64 `json:"pid_start,omitempty"`
	ExitCode *int   `json:"exit_code,omitempty"`
	// Reason is why the run ended, in words: which budget it reached and
	// its figures, whose verdict or stop and its reason, how many
	// failures, which signal, a script's error or its exit(code, reason).
	// Records made before it have it only for exit().
	Reason string `json:"reason,omitempty"`
	// Budget is the budget a run that ended with status budget reached:
	// a cost cap and a time cap are told apart the next day.
	Budget     *Budget    `json:"budget,omitempty"`
	Started    time.Time  `json:"started"`
	Ended      *time.Time `json:"ended,omitempty"`
	Iterations int        `json:"iterations"`
	Loops      []Loop     `json:"loops"`
	// Spent is what every iteration's agent used, in total.
	Spent *Spent `json:"spent,omitempty"`
	// Worktrees are the git worktrees the run made (worktree()), each
	// recorded as it is made: runs show says which are still there.
	Worktrees []Worktree `json:"worktrees,omitempty"`
	// Removed are the times the run's record was found removed while the
	// run went on (an agent's "git clean -fdx" removes it): rooda wrote it
	// again from what it held.
	Removed []Removal `json:"removed,omitempty"`
	// Resumes are the times the run was resumed after it was cut short.
	Resumes []Resumption `json:"resumes,omitempty"`
	// Dir is the working directory the run ran in, where a resume runs
	// it again.
	Dir string `json:"dir,omitempty"`
	// RunName is the name the caller started the run under (--run-name),
	// which a later start under that name finds.
	RunName string `json:"run_name,omitempty"`
}

// Budget is a budget a run reached, each figure written as the log
// writes it (units.Dollars, units.Duration).
type Budget struct {
	// Name is its setting ("max_cost_usd", "max_duration") or, for a
	// budget of the run alone, its flag ("--max-steps", "--max-duration").
	Name  string `json:"name"`
	Limit string `json:"limit"`
	// Reached is what the run had spent or taken when it stopped ("$0.21",
	// "1h2m"), where the budget counts it; "" where it does not say.
	Reached string `json:"reached,omitempty"`
}

// Worktree is a git worktree a run made, and its branch.
type Worktree struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	Branch string `json:"branch"`
	// Kept is why the run, as it ended, left the worktree though it was
	// not made to be kept (it held work); "" otherwise.
	Kept string `json:"kept,omitempty"`
}

// Removal is a time the run's record was found removed while the run
// went on.
type Removal struct {
	At time.Time `json:"at"`
	// KeptFrom is the first iteration whose files rooda still held, or
	// had yet to write: those of the iterations before it, back to the
	// removal before, were lost.
	KeptFrom int `json:"kept_from"`
}

// lost says which iterations' files removal i of removals lost.
func lost(removals []Removal, i int) string {
	from, to := 1, removals[i].KeptFrom-1
	if i > 0 {
		from = removals[i-1].KeptFrom
	}
	switch {
	case to < from:
		return "no iteration's files were lost"
	case to == from:
		return fmt.Sprintf("iteration %d's files are lost", to)
	}
	return fmt.Sprintf("the files of iterations %d-%d are lost", from, to)
}

// Spent is what agents used: tokens as their CLIs reported them, and
// dollars when known (reported, or priced by model_prices).
type Spent struct {
	InputTokens      int64    `json:"input_tokens"`
	OutputTokens     int64    `json:"output_tokens"`
	CacheReadTokens  int64    `json:"cache_read_tokens"`
	CacheWriteTokens int64    `json:"cache_write_tokens"`
	CostUSD          *float64 `json:"cost_usd,omitempty"`
}

// String is the spend as runs show shows it, as the run's summary did:
// "1,234 tokens, $0.01 (input 1,000, output 234, cache read 0, cache
// write 0)".
func (s *Spent) String() string { return s.Spend().Breakdown() }

// Spend is the recorded spend as the loop counts it; a nil Spent is
// nothing spent.
func (s *Spent) Spend() loop.Spend {
	if s == nil {
		return loop.Spend{}
	}
	spend := loop.Spend{Tokens: agentstream.Usage{Input: s.InputTokens, Output: s.OutputTokens, CacheRead: s.CacheReadTokens, CacheWrite: s.CacheWriteTokens}}
	if s.CostUSD != nil {
		spend.CostUSD, spend.Costed = *s.CostUSD, true
	}
	return spend
}

// spentOf is s as the record keeps it; nil when nothing is known.
func spentOf(s loop.Spend) *Spent {
	if s.IsZero() {
		return nil
	}
	u := s.Tokens
	out := &Spent{InputTokens: u.Input, OutputTokens: u.Output, CacheReadTokens: u.CacheRead, CacheWriteTokens: u.CacheWrite}
	if s.Costed {
		cost := s.CostUSD
		out.CostUSD = &cost
	}
	return out
}

// Loop is one loop of a run: a YAML procedure's only one, or one
// iterate() of a script.
type Loop struct {
	// Name is the loop's in parallel(), which the log's lines carry;
	// "" for a loop that ran alone.
	Name string `json:"name,omitempty"`
	// Key is the loop's place in the journal ("main#2"), by which a
	// resumed run finds it again.
	Key       string   `json:"key,omitempty"`
	Procedure string   `json:"procedure"`
	Settings  []string `json:"settings"`
	Agent     []string `json:"agent"`
	// Agents name the agents that took turns, when there were several.
	Agents []string `json:"agents,omitempty"`
	Status string   `json:"status,omitempty"`
	// Reason is why the procedure's verdict ended the loop, when it said
	// (("stop", "over budget")).
	Reason string `json:"reason,omitempty"`
	// Why is why the loop ended, in words, as the run's reason says it
	// ("the run's agents spent $0.21, reaching max_cost_usd $0.20").
	Why   string `json:"why,omitempty"`
	Stats *Stats `json:"stats,omitempty"`
	// Refused are the connections its iterations' proxies refused
	// (sandbox_hosts), each host and port with its count in all.
	Refused []sandbox.Refusal `json:"refused,omitempty"`
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
	Record    int `json:"record"`
	Loop      int `json:"loop"`
	Iteration int `json:"iteration"`
	// Agent names the agent that ran the iteration.
	Agent        string `json:"agent,omitempty"`
	PromptSHA256 string `json:"prompt_sha256"`
	PromptBytes  int    `json:"prompt_bytes"`
	Outcome      string `json:"outcome"`
	// Cause is why a failed iteration failed (loop.Cause's values).
	Cause string `json:"cause,omitempty"`
	// Reason is the reason the procedure's verdict gave, if any.
	Reason string `json:"reason,omitempty"`
	// OutcomeNames is the vocabulary Outcome is written in: OutcomeNames2
	// (loop.Outcome's values), or 0 in a record made before it, where
	// "success" meant continue and "SUCCESS" meant success. ReadMeta
	// gives every record in today's words.
	OutcomeNames int     `json:"outcome_names,omitempty"`
	ExitCode     int     `json:"exit_code"`
	Signal       string  `json:"signal,omitempty"`
	KilledBy     string  `json:"killed_by,omitempty"`
	TimedOut     bool    `json:"timed_out"`
	OutputBytes  int64   `json:"output_bytes"`
	DroppedBytes int64   `json:"dropped_bytes"`
	Duration     float64 `json:"duration"`
	// Waited is how long, in seconds, the iteration waited for a usage
	// limit to reset before its agent ran: not part of Duration.
	Waited        float64  `json:"waited,omitempty"`
	ContextAdded  []string `json:"context_added,omitempty"`
	GitHeadBefore string   `json:"git_head_before,omitempty"`
	GitHeadAfter  string   `json:"git_head_after,omitempty"`
	FilesChanged  []string `json:"files_changed,omitempty"`
	// FilesChangedMore counts the files changed past the first
	// git.FileLimit, which FilesChanged names.
	FilesChangedMore int `json:"files_changed_more,omitempty"`
	// Escaped are the processes ("pid name") the agent left running
	// outside its process group, which rooda stopped.
	Escaped []string `json:"escaped,omitempty"`
	// EscapedSurvived is set when some of them did not end even after
	// SIGKILL.
	EscapedSurvived bool `json:"escaped_survived,omitempty"`
	// For an agent whose output rooda decodes (its alias's output): the
	// format, the model, what it used, and the readable transcript kept
	// beside output.txt as transcript.txt.
	Format string `json:"format,omitempty"`
	Model  string `json:"model,omitempty"`
	Spent  *Spent `json:"spent,omitempty"`
	// Retries counts the retries the CLI reported (429, 529 …).
	Retries int `json:"retries,omitempty"`
	// Refused counts the tool results that say the system refused a
	// file or a process: what the sandbox refused shows here.
	Refused int `json:"refused_tool_results,omitempty"`
	// Sandbox is what confined the agent: its mode, the kernel's
	// Landlock ABI, the paths it could write, the ports it could reach,
	// what was hidden from it.
	Sandbox *sandbox.Spec `json:"sandbox,omitempty"`
	// RanAgain is set for an iteration that was in flight when its run
	// stopped, and ran again when the run was resumed.
	RanAgain bool `json:"ran_again,omitempty"`
	// Partial is the git ref that keeps what the killed try of an
	// iteration that ran again left in the workspace, which was put back
	// as it was when the iteration began.
	Partial string `json:"partial_ref,omitempty"`
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
	data, err := marshalJSON(v)
	if err != nil {
		return err
	}
	return writeFile(path, data)
}

// marshalJSON is v as the record's files hold it: indented, a line.
func marshalJSON(v any) ([]byte, error) {
	data, err := json.MarshalIndent(v, "", "  ")
	return append(data, '\n'), err
}

// writeFile writes a record's file whole, making its directory
// (writeFileOpen).
func writeFile(path string, data []byte) error {
	f, err := writeFileOpen(path, data)
	if err != nil {
		return err
	}
	return f.Close()
}

// writeFileOpen is writeFile that returns the file still open
// (files.WriteWholeOpen). Its directory is made only when the write finds
// it missing, or something else in its place: most are there, and a look
// first costs each file a stat. Where the directory cannot be made,
// MkdirAll's error names the part in the way.
func writeFileOpen(path string, data []byte) (*os.File, error) {
	f, err := files.WriteWholeOpen(path, data)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		f, err = files.WriteWholeOpen(path, data)
	}
	return f, err
}

// idForm is the form of the ids newID gives, the older ones without
// microseconds included: a directory of another name is not a run.
var idForm = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\d{8}T\d{6}(\.\d{6})?Z-[A-Za-z0-9_-]+-[0-9a-f]{4}$`)
})

// isRunName reports whether name is a run id.
func isRunName(name string) bool { return idForm().MatchString(name) }

// IsID reports whether name has the form of a run's id: a name read from
// elsewhere (the fleet's store) to make a record's directory of.
func IsID(name string) bool { return isRunName(name) }

// errNotARun is why a directory of runs_dir is not a run's record.
var errNotARun = errors.New("not a run")

// record reads the run recorded in e, an entry of dir. Only runs are
// listed, shown and pruned, and a name alone makes none: a run is a
// directory named as rooda names runs whose run.json names that same
// directory and says when the run started. A directory of the user's
// named alike, with a run.json of its own, is errNotARun. A missing
// run.json is fs.ErrNotExist; any other error is a damaged record's
// (see damaged).
func record(dir string, e os.DirEntry) (Run, error) {
	if !e.IsDir() || !isRunName(e.Name()) {
		return Run{}, errNotARun
	}
	run, err := ReadRun(dir, e.Name())
	if err == nil && (run.ID != e.Name() || run.Started.IsZero()) {
		err = errNotARun
	}
	return run, err
}

// damaged reports whether err, from record, is that of a run.json that
// cannot be read or decoded. Such a record is listed, and shown as the
// error naming the file and line, so that it can be mended; it is never
// pruned, for nothing says it is rooda's.
func damaged(err error) bool {
	return err != nil && err != errNotARun && !errors.Is(err, fs.ErrNotExist)
}

// IDs lists the runs recorded under dir, damaged records included,
// oldest first (ids begin with the time they started).
func IDs(dir string) ([]string, error) {
	return namesIn(dir, func(e os.DirEntry) bool {
		_, err := record(dir, e)
		return err == nil || damaged(err)
	})
}

// namesIn lists, sorted (as os.ReadDir gives them), the names in dir of the entries keep keeps. A
// dir not there yet holds nothing.
func namesIn(dir string, keep func(os.DirEntry) bool) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	return kept(entries, keep), err
}

// recordNames is namesIn for rel, a directory of the record at runDir,
// opened as openRecord opens it.
func recordNames(runDir, rel string, keep func(os.DirEntry) bool) ([]string, error) {
	f, err := openRecord(runDir, rel)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	slices.SortFunc(entries, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return kept(entries, keep), err
}

// kept are the names of the entries keep keeps.
func kept(entries []os.DirEntry, keep func(os.DirEntry) bool) []string {
	var names []string
	for _, e := range entries {
		if keep(e) {
			names = append(names, e.Name())
		}
	}
	return names
}

func startsWithDot(name string) bool { return len(name) > 0 && name[0] == '.' }

// ReadRun reads a run's run.json.
func ReadRun(dir, id string) (Run, error) {
	var r Run
	path, data, err := readRecord(filepath.Join(dir, id), "run.json", files.RecordLimit)
	if err != nil {
		return r, err
	}
	return r, decodeJSON(path, data, &r)
}

// decodeJSON decodes a record file; a damaged one is an error naming the
// file and the line.
func decodeJSON(path string, data []byte, v any) error {
	err := json.Unmarshal(data, v)
	if err == nil {
		return nil
	}
	var offset int64
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		offset = syntax.Offset
	case errors.As(err, &typ):
		offset = typ.Offset
	}
	line := 1 + bytes.Count(data[:min(offset, int64(len(data)))], []byte("\n"))
	return fmt.Errorf("%s:%d: invalid JSON: %w (the record is damaged: mend the file, or remove the run's directory)", path, line, err)
}

// outputName is the file of an iteration's directory that keeps what
// the agent printed.
const outputName = "output.txt"

// transcriptName is the file beside it that keeps a decoded output's
// readable transcript: what -v shows.
const transcriptName = "transcript.txt"

// iterationDir is where record n of a run keeps its files.
func iterationDir(runDir string, n int) string {
	return filepath.Join(runDir, iterationPart(n, ""))
}

// iterationPart is the path of a file of record n in its run's record.
func iterationPart(n int, name string) string {
	return filepath.Join("iterations", fmt.Sprintf("%04d", n), name)
}

// Going reports whether the run is still going: recorded as running by a
// process that is still alive.
func (r Run) Going() bool {
	return r.Status == "running" && r.PID > 0 && process.Alive(r.PID, r.PIDStart)
}

// Crashed reports whether the run is recorded as running by a rooda that
// is gone — killed outright, or crashed — so that nothing will ever
// record how it ended.
func (r Run) Crashed() bool { return r.Status == "running" && r.PID > 0 && !r.Going() }

// ShownStatus is the status to show: the recorded one, or "crashed" for
// a run that can no longer end. The record itself is left as it is.
func (r Run) ShownStatus() string {
	if r.Crashed() {
		return "crashed"
	}
	return r.Status
}
