package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"rooda/host/journal"
)

// damagings are ways the first line of a journal is found damaged.
var damagings = map[string]func(line []byte) []byte{
	"a byte changed": func(line []byte) []byte { line[12] ^= 0x20; return line },
	"random bytes":   func(line []byte) []byte { return []byte("\x8f\x01zq\xff garbage") },
	"empty":          func([]byte) []byte { return nil },
}

// damageFirstLine applies damage to the first line of the run's journal.
func damageFirstLine(t *testing.T, runDir string, damage func([]byte) []byte) []byte {
	path := filepath.Join(runDir, journal.Name)
	data := []byte(readText(t, path))
	first, rest, _ := strings.Cut(string(data), "\n")
	damaged := append(damage([]byte(first)), '\n')
	damaged = append(damaged, rest...)
	must(t, os.WriteFile(path, damaged, 0o644))
	return damaged
}

// TestResumeRefusesADamagedJournal: a journal whose first line is
// damaged (a byte changed, random bytes, emptied) disagrees with the
// record, which says iterations 1 and 2 ended: the resume is refused,
// naming the line and what would run again, and changes nothing — no
// agent starts, the journal is left as it was.
func TestResumeRefusesADamagedJournal(t *testing.T) {
	t.Parallel()
	for name, damage := range damagings {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := newDurableYAML(t)
			d.killIn("Iteration 3/8 starting")
			runDir, _ := d.recorded()
			damaged := damageFirstLine(t, runDir, damage)
			before := d.starts()
			o := d.rooda("runs", "resume")
			rel := filepath.Join(".rooda", "runs", filepath.Base(runDir))
			if o.code != 1 || !strings.Contains(o.stderr, rel+"/journal.jsonl:1 is damaged") ||
				!strings.Contains(o.stderr, "would run again: iterations/0001, iterations/0002") || !strings.Contains(o.stderr, "--force") {
				t.Errorf("resume over a damaged first line: exit %d\n%s", o.code, o.stderr)
			}
			if !equalCounts(d.starts(), before) || readText(t, filepath.Join(runDir, journal.Name)) != string(damaged) {
				t.Errorf("the refused resume changed the run: starts %v (were %v)", d.starts(), before)
			}
		})
	}
}

// TestForcedResumeOverADamagedJournal: --force resumes over a damaged
// journal, saying what runs again; the iterations it runs again get
// records of their own, none written over. Killed again and resumed
// without --force, the run is taken (what was dropped is accounted for)
// and ends; each iteration record is distinct, and every prompt the
// journal names matches its record's.
func TestForcedResumeOverADamagedJournal(t *testing.T) {
	t.Parallel()
	d := newDurableYAML(t)
	d.killIn("Iteration 3/8 starting")
	runDir, _ := d.recorded()
	damageFirstLine(t, runDir, damagings["a byte changed"])
	meta1 := readText(t, filepath.Join(runDir, "iterations", "0001", "meta.json"))
	cmd := exec.Command(binary(t), "runs", "resume", "--force")
	cmd.Dir, cmd.Env = d.w.dir, d.w.env
	s := d.w.start(cmd)
	d.w.waitForLog(s, "Iteration 2/8 starting", "the forced resume never ran iteration 2 again")
	s.cmd.Process.Signal(syscall.SIGKILL)
	killedWait(t, s)
	if log := s.stderr.String(); !strings.Contains(log, "resuming over a damaged journal (--force)") || !strings.Contains(log, "would run again: iterations/0001, iterations/0002") {
		t.Errorf("the forced resume does not say what runs again:\n%s", log)
	}
	o := d.rooda("runs", "resume")
	if o.code != 0 || strings.Contains(o.stderr, "cannot resume") {
		t.Errorf("the resume after the forced one: exit %d\n%s", o.code, o.stderr)
	}
	if got := readText(t, filepath.Join(runDir, "iterations", "0001", "meta.json")); got != meta1 {
		t.Errorf("iterations/0001 was written over:\n%s\nwas:\n%s", got, meta1)
	}
	checkPromptHashes(t, runDir)
}

