package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// The end-to-end tests of bounded reads (issue 12, item 4): no file a
// user names, however large or endless, makes rooda read it whole.

// dataLimitKiB caps the data rooda may map in these tests (ulimit -d):
// should a read be unbounded again, rooda dies at 1 GiB instead of
// taking the memory of a machine shared with others.
const dataLimitKiB = 1 << 20

// peakRSSLimit is the most resident memory a refused read may cost: the
// largest limit read once (16 MiB and its buffer) and the runtime, with
// room to spare; reading a file whole would cost gigabytes.
const peakRSSLimit = 200 << 20

// limited is rooda with args in w, under dataLimitKiB.
func (w *workspace) limited(args ...string) *exec.Cmd { return w.limitedTo(dataLimitKiB, args...) }

// limitedTo is rooda with args in w, its data capped at kib KiB.
func (w *workspace) limitedTo(kib int, args ...string) *exec.Cmd {
	w.t.Helper()
	cmd := exec.Command("sh", append([]string{"-c", fmt.Sprintf(`ulimit -d %d && exec "$@"`, kib), "sh", binary(w.t)}, args...)...)
	cmd.Dir, cmd.Env = w.dir, w.env
	return cmd
}

// measuredTo is limitedTo, rooda's peak resident memory written to file
// in KiB (see internal/peakrss); a signal to it reaches peakrss, not
// rooda.
func (w *workspace) measuredTo(kib int, file string, args ...string) *exec.Cmd {
	w.t.Helper()
	peak := filepath.Join(binaries(w.t), "peakrss")
	cmd := exec.Command("sh", append([]string{"-c", fmt.Sprintf(`ulimit -d %d && exec "$@"`, kib), "sh", peak, file, binary(w.t)}, args...)...)
	cmd.Dir, cmd.Env = w.dir, w.env
	return cmd
}

// bounded runs rooda with args in w under dataLimitKiB, and returns how
// it ended and its peak resident memory in bytes.
func (w *workspace) bounded(args ...string) (outcome, int64) {
	w.t.Helper()
	return w.boundedTo(dataLimitKiB, args...)
}

// boundedTo is bounded with the data capped at kib KiB.
func (w *workspace) boundedTo(kib int, args ...string) (outcome, int64) {
	w.t.Helper()
	file := filepath.Join(w.t.TempDir(), "peak")
	o := w.wait(w.start(w.measuredTo(kib, file, args...)))
	kibs, err := strconv.ParseInt(readText(w.t, file), 10, 64)
	if err != nil {
		w.t.Fatalf("rooda's peak memory: %v", err)
	}
	return o, kibs << 10
}

// sparse makes path a sparse file of 3 GiB: all size, no disk.
func sparse(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 3<<30); err != nil {
		t.Fatal(err)
	}
}

