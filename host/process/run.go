package process

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
	// Timeout of 0 means none. Neither it nor IdleTimeout counts the time
	// the agent spent stopped with rooda (Suspend).
	Timeout time.Duration
	// IdleTimeout stops the agent as Timeout does once it has written
	// nothing, on stdout or stderr, for that long; 0 means never.
	IdleTimeout time.Duration
	// Grace is how long the process group has after SIGTERM before
	// SIGKILL; 0 means DefaultGrace.
	Grace time.Duration
	// MaxOutput is how many bytes of output to keep, the most recent.
	MaxOutput int
	// Stream, when set, also receives the output as it arrives.
	Stream io.Writer
	// Kill, when closed, ends the grace period at once: a second Ctrl+C.
	Kill <-chan struct{}
	// Stop, when closed, stops the agent as Timeout does: its caller,
	// reading its output, saw that it cannot succeed or waits too long.
	Stop <-chan struct{}
	// DiscardStderr sends stderr to /dev/null: a caller that parses the
	// output (git's lists) must find no warning among its entries.
	DiscardStderr bool
	// Attr, when set, adds to the attributes the process starts with:
	// the namespaces a sandbox needs (host/sandbox).
	Attr func(*syscall.SysProcAttr)
	// ExtraFiles are inherited by the process as descriptors 3, 4, …:
	// the sandbox's socket for handing its listeners to rooda, which no
	// other process may reach (host/sandbox).
	ExtraFiles []*os.File
	// Confine, when set, confines the thread that starts the process,
	// which inherits it at its fork (a sandbox that needs no trampoline:
	// host/sandbox). That thread serves nothing else and ends as soon as
	// the process has started, so the process has no death signal (it
	// would come with that end): the guard (UseGuard) kills it if rooda
	// dies.
	Confine func() error
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
	// Idle is set when the agent was stopped after IdleTimeout without
	// output.
	Idle bool
	// Interrupted is set when ctx ended the run.
	Interrupted bool
	// Stopped is set when the agent was stopped because Stop was closed.
	Stopped bool
	// Killed is set when the agent or a process it left did not stop on
	// SIGTERM within the grace period (or a second interrupt came) and
	// was sent SIGKILL.
	Killed bool
	// Abandoned is set when the agent did not end even after SIGKILL (a
	// process stuck in the kernel): rooda went on without it.
	Abandoned bool
	Duration  time.Duration
	// PID is the agent's process id, which is also its process group id.
	PID int
	// Escaped are the processes the agent started that had left its
	// process group (setsid, a daemon's double fork) and were still
	// running when the group was gone; rooda stopped them too.
	Escaped []Found
	// EscapedSurvived is set when some of them did not end even after
	// SIGKILL.
	EscapedSurvived bool
	// Contained is set when the agent ran in a cgroup of its own, which
	// held every process it started: none could have been missed.
	Contained bool
}

// Run starts the agent and waits for it, its group and its output. The
// error is only for an agent that could not start; everything that
// happens after is in the Result. Cancelling ctx stops the group: SIGTERM,
// then SIGKILL after the grace period.
func Run(ctx context.Context, c Command) (Result, error) {
	if len(c.Argv) == 0 {
		return Result{}, errors.New("no command to run")
	}
	if ctx.Err() != nil {
		// Interrupted before it began: start nothing that must then be stopped.
		return Result{Interrupted: true, ExitCode: -1}, nil
	}
	p, err := start(c)
	if err != nil {
		return Result{}, err
	}
	res := p.wait(ctx, c)
	p.stopEscaped(&res, c)
	p.collect(&res, c)
	if p.guarded() {
		// Only now: its group is stopped, its cgroup emptied.
		theGuard.ended(p)
	}
	return res, nil
}

// started is one started process and the goroutines that serve it.
type started struct {
	cmd     *exec.Cmd
	out     *capture
	exited  chan error
	began   time.Time
	idle    *watchdog    // reset by every read of the output
	limit   *deadline    // Command.Timeout
	tag     string       // TagVariable's value in its environment
	cgroup  *cgroup      // nil where rooda has no cgroups
	confine func() error // Command's Confine
}

