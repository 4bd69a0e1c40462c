package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// TestDigestNamesAHundredFiles: an iteration that writes 250 files gives
// the next one a digest naming the first 100 and counting the rest, and
// runs show does the same; meta.json keeps all 250.
func TestDigestNamesAHundredFiles(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"files": 250}, step{})
	w.gitInit()
	w.run("build", "-n", "2", "--digest").expect(t, 2)
	second := w.prompt(2)
	want := "\nFiles changed: file-00001.txt, file-00002.txt, "
	line := second[strings.Index(second, want)+1:]
	line = line[:strings.IndexByte(line, '\n')]
	if !strings.Contains(second, want) || !strings.HasSuffix(line, ", file-00100.txt … and 150 more files") {
		t.Errorf("the digest's files line:\n%s", line)
	}
	show := w.rooda("runs", "show", "last", "--iteration", "1")
	if !strings.Contains(show.stdout, ", file-00100.txt … and 150 more files\n") || strings.Contains(show.stdout, "file-00101.txt") {
		t.Errorf("runs show:\n%s", show.stdout)
	}
	if m := w.meta(1); len(m.FilesChanged) != 250 {
		t.Errorf("meta.json keeps %d files changed, want 250", len(m.FilesChanged))
	}
}

// TestRecordNamesAThousandFiles: an iteration that writes 1,500 files is
// recorded with the first 1,000 named and the other 500 counted, in
// meta.json and the journal alike, not a record of every name; the
// digest and runs show count them all.
func TestRecordNamesAThousandFiles(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"files": 1500}, step{})
	w.gitInit()
	w.run("build", "-n", "2", "--digest").expect(t, 2)
	m := w.meta(1)
	if len(m.FilesChanged) != 1000 || m.FilesChangedMore != 500 || m.FilesChanged[999] != "file-01000.txt" {
		t.Errorf("meta.json names %d files changed and counts %d more, want 1000 and 500", len(m.FilesChanged), m.FilesChangedMore)
	}
	if !strings.Contains(w.prompt(2), ", file-00100.txt … and 1,400 more files\n") {
		t.Errorf("the digest does not count the files meta.json leaves unnamed:\n%s", w.prompt(2))
	}
	show := w.rooda("runs", "show", "last", "--iteration", "1")
	if !strings.Contains(show.stdout, ", file-00100.txt … and 1,400 more files\n") {
		t.Errorf("runs show:\n%s", show.stdout)
	}
	if table := w.rooda("runs", "show", "last").stdout; !regexp.MustCompile(`(?m)^1 .* 1,500$`).MatchString(table) {
		t.Errorf("runs show's line of iteration 1 does not count 1,500 files changed:\n%s", table)
	}
	journal, _ := filepath.Glob(filepath.Join(w.dir, ".rooda", "runs", "*", "journal.jsonl"))
	if len(journal) != 1 || strings.Contains(readText(t, journal[0]), "file-01001.txt") {
		t.Errorf("the journal names a file past the first 1,000 (%v)", journal)
	}
}

// TestEscapedProcessesNamedTen: the warning about 13 processes left
// outside the agent's group names 10 and counts the rest; all 13 are
// stopped and recorded.
func TestEscapedProcessesNamedTen(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"escape": "60s", "escapes": 13})
	o := w.run("build", "-n", "1")
	o.expect(t, 2, "WARN: Iteration 1/1: the agent left 13 processes running outside its process group (", " fakeagent … and 3 more processes); stopped them\n")
	warning := regexp.MustCompile(`outside its process group \((.*) … and 3 more`).FindStringSubmatch(o.stderr)
	if warning == nil || strings.Count(warning[1], " fakeagent") != 10 {
		t.Errorf("the warning does not name 10 processes:\n%s", o.stderr)
	}
	if m := w.meta(1); len(m.Escaped) != 13 {
		t.Errorf("meta.json records %d escaped processes, want 13", len(m.Escaped))
	}
}

// TestContextAddedIsBoundedInAll: three additions of 7 MiB, each within
// the bound of one, are 21 MiB together, past the bound of 17 MiB in
// all: context add refuses the third, saying why, and adds nothing; put
// in the run's context by hand, it is left out by the loop, whose log
// names it; the first two reach the prompt, and a small one after the
// third still fits.
func TestContextAddedIsBoundedInAll(t *testing.T) {
	t.Parallel()
	// The first iteration waits to be killed, so that the test adds
	// context while it runs.
	w := newWorkspace(t, step{"delay": "60s"}, step{"output": successSignal})
	s := w.start(w.command("build", "-n", "2"))
	w.waitForPids(1)
	filler := strings.Repeat(strings.Repeat("x", 1023)+"\n", 7<<10)
	for i, name := range []string{"one", "two", "three"} {
		file := filepath.Join(w.dir, name+".md")
		if err := os.WriteFile(file, []byte("addition "+name+"\n"+filler), 0o644); err != nil {
			t.Fatal(err)
		}
		o := w.rooda("context", "add", file)
		if name == "three" {
			if o.code != 1 || !strings.Contains(o.stderr, "nothing was added to run ") ||
				!strings.Contains(o.stderr, "it would be larger than the limit of 17 MiB in all, and the loop would leave it out") {
				t.Fatalf("context add past the bound in all: exit %d\n%s%s", o.code, o.stdout, o.stderr)
			}
			block := readText(t, filepath.Join(w.runDir(), "context", "0002.txt"))
			must(t, os.WriteFile(filepath.Join(w.runDir(), "context", "0003.txt"), []byte(strings.Replace(block, "addition two", "addition three", 1)), 0o644))
			continue
		}
		if o.code != 0 || !strings.HasPrefix(o.stdout, fmt.Sprintf("added %04d.txt", i+1)) {
			t.Fatalf("context add %s: exit %d\n%s%s", name, o.code, o.stdout, o.stderr)
		}
	}
	w.rooda("context", "add", "addition four, small")
	syscall.Kill(w.recordedPids()[0], syscall.SIGKILL)
	w.wait(s).expect(t, 0,
		"WARN: context added while running, 0003: left out: with the additions before, it is larger than the limit of 17 MiB in all; rooda context clear takes back what was added\n",
		"Iteration 2 receives the context added while running: 0001, 0002, 0004\n")
	second := w.prompt(2)
	for _, want := range []string{"addition one\n", "addition two\n", "addition four, small"} {
		if !strings.Contains(second, want) {
			t.Errorf("prompt 2 lacks %q", want)
		}
	}
	if strings.Contains(second, "addition three") || len(second) > 17<<20 {
		t.Errorf("prompt 2 holds the addition past the bound: %d bytes", len(second))
	}
}