// TestEndlessOrHugeInputsAreRefused: /dev/zero and /dev/urandom never
// end, a sparse file of 3 GiB claims its size; as context, fragment,
// script, module, configuration or REPL input each is refused with an
// error naming it and the limit, exit 1, before any agent starts, with
// rooda's memory far below what reading it whole would take.
func TestEndlessOrHugeInputsAreRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		files map[string]string
		args  []string
		out   string // in stdout, when not empty
		want  string // in stderr
	}{{
		name: "context /dev/zero",
		args: []string{"run", "build", "--ai-cmd", "AGENT", "-c", "/dev/zero"},
		want: "Error: cannot run build:\n\ncontext 1: context file /dev/zero: larger than the limit of 16 MiB\n",
	}, {
		name: "context in a dry run",
		args: []string{"run", "build", "--ai-cmd", "AGENT", "--dry-run", "-c", "/dev/zero"},
		out:  "  ✗ context 1: context file /dev/zero: larger than the limit of 16 MiB\n",
		want: "Error: Dry-run validation failed\n",
	}, {
		name: "observe /dev/urandom",
		args: []string{"run", "build", "--ai-cmd", "AGENT", "--observe", "/dev/urandom"},
		want: "Error: cannot run build:\n\nobserve fragment 0 (/dev/urandom): cannot read fragment file /dev/urandom: larger than the limit of 16 MiB\n",
	}, {
		name: "sparse context file",
		args: []string{"run", "build", "--ai-cmd", "AGENT", "-c", "huge.md"},
		want: "Error: cannot run build:\n\ncontext 1: context file huge.md: larger than the limit of 16 MiB\n",
	}, {
		name:  "fragment path in the configuration",
		files: map[string]string{"rooda-config.yml": "procedures:\n  zero:\n    observe:\n      - path: /dev/zero\n"},
		args:  []string{"run", "zero", "--ai-cmd", "AGENT"},
		want:  "observe fragment 0 (/dev/zero): cannot read fragment file /dev/zero: larger than the limit of 16 MiB\n",
	}, {
		name:  "template file",
		files: map[string]string{"rooda-config.yml": "procedures:\n  zero:\n    observe:\n      - path: huge.md\n        parameters: {}\n"},
		args:  []string{"run", "zero", "--ai-cmd", "AGENT"},
		want:  "cannot read fragment file huge.md: larger than the limit of 16 MiB\n",
	}, {
		name:  "load of /dev/zero",
		files: map[string]string{"zero.star": "load(\"/dev/zero\", \"x\")\n"},
		args:  []string{"script", "run", "zero.star", "--ai-cmd", "AGENT"},
		want:  "Error: cannot load /dev/zero: cannot read /dev/zero: larger than the limit of 4 MiB\n",
	}, {
		name:  "a script's fragment",
		files: map[string]string{"zero.star": "f = fragment(\"/dev/zero\")\n"},
		args:  []string{"script", "run", "zero.star", "--ai-cmd", "AGENT"},
		want:  "Error in fragment: cannot read fragment file /dev/zero: larger than the limit of 16 MiB\n",
	}, {
		name: "the script itself",
		args: []string{"script", "run", "huge.md", "--ai-cmd", "AGENT"},
		want: "Error: cannot read huge.md: larger than the limit of 4 MiB\n",
	}, {
		name: "--config /dev/zero",
		args: []string{"--config", "/dev/zero", "run", "build", "--ai-cmd", "AGENT"},
		want: "Error: cannot read workspace config /dev/zero: larger than the limit of 4 MiB\n",
	}, {
		name: "sparse workspace config",
		args: []string{"list"},
		want: "Error: cannot read workspace config ./rooda-config.yml: larger than the limit of 4 MiB\n",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorkspace(t, step{"output": successSignal})
			sparse(t, filepath.Join(w.dir, "huge.md"))
			for name, content := range tc.files {
				w.write(name, content)
			}
			if tc.name == "sparse workspace config" {
				sparse(t, filepath.Join(w.dir, "rooda-config.yml"))
			}
			args := append([]string{}, tc.args...)
			for i, a := range args {
				if a == "AGENT" {
					args[i] = w.aiCmd()
				}
			}
			o, rss := w.bounded(args...)
			if o.code != 1 || !strings.Contains(o.stderr, tc.want) {
				t.Errorf("exit %d, want 1 and stderr with %q; stderr:\n%s", o.code, tc.want, o.stderr)
			}
			if !strings.Contains(o.stdout, tc.out) {
				t.Errorf("stdout lacks %q:\n%s", tc.out, o.stdout)
			}
			if w.ran(1) {
				t.Error("an agent started")
			}
			if rss > peakRSSLimit {
				t.Errorf("rooda's peak memory was %d MiB, above %d MiB", rss>>20, peakRSSLimit>>20)
			}
		})
	}
}

// TestReplInputIsBounded: /dev/zero passes for a terminal (a character
// device) and has no end of line: the session ends with an error rather
// than gather one line for ever.
func TestReplInputIsBounded(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	stdin, err := os.Open("/dev/zero")
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	cmd := w.limited("script", "repl")
	cmd.Stdin = stdin
	o := w.wait(w.start(cmd))
	if want := "Error: read a line of standard input: larger than the limit of 4 MiB\n"; o.code != 1 || !strings.Contains(o.stderr, want) {
		t.Errorf("exit %d, want 1 and %q; stderr:\n%s", o.code, want, o.stderr)
	}
}

