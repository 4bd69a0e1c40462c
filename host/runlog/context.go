package runlog

import (
	"errors"
	"fmt"
	"io/fs"
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
// cleared ones included; two adds at once each get their own. The block
// is written whole under a temporary name, which Additions does not
// read, and only then given its own: an iteration never gets part of
// it, and an add that fails (a full disk, a file size limit) leaves
// nothing.
//
// A block that would bring the additions past additionsLimit in all is
// refused, as the loop would leave it out: the one who adds it is the one
// to know.
func AddContext(runDir, block string) (string, error) {
	if room := roomLeft(runDir); int64(len(block)) > room {
		return "", fmt.Errorf("nothing was added to run %s: with the context added to it before (%.1f MiB), it would be %v in all, and the loop would leave it out; rooda context clear takes back what was added",
			filepath.Base(runDir), float64(additionsLimit-room)/(1<<20), &files.TooLargeError{Limit: additionsLimit})
	}
	dir := contextDir(runDir)
	if err := os.MkdirAll(filepath.Join(dir, "cleared"), 0o755); err != nil {
		return "", err
	}
	tmp, err := files.WriteTemp(dir, []byte(block))
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		err = pathErr.Err // the file it names is gone
	}
	if err != nil {
		return "", fmt.Errorf("nothing was added to run %s: %w", filepath.Base(runDir), err)
	}
	defer os.Remove(tmp) // when the rename fails
	for n := highest(dir) + 1; ; n++ {
		name := fmt.Sprintf("%04d.txt", n)
		if _, err := os.Stat(filepath.Join(dir, "cleared", name)); err == nil {
			continue
		}
		switch claimed, err := claim(dir, name); {
		case err != nil:
			return "", err
		case claimed:
			return name, os.Rename(tmp, filepath.Join(dir, name))
		}
	}
}

// claim takes the name of an addition for one add, which alone then
// renames its block to it (a rename would replace another's): it creates
// a file of its own for it, which fails on a name already taken. The
// claim is named with a dot, which no reader takes for an addition, and
// stays: one removed could be taken again by an add that counted the
// additions before it went.
func claim(dir, name string) (bool, error) {
	f, err := os.OpenFile(filepath.Join(dir, ".claimed-"+name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if os.IsExist(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, f.Close()
}

// highest is the largest number an addition has had, cleared or not.
func highest(dir string) int {
	max := 0
	for _, d := range []string{dir, filepath.Join(dir, "cleared")} {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			base, txt := strings.CutSuffix(e.Name(), ".txt")
			if n, ok := recordNumber(base); txt && ok && n > max {
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

// roomLeft is how much more context added while running the loop takes
// in, as Additions counts: the additions in order, each taken while it
// fits in what is left, one past it left out.
func roomLeft(runDir string) int64 {
	names, _ := additionNames(runDir)
	room := int64(additionsLimit)
	for _, name := range names {
		if info, err := os.Lstat(filepath.Join(contextDir(runDir), name)); err == nil && info.Size() <= room {
			room -= info.Size()
		}
	}
	return room
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

// additionsLimit bounds all the context added while running together, as
// additionLimit bounds each addition: more than one file's worth is more
// than an agent's window holds several times over, and without a bound a
// few large adds make a prompt of a hundred megabytes.
const additionsLimit = additionLimit

// Additions reads the context added while the run goes on, anew before
// each iteration: every block, in order, and the names of those no
// iteration was given before. An addition that cannot be read (one over
// additionLimit, put there by hand) is left out, and refused says why,
// once; should it become readable, it is fresh then. So is one that
// would bring the additions past additionsLimit in all: they are taken in
// order, so that what an iteration was given stays in the next prompt.
func (r *Recorder) Additions() (blocks, fresh []string, refused []error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	names, _ := additionNames(r.dir)
	room := int64(additionsLimit)
	var overTotal []string
	for _, name := range names {
		short := strings.TrimSuffix(name, ".txt")
		// Read no more than the room left: an addition past it is not
		// read whole only to be left out. No link in the record is
		// followed.
		_, data, err := readRecord(r.dir, filepath.Join("context", name), min(additionLimit, room))
		var tooLarge *files.TooLargeError
		switch {
		case err != nil && r.refused[name]:
		case errors.As(err, &tooLarge) && room < additionLimit:
			r.refused[name] = true
			overTotal = append(overTotal, short)
		case err != nil:
			r.refused[name] = true
			refused = append(refused, fmt.Errorf("context added while running, %s: %v; left out", short, errors.Unwrap(err)))
		default:
			room -= int64(len(data))
			blocks = append(blocks, string(data))
			if !r.seen[name] {
				r.seen[name] = true
				fresh = append(fresh, short)
			}
		}
	}
	if len(overTotal) > 0 {
		refused = append(refused, fmt.Errorf("context added while running, %s: left out: with the additions before, it is %v in all; rooda context clear takes back what was added",
			strings.Join(overTotal, ", "), &files.TooLargeError{Limit: additionsLimit}))
	}
	r.fresh = fresh
	return blocks, fresh, refused
}

// Running is the newest run under dir that is still going.
func Running(dir string) (string, error) {
	run, found, err := newest(dir, Run.Going)
	if err == nil && !found {
		err = fmt.Errorf("no run is going on in %s; name one with --run ID", dir)
	}
	return run.ID, err
}

// ContextTarget is the directory of the run whose context is added to or
// cleared: the one query names (as Find reads it), or the newest going
// on for "". Only a run going on will read it: one that has ended is an
// error, rather than an addition no agent ever gets.
func ContextTarget(dir, query string) (string, error) {
	if query == "" {
		id, err := Running(dir)
		return filepath.Join(dir, id), err
	}
	id, err := Find(dir, query)
	if err != nil {
		return "", err
	}
	run, err := ReadRun(dir, id)
	if err != nil {
		return "", err
	}
	if !run.Going() {
		return "", fmt.Errorf("run %s has ended (%s): no iteration will read its context any more", id, run.ShownStatus())
	}
	return filepath.Join(dir, id), nil
}
