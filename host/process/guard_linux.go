package process

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The guard stands in for the death signal of the agents started from a
// confined thread (Command's Confine). The kernel sends a process its
// death signal when the thread that forked it ends, and such a thread,
// inside the agent's Landlock domain, where the agent could signal and
// ptrace it, must end before the agent reads its prompt. So those agents
// start without one, and the guard, a small process rooda starts once,
// outside every agent's domain, kills them if rooda dies first: rooda
// tells it each agent (its pid, start time and cgroup) on a pipe only
// rooda holds, and when rooda dies, however (kill -9, a crash), the
// kernel closes that pipe. The guard then kills each agent's group and
// cgroup, and every process left that carries a tag of that rooda
// (TagVariable): more than the death signal did, which reached the agent
// alone.

// GuardArg is the guard's hidden argument: "PROGRAM… --guard PID START",
// PID and START naming the rooda it guards.
const GuardArg = "--guard"

// guardPrograms are the command lines that run the guard (UseGuard).
var guardPrograms [][]string

// UseGuard names the command lines that run GuardMain, to which rooda's
// pid and start time are added, the first tried first: a confined start
// (Command's Confine) needs one.
func UseGuard(programs ...[]string) { guardPrograms = programs }

// guard is rooda's side: the write end of the guard's pipe.
type guard struct {
	mu   sync.Mutex
	w    *os.File
	gone chan struct{} // closed once the guard has ended and was reaped
	pid  atomic.Int64  // the guard's pid, 0 before it starts: no straggler
	// early counts StartGuard's starts under way, which a dismissal
	// waits for: a guard started after it would be dismissed by none.
	early sync.WaitGroup
}

var theGuard guard

// Each agent is told as three lines, by its tag: "s TAG CGROUP" before
// its fork, "p TAG PID START" once started, "e TAG" once waited for (or
// not started). A rooda killed between the fork and the exec leaves a
// child whose tag is not in its environment yet, and whose pid the guard
// was not told: for such an agent the guard looks for the tag a while,
// and its cgroup, where it has one, holds it from the fork.

// starting tells the guard that p's process is about to start, starting
// a guard first where none runs or the last one is gone (its pipe
// broken): a new one is told of every confined process that runs.
func (g *guard) starting(p *started, running map[int]*started) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	line := p.startingLine()
	if g.w != nil && g.write(line) == nil {
		return nil
	}
	if err := g.start(); err != nil {
		return err
	}
	for _, q := range running {
		if q.guarded() {
			if err := g.write(q.startingLine() + q.startedLine()); err != nil {
				return err
			}
		}
	}
	return g.write(line)
}

// started tells the guard p's pid.
func (g *guard) started(p *started) { g.tell(p.startedLine()) }

// ended tells the guard that p's process was waited for, or never
// started.
func (g *guard) ended(p *started) { g.tell("e " + p.tag + "\n") }

func (g *guard) tell(line string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.w != nil {
		g.write(line)
	}
}

func (g *guard) write(line string) error {
	_, err := g.w.WriteString(line)
	return err
}

func (p *started) startingLine() string {
	return fmt.Sprintf("s %s %s\n", p.tag, p.cgroupDir())
}

func (p *started) startedLine() string {
	pid := p.cmd.Process.Pid
	return fmt.Sprintf("p %s %d %d\n", p.tag, pid, StartTime(pid))
}

func (p *started) cgroupDir() string {
	if p.cgroup == nil {
		return ""
	}
	return p.cgroup.dir
}

// dismiss tells the guard that rooda ends in order, having stopped its
// processes itself: it ends without looking for any, and rooda waits for
// that, a moment, so that nothing of it outlives rooda.
func (g *guard) dismiss() {
	g.early.Wait()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.w == nil {
		return
	}
	g.w.WriteString(".\n")
	g.w.Close()
	g.w = nil
	select {
	case <-g.gone:
	case <-time.After(guardReady):
	}
}

// StartGuard starts the guard in the background, where UseGuard named
// its programs and none runs yet: a command that reads for a while
// before its first process (a resume reading its record) finds it ready
// then, where that start would wait for it. A start that failed is the
// first process's to try again, and to say.
func StartGuard() {
	if len(guardPrograms) == 0 {
		return
	}
	theGuard.early.Add(1)
	go func() {
		defer theGuard.early.Done()
		// Under kin's lock, as a start from startTracked: no look for
		// orphans meets the guard before its pid is known.
		kin.mu.Lock()
		defer kin.mu.Unlock()
		theGuard.mu.Lock()
		defer theGuard.mu.Unlock()
		if theGuard.w == nil {
			theGuard.start()
		}
	}()
}