// TestRecordsAreBounded: context add refuses an endless file; a
// recorded prompt grown to gigabytes is refused by runs diff; a context
// file put by hand under a running run's record is left out with a
// warning, and the run goes on.
func TestRecordsAreBounded(t *testing.T) {
	t.Parallel()
	// The first iteration waits to be killed, so that the test adds
	// context while it runs.
	w := newWorkspace(t, step{"delay": "60s"}, step{"output": successSignal})
	s := w.start(w.limited("run", "build", "-n", "2", "--ai-cmd", w.aiCmd()))
	w.waitForPids(1)

	if o, _ := w.bounded("context", "add", "/dev/zero"); o.code != 1 || !strings.Contains(o.stderr, "Error: context file /dev/zero: larger than the limit of 16 MiB\n") {
		t.Errorf("context add /dev/zero: exit %d\n%s", o.code, o.stderr)
	}
	runs, err := filepath.Glob(filepath.Join(w.dir, ".rooda", "runs", "*", "run.json"))
	if err != nil || len(runs) != 1 {
		t.Fatalf("the run's record: %v %v", runs, err)
	}
	run := filepath.Dir(runs[0])
	if err := os.MkdirAll(filepath.Join(run, "context"), 0o755); err != nil {
		t.Fatal(err)
	}
	sparse(t, filepath.Join(run, "context", "0001.txt"))
	// End the first iteration now: the agent's failure is counted, and
	// the second iteration reads the context added while running.
	data := readText(t, filepath.Join(w.dir, "pids"))
	var pid int
	fmt.Sscan(data, &pid)
	syscall.Kill(pid, syscall.SIGKILL)
	w.wait(s).expect(t, 0, "WARN: context added while running, 0001: larger than the limit of 17 MiB; left out")
	if second := w.prompt(2); strings.Contains(second, "CONTEXT ADDED WHILE RUNNING") {
		t.Errorf("the refused addition is in the prompt:\n%s", second)
	}

	prompt := filepath.Join(run, "iterations", "0002", "prompt.txt")
	if err := os.Truncate(prompt, 3<<30); err != nil {
		t.Fatal(err)
	}
	o, rss := w.bounded("runs", "diff", "last", "1", "2")
	if want := "larger than the limit of 64 MiB\n"; o.code != 1 || !strings.HasPrefix(o.stderr, "Error: read ") || !strings.HasSuffix(o.stderr, want) {
		t.Errorf("runs diff of a huge prompt: exit %d, want 1 and %q; stderr:\n%s", o.code, want, o.stderr)
	}
	if rss > peakRSSLimit*2 {
		t.Errorf("rooda's peak memory was %d MiB, above %d MiB", rss>>20, peakRSSLimit*2>>20)
	}
}

// TestNamedPipeWithoutWriter: a named pipe no one writes to, given as
// context or fragment, does not block rooda: it is read without waiting,
// gives nothing, and is refused before any agent starts.
func TestNamedPipeWithoutWriter(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": successSignal})
	if err := syscall.Mkfifo(filepath.Join(w.dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.run("build", "-c", "fifo").expect(t, 1, "context 1: context file fifo: a pipe that gave nothing to read; is anything writing to it?\n")
	w.run("build", "--observe", "fifo").expect(t, 1, `Error: --observe "fifo": fragment file fifo: a pipe that gave nothing to read; is anything writing to it?`)
	if w.ran(1) {
		t.Error("an agent started")
	}
}

// TestProcessSubstitution: -c <(cmd) and --observe <(cmd) give the
// agent what cmd printed, although the checks before the run read them
// first: a pipe gives its content once, and rooda keeps it.
func TestProcessSubstitution(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": successSignal})
	var fds []*os.File
	for _, text := range []string{"Context from a pipe.\n", "Observe from a pipe.\n"} {
		r, wr, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		wr.WriteString(text)
		wr.Close()
		fds = append(fds, r)
	}
	cmd := w.command("build", "-n", "1", "-c", "/dev/fd/3", "--observe", "/dev/fd/4")
	cmd.ExtraFiles = fds
	w.wait(w.start(cmd)).expect(t, 0)
	got := w.prompt(1)
	for _, want := range []string{"Source: /dev/fd/3\n\nContext from a pipe.\n", "═\nObserve from a pipe.\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("prompt lacks %q:\n%s", want, got)
		}
	}
}
