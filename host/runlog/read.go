package runlog

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"rooda/host/files"
)

// ReadMeta reads record n of a run. Its error names meta.json: missing
// (the iteration has not finished) or damaged.
func ReadMeta(runDir string, n int) (Meta, error) {
	var m Meta
	path, data, err := readRecord(runDir, iterationPart(n, "meta.json"), files.RecordLimit)
	if err != nil {
		return m, err
	}
	if err := decodeJSON(path, data, &m); err != nil {
		return m, err
	}
	m.modernize()
	return m, nil
}

// OutcomeNames2 marks a meta.json whose outcome is one of loop.Outcome's
// values.
const OutcomeNames2 = 2

// oldOutcomes are the outcomes records written before OutcomeNames2 gave
// that are named differently today.
var oldOutcomes = map[string]string{"success": "continue", "SUCCESS": "success"}

// modernize renames an older record's outcome in today's words, so that
// runs show names outcomes one way whenever the run was recorded.
func (m *Meta) modernize() {
	if m.OutcomeNames >= OutcomeNames2 {
		return
	}
	if today, ok := oldOutcomes[m.Outcome]; ok {
		m.Outcome = today
	}
	m.OutcomeNames = OutcomeNames2
}

// promptName is the file of an iteration's directory that keeps the
// exact prompt the agent was given.
const promptName = "prompt.txt"

// ReadPrompt reads the prompt of record n of a run whole, as a diff needs
// it; files.RecordedPromptLimit bounds it.
func ReadPrompt(runDir string, n int) ([]byte, error) {
	return readPrompt(runDir, n, files.RecordedPromptLimit)
}

// readPrompt is ReadPrompt up to limit bytes.
func readPrompt(runDir string, n int, limit int64) ([]byte, error) {
	_, data, err := readRecord(runDir, iterationPart(n, "prompt.txt"), limit)
	if os.IsNotExist(err) {
		return nil, missing(runDir, n, promptName)
	}
	return data, err
}

// CopyFile writes a file of record n of a run, prompt.txt or output.txt,
// to w as it reads it: however large, it is never held whole.
func CopyFile(w io.Writer, runDir string, n int, name string) error {
	f, err := OpenFile(runDir, n, name)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

// missing says why file name of record n is not there, the same way
// wherever it is asked for: the run has no such iteration; the iteration
// has not finished, for its output; or the file is gone from a record
// that has it, and which file that is.
func missing(runDir string, n int, name string) error {
	if _, err := statRecord(runDir, iterationPart(n, "")); os.IsNotExist(err) {
		return fmt.Errorf("the run has no iteration %d", n)
	}
	if _, err := statRecord(runDir, iterationPart(n, "meta.json")); name == outputName && os.IsNotExist(err) {
		return fmt.Errorf("iteration %d has no %s yet: %s", n, name, unfinished)
	}
	return fmt.Errorf("iteration %d's %s is missing: %s", n, name, filepath.Join(iterationDir(runDir, n), name))
}

// unfinished is why an iteration has no meta.json.
const unfinished = "the iteration is going on, or its run ended before it finished"

// OpenFile opens a file of record n of a run (prompt.txt, output.txt,
// transcript.txt) for reading, following no symbolic link (see
// openRecord). A file that is not there is an error saying which, and why
// (missing).
func OpenFile(runDir string, n int, name string) (*os.File, error) {
	f, err := openRecord(runDir, iterationPart(n, name))
	if os.IsNotExist(err) {
		return nil, missing(runDir, n, name)
	}
	return f, err
}

// openRecord opens rel, a path in the record at runDir, following no
// symbolic link, not even the run's own directory: a record lies in the
// workspace, where the agent writes, and a link it left there to
// ~/.ssh/id_ed25519 as an output.txt would otherwise be shown, and
// served, as that output. The runs directory itself is opened as the
// configuration names it.
func openRecord(runDir, rel string) (*os.File, error) {
	return files.OpenBelow(filepath.Dir(runDir), filepath.Join(filepath.Base(runDir), rel))
}

// statRecord is the facts of rel, a file or directory of the record at
// runDir, opened as openRecord opens it.
func statRecord(runDir, rel string) (os.FileInfo, error) {
	f, err := openRecord(runDir, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Stat()
}

// StatRun is the facts of a run's run.json (its time and size change as
// it is saved), found as openRecord finds it.
func StatRun(dir, id string) (os.FileInfo, error) {
	return statRecord(filepath.Join(dir, id), "run.json")
}

// StatFile is the facts of a file of record n of a run, found as
// OpenFile finds it.
func StatFile(runDir string, n int, name string) (os.FileInfo, error) {
	return statRecord(runDir, iterationPart(n, name))
}

// readRecord reads rel, a file of the record at runDir, whole, up to
// limit bytes, as openRecord opens it; it returns the file's path too,
// for errors about its content.
func readRecord(runDir, rel string, limit int64) (string, []byte, error) {
	path := filepath.Join(runDir, rel)
	f, err := openRecord(runDir, rel)
	if err != nil {
		return path, nil, err
	}
	defer f.Close()
	data, err := files.ReadAll(f, path, limit)
	return path, data, err
}

// Records lists the numbers of a run's iteration records, in order: an
// iteration going on, or one its run ended before it finished, has a
// record without meta.json.
func Records(runDir string) ([]int, error) {
	names, err := recordNames(runDir, "iterations", func(e os.DirEntry) bool { return e.IsDir() })
	var records []int
	for _, name := range names {
		if n, ok := recordNumber(name); ok {
			records = append(records, n)
		}
	}
	return records, err
}

// recordNumber is the number a record's numbered directory or file is
// named by ("0042", "12345": an iteration's, as iterationPart names it,
// or a context addition's); false for another name. Not by fmt's %04d,
// which reads four digits and no more, and is slow for a resume's
// thousands.
func recordNumber(name string) (int, bool) {
	n, err := strconv.Atoi(name)
	ok := err == nil && n > 0 && len(name) >= 4 && (len(name) == 4 || name[0] != '0') && name[0] != '+'
	return n, ok
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