// start starts the agent in a session and process group of its own, with
// the prompt on its stdin and its stdout and stderr on one pipe that
// rooda reads.
func start(c Command) (*started, error) {
	outR, outW, err := outputPipe()
	if err != nil {
		return nil, err
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, err
	}
	p := &started{tag: kin.newTag(), cgroup: newCgroup(), confine: c.Confine}
	if p.cgroup == nil {
		stopStaleTagged()
	}
	becomeSubreaper()
	startReaper()
	// The clocks run before the agent does, so that a Ctrl+Z as it starts
	// (Suspend) finds them to stop.
	p.began = time.Now()
	p.idle, p.limit = newWatchdog(c.IdleTimeout), newDeadline(c.Timeout)
	err = p.start(c, inR, outW)
	inR.Close()
	outW.Close() // the agent holds the only write ends now
	if err != nil {
		p.idle.stop()
		p.limit.stop()
		inW.Close()
		outR.Close()
		return nil, err
	}
	p.exited = make(chan error, 1)
	p.out = newCapture(outR, NewRing(c.MaxOutput), p.idle, c.Stream)
	go feed(inW, c.Prompt)
	go p.out.run()
	go func() {
		err := waitExit(p.cmd)
		kin.forget(p)
		// An orphan's exit may have come with the agent's, whose signal
		// the reaper leaves to this wait (reapOnSignal).
		kin.reapOrphans()
		p.exited <- err
	}()
	return p, nil
}

// start starts the command, in the agent's cgroup if it has one. A
// kernel that refuses to start it there (no clone3, no write access to
// the cgroup's parent) gets it started without, and rooda does without
// cgroups from then on; but first, where the cgroup refused was one kept
// from an agent before, in a new one.
func (p *started) start(c Command, stdin, stdout *os.File) error {
	p.cmd = command(c, p.tag, p.cgroup, stdin, stdout)
	err := kin.startTracked(p)
	if err != nil && p.cgroup != nil && p.cgroup.spared && p.cmd.Err == nil {
		p.cgroup.remove()
		dropSpares()
		p.cgroup = newCgroup()
		p.cmd = command(c, p.tag, p.cgroup, stdin, stdout)
		err = kin.startTracked(p)
	}
	if err != nil && p.cgroup != nil && p.cmd.Err == nil {
		// Found and refused: the cgroup is what the kernel refused.
		p.dropCgroup()
		p.cmd = command(c, p.tag, nil, stdin, stdout)
		if err = kin.startTracked(p); err == nil {
			cgroupsOff.Store(true)
		}
	}
	if err != nil && p.cgroup != nil {
		p.dropCgroup()
	}
	return err
}

func (p *started) dropCgroup() {
	p.cgroup.unused()
	p.cgroup = nil
}

// command is the agent's command line with its environment and tag, its
// stdin and its output.
func command(c Command, tag string, g *cgroup, stdin, stdout *os.File) *exec.Cmd {
	cmd := exec.Command(c.Argv[0], c.Argv[1:]...)
	cmd.Dir, cmd.Env = c.Dir, append(append(os.Environ(), c.Env...), TagVariable+"="+tag)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stdout
	if c.DiscardStderr {
		cmd.Stderr = nil // os/exec's /dev/null
	}
	cmd.ExtraFiles = c.ExtraFiles
	cmd.SysProcAttr = sysProcAttr(g, c.Confine == nil)
	if c.Attr != nil {
		c.Attr(cmd.SysProcAttr)
	}
	return cmd
}

