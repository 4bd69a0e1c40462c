package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// Command is one run of an agent.
type Command struct {
	Argv   []string
	Dir    string   // "" is the current directory
	Env    []string // added to rooda's own environment
	Prompt string   // written to stdin, which is then closed
	// Timeout of 0 means none.
	Timeout time.Duration
	// Grace is how long the process group has after SIGTERM before
	// SIGKILL; 0 means DefaultGrace.
	Grace time.Duration
	// MaxOutput is how many bytes of output to keep, the most recent.
	MaxOutput int
	// Stream, when set, also receives the output as it arrives.
	Stream io.Writer
	// Kill, when closed, ends the grace period at once: a second Ctrl+C.
	Kill <-chan struct{}
}

// DefaultGrace is the time between SIGTERM and SIGKILL.
const DefaultGrace = 5 * time.Second

// drainTime bounds how long output is still read after the agent and its
// group are gone: a writer that escaped the group cannot hold rooda.
const drainTime = 200 * time.Millisecond

// Result is what one run produced.
type Result struct {
	Output   []byte // the kept tail of stdout and stderr, interleaved
	Total    int64  // bytes the agent wrote
	Dropped  int64  // bytes not kept
	ExitCode int    // 128+N when killed by signal N
	Signal   string // "SIGSEGV" when a signal ended the agent, else ""
	TimedOut bool
	// Interrupted is set when ctx ended the run.
	Interrupted bool
	// Killed is set when the agent or a process it left did not stop on
	// SIGTERM within the grace period (or a second interrupt came) and
	// was sent SIGKILL.
	Killed   bool
	Duration time.Duration
	// PID is the agent's process id, which is also its process group id.
	PID int
}

// Run starts the agent and waits for it, its group and its output. The
// error is only for an agent that could not start; everything that
// happens after is in the Result. Cancelling ctx stops the group: SIGTERM,
// then SIGKILL after the grace period.
func Run(ctx context.Context, c Command) (Result, error) {
	if len(c.Argv) == 0 {
		return Result{}, errors.New("no command to run")
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return Result{}, err
	}
	defer outR.Close()
	widenPipe(outR)
	inR, inW, err := os.Pipe()
	if err != nil {
		outW.Close()
		return Result{}, err
	}
	cmd := exec.Command(c.Argv[0], c.Argv[1:]...)
	cmd.Dir, cmd.Env = c.Dir, append(os.Environ(), c.Env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, outW
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	adoptOrphans()
	start := time.Now()
	err = cmd.Start()
	inR.Close()
	outW.Close() // the agent holds the only write ends now
	if err != nil {
		inW.Close()
		return Result{}, fmt.Errorf("cannot start the agent: %w", err)
	}
	go feed(inW, c.Prompt)
	ring := NewRing(c.MaxOutput)
	read := make(chan struct{})
	go capture(outR, ring, c.Stream, read)

	res := Result{PID: cmd.Process.Pid}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-exited:
	case <-after(c.Timeout):
		res.TimedOut = true
		res.Killed = stop(cmd.Process.Pid, exited, c)
	case <-ctx.Done():
		res.Interrupted = true
		res.Killed = stop(cmd.Process.Pid, exited, c)
	}
	res.Duration = time.Since(start)
	if cleanup(cmd.Process.Pid, c) {
		res.Killed = true
	}
	outR.SetReadDeadline(time.Now().Add(drainTime))
	<-read
	res.Output, res.Total, res.Dropped = ring.Bytes(), ring.Total(), ring.Dropped()
	res.ExitCode, res.Signal = status(cmd.ProcessState)
	return res, nil
}

// feed writes the prompt and closes stdin, so the agent sees its end. An
// agent that exits without reading makes the write fail; that is fine.
func feed(w *os.File, prompt string) {
	io.WriteString(w, prompt)
	w.Close()
}

func capture(r io.Reader, ring *Ring, stream io.Writer, done chan<- struct{}) {
	defer close(done)
	ring.fill(r, stream)
}

func after(d time.Duration) <-chan time.Time {
	if d <= 0 {
		return nil
	}
	return time.After(d)
}

// stop ends the agent's group: SIGTERM, then SIGKILL when the grace
// period passes or Kill is closed; it returns once the agent has exited,
// and whether SIGKILL was needed.
func stop(pgid int, exited <-chan error, c Command) bool {
	syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-exited:
		return false
	case <-time.After(grace(c)):
	case <-c.Kill:
	}
	syscall.Kill(-pgid, syscall.SIGKILL)
	<-exited
	return true
}

// cleanup stops what the agent left running in its group after it exited
// (background children must not outlive the iteration) and returns once
// the group is gone, or a grace period after SIGKILL at the latest; it
// reports whether SIGKILL was needed.
func cleanup(pgid int, c Command) bool {
	if gone(pgid) {
		return false
	}
	syscall.Kill(-pgid, syscall.SIGTERM)
	if waitGone(pgid, grace(c), c.Kill) {
		return false
	}
	syscall.Kill(-pgid, syscall.SIGKILL)
	waitGone(pgid, grace(c), nil)
	return true
}

// gone reaps what it can of the group and reports whether none is left.
func gone(pgid int) bool {
	reap(pgid)
	return syscall.Kill(-pgid, 0) == syscall.ESRCH
}

// waitGone polls until the group is gone (true), or until limit passes or
// kill is closed (false).
func waitGone(pgid int, limit time.Duration, kill <-chan struct{}) bool {
	deadline := time.After(limit)
	for !gone(pgid) {
		select {
		case <-deadline:
			return false
		case <-kill:
			return false
		case <-time.After(5 * time.Millisecond):
		}
	}
	return true
}

func grace(c Command) time.Duration {
	if c.Grace > 0 {
		return c.Grace
	}
	return DefaultGrace
}

// status turns how the agent ended into an exit code and a signal name.
func status(ps *os.ProcessState) (int, string) {
	if ps == nil {
		return -1, ""
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), SignalName(ws.Signal())
	}
	return ps.ExitCode(), ""
}

var signalNames = map[syscall.Signal]string{
	syscall.SIGHUP: "SIGHUP", syscall.SIGINT: "SIGINT", syscall.SIGQUIT: "SIGQUIT", syscall.SIGILL: "SIGILL",
	syscall.SIGTRAP: "SIGTRAP", syscall.SIGABRT: "SIGABRT", syscall.SIGBUS: "SIGBUS", syscall.SIGFPE: "SIGFPE",
	syscall.SIGKILL: "SIGKILL", syscall.SIGUSR1: "SIGUSR1", syscall.SIGSEGV: "SIGSEGV", syscall.SIGUSR2: "SIGUSR2",
	syscall.SIGPIPE: "SIGPIPE", syscall.SIGALRM: "SIGALRM", syscall.SIGTERM: "SIGTERM", syscall.SIGXCPU: "SIGXCPU",
}

// SignalName is the conventional name of a signal: "SIGSEGV".
func SignalName(s syscall.Signal) string {
	if name, ok := signalNames[s]; ok {
		return name
	}
	return fmt.Sprintf("signal %d", int(s))
}
