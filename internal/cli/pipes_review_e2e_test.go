package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// The end-to-end tests of the review of pipes and did-you-mean (issue 12,
// after items 4 and 11): a pipe whose writer never writes does not hold
// rooda past Ctrl+C, an empty pipe is refused wherever a file is read,
// and a misspelt ROODA_LOOP_ variable gets the key a person meant.

// mkfifo makes the named pipe name in w.
func (w *workspace) mkfifo(name string) string {
	w.t.Helper()
	path := filepath.Join(w.dir, name)
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		w.t.Fatal(err)
	}
	return path
}

// silentWriter starts a process that holds fifo open for writing and
// writes nothing, as `sleep 600 > fifo &` would; it is killed when the
// test ends. The test opens the pipe read-write first, which does not
// wait for a reader, so the writer holds it before rooda starts: rooda's
// read then waits for data instead of finding no writer.
func silentWriter(t *testing.T, fifo string) {
	t.Helper()
	f, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	writer := exec.Command("sleep", "600")
	writer.Stdout = f
	if err := writer.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		writer.Process.Kill()
		writer.Wait()
	})
}

// waitUntilOpen waits until the process pid has path open: then it is
// reading it, or about to.
func waitUntilOpen(t *testing.T, pid int, path string) {
	t.Helper()
	fdDir := "/proc/" + strconv.Itoa(pid) + "/fd"
	deadline := time.Now().Add(hangGuard)
	for time.Now().Before(deadline) {
		entries, _ := os.ReadDir(fdDir)
		for _, e := range entries {
			if target, _ := os.Readlink(filepath.Join(fdDir, e.Name())); target == path {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("rooda never opened %s", path)
}

// TestSilentPipeInterrupted: a context pipe whose writer holds it open
// and writes nothing keeps the checks waiting; the first Ctrl+C ends the
// wait, and the run, as an interrupt: exit 130, no agent started.
func TestSilentPipeInterrupted(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": successSignal})
	fifo := w.mkfifo("fifo")
	silentWriter(t, fifo)
	s := w.start(w.command("build", "-n", "1", "-c", "fifo"))
	waitUntilOpen(t, s.cmd.Process.Pid, fifo)
	s.cmd.Process.Signal(syscall.SIGINT)
	o := w.wait(s)
	o.expect(t, 130, "Error: interrupted by SIGINT\n")
	if w.ran(1) {
		t.Error("an agent started")
	}
}

// TestSilentPipeInterruptsScript: the same for a script's iterate(),
// whose context pipe is read when the loop is planned.
func TestSilentPipeInterruptsScript(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": successSignal})
	fifo := w.mkfifo("fifo")
	silentWriter(t, fifo)
	w.write("main.star", `
p = compose("piped", act = [fragment(content = "Do one step.")])
iterate(p, max_iterations = 1, context = [file("fifo")])
`)
	cmd := exec.Command(binary(t), "script", "run", "main.star", "--ai-cmd", w.aiCmd())
	cmd.Dir, cmd.Env = w.dir, w.env
	s := w.start(cmd)
	waitUntilOpen(t, s.cmd.Process.Pid, fifo)
	s.cmd.Process.Signal(syscall.SIGINT)
	w.wait(s).expect(t, 130, "interrupted by SIGINT")
	if w.ran(1) {
		t.Error("an agent started")
	}
}

// TestSilentScriptPipeInterrupted: a script that is itself a pipe whose
// writer writes nothing is read under the interrupt's watch too.
func TestSilentScriptPipeInterrupted(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	fifo := w.mkfifo("main.star")
	silentWriter(t, fifo)
	cmd := exec.Command(binary(t), "script", "run", "main.star")
	cmd.Dir, cmd.Env = w.dir, w.env
	s := w.start(cmd)
	waitUntilOpen(t, s.cmd.Process.Pid, fifo)
	s.cmd.Process.Signal(syscall.SIGINT)
	w.wait(s).expect(t, 130, "Error: cannot read main.star: stopped waiting for its writer: SIGINT\n")
}

// TestEmptyPipeRefusedEverywhere: a named pipe no one writes to gives
// nothing; as --config or as a script it is refused, as it is for context
// and fragments, instead of being read as an empty file. An empty regular
// file stays valid.
func TestEmptyPipeRefusedEverywhere(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": successSignal})
	w.mkfifo("fifo")
	const empty = "a pipe that gave nothing to read; is anything writing to it?\n"
	o := roodaIn(t, w.dir, nil, "--config", "fifo", "config", "show")
	if want := "Error: cannot read workspace config ./fifo: " + empty; o.code != 1 || o.stderr != want {
		t.Errorf("--config fifo: exit %d, stderr:\n%s\nwant:\n%s", o.code, o.stderr, want)
	}
	o = w.runScript("fifo")
	if want := "Error: cannot read fifo: " + empty; o.code != 1 || o.stderr != want {
		t.Errorf("script run fifo: exit %d, stdout:\n%s\nstderr:\n%s\nwant:\n%s", o.code, o.stdout, o.stderr, want)
	}

	w.write("empty.yml", "")
	w.write("empty.star", "")
	if o := roodaIn(t, w.dir, nil, "--config", "empty.yml", "config", "show"); o.code != 0 {
		t.Errorf("--config of an empty file: exit %d, stderr:\n%s", o.code, o.stderr)
	}
	if o := w.runScript("empty.star"); o.code != 0 {
		t.Errorf("an empty script file: exit %d, stderr:\n%s", o.code, o.stderr)
	}
}

// TestLoopVariableTypoInsideAWord: a typo inside a word of a ROODA_LOOP_
// variable is matched word by word: MAX_ITERATON means the default
// maximum, not the minimum.
func TestLoopVariableTypoInsideAWord(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{})
	o := roodaIn(t, w.dir, []string{"ROODA_LOOP_MAX_ITERATON=3"}, "config", "show")
	want := "Error: ROODA_LOOP_MAX_ITERATON is not a rooda setting (did you mean ROODA_LOOP_DEFAULT_MAX_ITERATIONS?)\n"
	if o.code != 1 || o.stderr != want {
		t.Errorf("exit %d, stderr:\n%s\nwant:\n%s", o.code, o.stderr, want)
	}
}