// start starts the guard: the first of the guard programs that says it
// is ready. An older rooda-sandbox beside a newer rooda knows no guard,
// and says so by exiting; rooda itself does.
func (g *guard) start() error {
	if len(guardPrograms) == 0 {
		return errors.New("no guard program to stop the agent if rooda dies (process.UseGuard)")
	}
	if g.w != nil {
		g.w.Close()
		g.w = nil
	}
	var errs []error
	for _, program := range guardPrograms {
		w, pid, gone, err := startGuard(program)
		if err == nil {
			g.w, g.gone = w, gone
			g.pid.Store(int64(pid))
			return nil
		}
		errs = append(errs, err)
	}
	return fmt.Errorf("the guard that stops the agents if rooda dies: %w", errors.Join(errs...))
}

// guardReady bounds the wait for a guard to say it is ready.
const guardReady = 10 * time.Second

// startGuard starts program as the guard, in a process group of its own
// (a Ctrl+C at the terminal is not for it), its stdin the read end of
// rooda's pipe and its stdout the pipe on which it says it is ready,
// nothing else of rooda's (its stderr is /dev/null, for whoever reads
// rooda's to see it end with rooda), and no tag of rooda's: a rooda that
// an agent runs, and its guard, are not that agent's to stop alike.
func startGuard(program []string) (w *os.File, pid int, gone chan struct{}, err error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, 0, nil, err
	}
	defer r.Close()
	unix.FcntlInt(w.Fd(), unix.F_SETPIPE_SZ, 1<<20) // as much as the kernel gives (drainEvery)
	ready, said, err := os.Pipe()
	if err != nil {
		w.Close()
		return nil, 0, nil, err
	}
	defer ready.Close()
	null, err := os.Open(os.DevNull)
	if err == nil {
		self := os.Getpid()
		argv := append(append([]string{}, program...), strconv.Itoa(self), strconv.FormatUint(StartTime(self), 10))
		pidfd := -1
		pid, err = syscall.ForkExec(argv[0], argv, &syscall.ProcAttr{
			Env:   untagged(os.Environ()),
			Files: []uintptr{r.Fd(), said.Fd(), null.Fd()},
			Sys:   &syscall.SysProcAttr{Setpgid: true, PidFD: &pidfd},
		})
		null.Close()
		if err == nil {
			gone = make(chan struct{})
			go reapGuard(pidfd, gone)
		}
	}
	said.Close()
	if err == nil {
		ready.SetReadDeadline(time.Now().Add(guardReady))
		var line [len(guardSaysReady)]byte
		if _, err = io.ReadFull(ready, line[:]); err == nil && string(line[:]) != guardSaysReady {
			err = fmt.Errorf("it said %q", line)
		}
		if err != nil {
			syscall.Kill(pid, syscall.SIGKILL)
			err = fmt.Errorf("%s is no guard: %w", program[0], err)
		}
	}
	if err != nil {
		w.Close()
		return nil, 0, nil, err
	}
	return w, pid, gone, nil
}

// reapGuard waits for the guard pidfd names to end, and reaps it, so
// that a guard that ended (dismissed, killed, or no guard at all) is no
// zombie of a program that does not reap its orphans (AdoptOrphans).
// Waiting on its pidfd reaps that process alone, never a later one that
// took its pid.
func reapGuard(pidfd int, gone chan<- struct{}) {
	defer close(gone)
	if pidfd < 0 {
		return
	}
	defer unix.Close(pidfd)
	var info unix.Siginfo
	for unix.Waitid(unix.P_PIDFD, pidfd, &info, unix.WEXITED, nil) == unix.EINTR {
	}
}

// guardSaysReady is what the guard prints on its stdout once it ignores
// the signals it must.
const guardSaysReady = "ready\n"

// untagged is env without TagVariable.
func untagged(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(v string) bool { return strings.HasPrefix(v, TagVariable+"=") })
}

// isGuard reports whether pid is the guard: rooda's child, not its
// agents' straggler.
func isGuard(pid int) bool { return pid != 0 && int64(pid) == theGuard.pid.Load() }