// wait waits for the agent to exit, or stops its group on timeout or when
// ctx ends, then stops whatever it left running.
func (p *started) wait(ctx context.Context, c Command) Result {
	res := Result{PID: p.cmd.Process.Pid}
	ended := true
	select {
	case <-p.exited:
	case <-p.limit.passed():
		res.TimedOut = true
		res.Killed, ended = stop(res.PID, p.exited, c)
	case <-p.idle.fired():
		res.Idle = true
		res.Killed, ended = stop(res.PID, p.exited, c)
	case <-c.Stop:
		res.Stopped = true
		res.Killed, ended = stop(res.PID, p.exited, c)
	case <-ctx.Done():
		res.Interrupted = true
		res.Killed, ended = stop(res.PID, p.exited, c)
	}
	p.idle.stop()
	p.limit.stop()
	res.Duration = time.Since(p.began)
	res.Abandoned = !ended
	if cleanup(res.PID, c) {
		res.Killed = true
	}
	return res
}

// stopEscaped stops what the agent started outside its group, once the
// group is gone: rooda promises that nothing an iteration started
// outlives it, and says so only when it is true.
func (p *started) stopEscaped(res *Result, c Command) {
	var killed bool
	res.Escaped, killed, res.EscapedSurvived = stopLeft(p.leftovers(), grace(c), c.Kill)
	res.Killed = res.Killed || killed
	if p.cgroup == nil {
		return
	}
	res.Contained = !res.EscapedSurvived
	if ps := p.cmd.ProcessState; ps != nil && ps.Exited() && !res.Abandoned && len(res.Escaped) == 0 {
		p.cgroup.release()
	} else {
		p.cgroup.remove()
	}
}

// leftovers finds what the agent left once its group is gone: by its
// cgroup, which holds them all, else by its tag.
func (p *started) leftovers() leftovers {
	if p.cgroup != nil {
		return p.cgroup
	}
	return byTag(p.tag)
}

// collect reads the rest of the output and fills in how the agent ended.
func (p *started) collect(res *Result, c Command) {
	res.Output, res.Total, res.Dropped = p.out.finish(grace(c))
	if res.Abandoned {
		res.ExitCode = -1
		return
	}
	res.ExitCode, res.Signal = status(p.cmd.ProcessState)
}

// feed writes the prompt and closes stdin, so the agent sees its end. An
// agent that exits without reading makes the write fail; that is fine.
func feed(w *os.File, prompt string) {
	io.WriteString(w, prompt)
	w.Close()
}

// stop ends the agent's group: SIGTERM, then SIGKILL when the grace
// period passes or Kill is closed. It reports whether SIGKILL was needed
// and whether the agent ended, which one stuck in the kernel may not do
// even then: rooda waits one more grace period for it, no longer.
func stop(pgid int, exited <-chan error, c Command) (killed, ended bool) {
	terminate(pgid)
	select {
	case <-exited:
		return false, true
	case <-time.After(grace(c)):
	case <-c.Kill:
	}
	syscall.Kill(-pgid, syscall.SIGKILL)
	select {
	case <-exited:
		return true, true
	case <-time.After(grace(c)):
		return true, false
	}
}

// terminate sends the group SIGTERM, and SIGCONT so that a process
// stopped (by SIGTTIN, reading the terminal from its background group)
// sees it.
func terminate(pgid int) {
	syscall.Kill(-pgid, syscall.SIGTERM)
	syscall.Kill(-pgid, syscall.SIGCONT)
}

// cleanup stops what the agent left running in its group after it exited
// (background children must not outlive the iteration) and returns once
// the group is gone, or a grace period after SIGKILL at the latest; it
// reports whether SIGKILL was needed.
func cleanup(pgid int, c Command) bool {
	if gone(pgid) {
		return false
	}
	terminate(pgid)
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

// waitGone waits until the group is gone (true), or until limit passes or
// kill is closed (false).
func waitGone(pgid int, limit time.Duration, kill <-chan struct{}) bool {
	return waitFor(func() bool { return gone(pgid) }, limit, kill)
}

// waitFor polls done until it holds (true), or until limit passes or
// stop is closed (false).
func waitFor(done func() bool, limit time.Duration, stop <-chan struct{}) bool {
	deadline := time.After(limit)
	for !done() {
		select {
		case <-deadline:
			return false
		case <-stop:
			return false
		case <-time.After(10 * time.Millisecond):
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