// checkPromptHashes checks that each ended iteration the journal holds
// names a record of its own whose prompt has the hash it says.
func checkPromptHashes(t *testing.T, runDir string) {
	t.Helper()
	entries, _, err := journal.Read(filepath.Join(runDir, journal.Name))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, e := range entries {
		if e.Kind != journal.Ended {
			continue
		}
		var ended struct {
			Prompt string `json:"prompt_sha256"`
		}
		must(t, json.Unmarshal(e.Result, &ended))
		sum := sha256.Sum256([]byte(readText(t, filepath.Join(runDir, "iterations", fmt.Sprintf("%04d", e.Record), "prompt.txt"))))
		if hex.EncodeToString(sum[:]) != ended.Prompt || seen[e.Record] {
			t.Errorf("record %d: its prompt's hash is not the journal's, or two iterations ended in it", e.Record)
		}
		seen[e.Record] = true
	}
	if len(seen) < 4 {
		t.Errorf("only %d iterations ended: %v", len(seen), seen)
	}
}

// TestResumeRefusesAJournalLinkOrFIFO: a journal that is a symbolic link
// (to /dev/zero, which would be read for ever) or a FIFO (which would
// block the read) is refused at once, as every other file of a record.
func TestResumeRefusesAJournalLinkOrFIFO(t *testing.T) {
	t.Parallel()
	d := newDurableYAML(t)
	d.killIn("Iteration 2/8 starting")
	runDir, _ := d.recorded()
	path := filepath.Join(runDir, journal.Name)
	for what, make := range map[string]func() error{
		"a symbolic link":                        func() error { return os.Symlink("/dev/zero", path) },
		"neither a regular file nor a directory": func() error { return syscall.Mkfifo(path, 0o644) },
	} {
		os.Remove(path)
		must(t, make())
		cmd := exec.Command(binary(t), "runs", "resume")
		cmd.Dir, cmd.Env = d.w.dir, d.w.env
		o := d.w.waitWithin(d.w.start(cmd), 20*time.Second)
		if o.code != 1 || !strings.Contains(o.stderr, journal.Name+": "+what) {
			t.Errorf("a journal that is %s: exit %d after %s\n%s", what, o.code, o.took, o.stderr)
		}
	}
}

// TestSecondResumeSaysWhoResumes: while one rooda resumes a run, another
// asking to resume it is told which process does; a kill -9 of that
// rooda followed at once by a resume takes the run, whatever the killed
// rooda was starting when it died (its lock is waited for, briefly).
func TestSecondResumeSaysWhoResumes(t *testing.T) {
	t.Parallel()
	d := newDurableYAML(t)
	d.killIn("Iteration 3/8 starting")
	runDir, _ := d.recorded()
	id := filepath.Base(runDir)
	d.w.countStarts(durableSteps(6, "2s")) // the resume goes on while the second asks
	cmd := exec.Command(binary(t), "runs", "resume")
	cmd.Dir, cmd.Env = d.w.dir, d.w.env
	first := d.w.start(cmd)
	d.w.waitForLog(first, "Iteration 3/8 starting", "the resume never started iteration 3")
	want := fmt.Sprintf("run %s is being resumed by pid %d", id, first.cmd.Process.Pid)
	for _, args := range [][]string{{"runs", "resume"}, {"runs", "resume", id}} {
		if o := d.rooda(args...); o.code != 1 || !strings.Contains(o.stderr, want) {
			t.Errorf("rooda %s while another resumes: exit %d\n%s", strings.Join(args, " "), o.code, o.stderr)
		}
	}
	first.cmd.Process.Signal(syscall.SIGKILL)
	first.cmd.Wait()
	d.w.countStarts(durableSteps(6, "10ms"))
	if o := d.rooda("runs", "resume"); o.code != 0 {
		t.Errorf("a resume at once after a kill -9: exit %d\n%s", o.code, o.stderr)
	}
}

// TestForcedResumeNamesTheProcedure: a YAML run resumed with --force
// under other settings is warned about by its procedure's name, not as
// "build at not set" (a procedure has no place in a script).
func TestForcedResumeNamesTheProcedure(t *testing.T) {
	t.Parallel()
	d := newDurableYAML(t)
	d.killIn("Iteration 2/8 starting")
	d.w.write("rooda-config.yml", readText(t, filepath.Join(d.w.dir, "rooda-config.yml"))+"  iteration_timeout: 5m\n")
	o := d.rooda("runs", "resume", "--force")
	if !strings.Contains(o.stderr, "resuming: procedure build runs with other settings than it was recorded with (--force): Iteration Timeout") || strings.Contains(o.stderr, "not set runs") {
		t.Errorf("the --force warning: exit %d\n%s", o.code, o.stderr)
	}
}