// GuardMain is the guard, args rooda's pid and start time: it reads what
// rooda tells it until rooda ends, then stops what rooda left, and
// exits. It ignores the signals a terminal or a "kill" of every rooda
// sends: its work begins when rooda's ends.
func GuardMain(args []string) {
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGTSTP,
		syscall.SIGTTIN, syscall.SIGTTOU, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGPIPE)
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: "+GuardArg+" PID START")
		os.Exit(2)
	}
	os.Stdout.WriteString(guardSaysReady)
	os.Stdout.Close()
	watched, dismissed := readWatched(0)
	if dismissed {
		os.Exit(0)
	}
	unseen := map[string]bool{}
	for tag, a := range watched {
		a.kill()
		if a.pid == 0 {
			unseen[tag] = true
		}
	}
	prefix := args[0] + "." + args[1] + "."
	ours := taggedBy(func(tag string) bool {
		delete(unseen, tag)
		return strings.HasPrefix(tag, prefix)
	})
	closed := make(chan struct{})
	close(closed)
	stopLeft(ours, DefaultGrace, closed)
	// An agent forked as rooda died shows its tag once it has exec'd.
	for deadline := time.Now().Add(forkedUnseen); len(unseen) > 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		stopLeft(ours, DefaultGrace, closed)
	}
	os.Exit(0)
}

// forkedUnseen is how long the guard looks for an agent that rooda forked
// but had not told the pid of: its exec is a matter of milliseconds.
const forkedUnseen = 2 * time.Second

// watchedAgent is an agent the guard was told of.
type watchedAgent struct {
	cgroup string
	pid    int // 0 until rooda says it started
	start  uint64
}

// kill kills the agent's cgroup's processes, and its group, where the
// agent is still the one told of (its pid not taken since).
func (a watchedAgent) kill() {
	if a.cgroup != "" {
		os.WriteFile(filepath.Join(a.cgroup, "cgroup.kill"), []byte("1"), 0)
	}
	if a.pid != 0 && StartTime(a.pid) == a.start {
		syscall.Kill(-a.pid, syscall.SIGKILL)
		syscall.Kill(a.pid, syscall.SIGKILL)
	}
}

// readWatched reads rooda's lines until the pipe closes: the agents
// still running then, by tag, and whether rooda dismissed the guard.
func readWatched(fd int) (map[string]watchedAgent, bool) {
	watched := map[string]watchedAgent{}
	var pending []byte
	for data := range drained(fd) {
		pending = append(pending, data...)
		for {
			line, rest, ok := bytes.Cut(pending, []byte{'\n'})
			if !ok {
				break
			}
			pending = rest
			if watch(watched, fieldsOf(string(line))) {
				return nil, true
			}
		}
	}
	return watched, false
}

// fieldsOf are the fields of one of rooda's lines: an "s" line's third,
// a cgroup's path, whole, spaces and all.
func fieldsOf(line string) []string {
	if strings.HasPrefix(line, "s ") {
		return strings.SplitN(line, " ", 3)
	}
	return strings.Split(line, " ")
}

// watch applies one of rooda's lines to watched, and reports whether it
// dismissed the guard.
func watch(watched map[string]watchedAgent, fields []string) (dismissed bool) {
	switch {
	case fields[0] == ".":
		return true
	case fields[0] == "s" && len(fields) == 3: // the cgroup's path last: it may hold spaces
		watched[fields[1]] = watchedAgent{cgroup: fields[2]}
	case fields[0] == "p" && len(fields) == 4:
		a := watched[fields[1]]
		a.pid, _ = strconv.Atoi(fields[2])
		a.start, _ = strconv.ParseUint(fields[3], 10, 64)
		watched[fields[1]] = a
	case fields[0] == "e" && len(fields) == 2:
		delete(watched, fields[1])
	}
	return false
}

// drainEvery is how often the guard empties its pipe. It does not wake
// for each line (three an iteration, each a wake-up and a switch: 3.9%
// of a quick loop's CPU samples in perf, 0.35% since), only for the
// pipe's close and at this pace; rooda's end of the pipe holds a
// megabyte, some 5,000 iterations' lines.
const drainEvery = 500 * time.Millisecond

// drained yields what the pipe fd holds, at drainEvery and when its
// writer is gone, until it is empty and closed.
func drained(fd int) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		unix.SetNonblock(fd, true)
		buf := make([]byte, 64<<10)
		for {
			// No event asked: poll returns on the close (POLLHUP) or the
			// timeout, not on data.
			fds := []unix.PollFd{{Fd: int32(fd)}}
			unix.Poll(fds, int(drainEvery/time.Millisecond))
			for {
				n, err := unix.Read(fd, buf)
				if n > 0 && !yield(buf[:n]) {
					return
				}
				if n == 0 && err == nil {
					return // closed, and empty
				}
				if err == unix.EAGAIN {
					break // empty for now
				}
				if err != nil && err != unix.EINTR {
					return // no pipe to read: as if closed
				}
			}
		}
	}
}
