package process

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// reapOrphans collects the zombies among rooda's children that os/exec
// is not waiting for: adopted orphans that exited.
func (f *family) reapOrphans() {
	if !adopting.Load() {
		return
	}
	if _, ok := zombieChild(); ok {
		f.reapAdopted()
	}
}

// reapAdopted waits for the adopted children that are zombies.
func (f *family) reapAdopted() {
	adoptedListings.Add(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range f.adopted() {
		if p.state == 'Z' {
			var ws syscall.WaitStatus
			syscall.Wait4(p.pid, &ws, syscall.WNOHANG, nil)
		}
	}
}

// reapOnSignal is reapOrphans on SIGCHLD, which every agent's exit
// sends: when the child that exited is an agent os/exec waits for, it
// lists no children (a tenth of a millisecond an iteration), for once
// os/exec has waited for that agent, reapOrphans looks again (start).
func (f *family) reapOnSignal() {
	pid, ok := zombieChild()
	if !ok || !adopting.Load() {
		return
	}
	f.mu.Lock()
	agent := f.started[pid] != nil
	f.mu.Unlock()
	if !agent {
		f.reapAdopted()
	}
}

// zombieChild is a child of rooda that has exited and not been waited
// for, found without waiting for it: with none, the rule at the end of
// every iteration, there is nothing to reap and the children need not be
// listed.
func zombieChild() (pid int, ok bool) {
	const pAll = 0
	pid, exited, _ := exitedUnwaited(pAll, 0)
	return pid, exited
}

// adoptedListings counts the listings of rooda's children by the reaper,
// each a read per thread of rooda.
var adoptedListings atomic.Int64

// childInfo is waitid's siginfo_t as it names a child (si_pid): its
// union is pointer-aligned, and it is at least the kernel's 128 bytes.
// unix.Siginfo hides the pid.
type childInfo struct {
	signo, errno, code int32
	_                  [unsafe.Sizeof(uintptr(0)) - 4]byte
	pid                int32
	_                  [112]byte
}

// exitedUnwaited reports whether the child that idType and id name (waitid's
// P_ALL, P_PIDFD) has exited and not been waited for, without waiting for
// it (WNOWAIT), so that os/exec still takes its exit status, and its pid;
// and why waitid failed, if it did (ECHILD: none is left to wait for).
func exitedUnwaited(idType, id int) (pid int, exited bool, errno syscall.Errno) {
	var info childInfo
	err := unix.Waitid(idType, id, (*unix.Siginfo)(unsafe.Pointer(&info)), unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
	if err != nil {
		errno, _ := err.(syscall.Errno)
		return 0, false, errno
	}
	// With WNOHANG and no child waitable, Linux leaves si_signo 0.
	return int(info.pid), info.signo == int32(unix.SIGCHLD), 0
}

// adopted are rooda's children that it did not start, zombies included;
// f.mu is held. Every process that escaped an agent's group descends
// from one of them, since its lineage up to the agent is broken.
func (f *family) adopted() []proc {
	if _, _, errno := exitedUnwaited(unix.P_ALL, 0); errno == syscall.ECHILD {
		return nil // no child at all, as for most commands: nothing to list
	}
	var list []proc
	for _, p := range children() {
		// The guard is no straggler; once dead, it is reaped as one.
		if f.started[p.pid] == nil && (!isGuard(p.pid) || p.state == 'Z') {
			list = append(list, p)
		}
	}
	return list
}

// children are rooda's child processes. The kernel lists them per thread
// (/proc/self/task/*/children), a few reads where a scan of /proc takes
// hundreds; without that list, /proc is scanned.
func children() []proc {
	tasks := threads()
	if len(tasks) == 0 {
		return childrenOf(os.Getpid(), processes())
	}
	var list []proc
	for _, task := range tasks {
		data, err := os.ReadFile("/proc/self/task/" + task + "/children")
		if errors.Is(err, fs.ErrNotExist) && task == tasks[0] {
			return childrenOf(os.Getpid(), processes()) // a kernel without the lists
		}
		for _, field := range strings.Fields(string(data)) {
			pid, _ := strconv.Atoi(field)
			if p, ok := readStat(pid); ok {
				list = append(list, p)
			}
		}
	}
	return list
}

// threads are the ids of rooda's threads, read from /proc/self/task: one
// directory read, where a glob of their children files opens every
// thread's directory too.
func threads() []string {
	dir, err := os.Open("/proc/self/task")
	if err != nil {
		return nil
	}
	defer dir.Close()
	names, _ := dir.Readdirnames(-1)
	return names
}

func childrenOf(parent int, all []proc) []proc {
	var list []proc
	for _, p := range all {
		if p.ppid == parent {
			list = append(list, p)
		}
	}
	return list
}

var (
	subreaper, reaper sync.Once
	// adopting is set while rooda reaps every orphan it adopts.
	adopting atomic.Bool
)

// becomeSubreaper makes rooda the parent of its agents' orphans (Linux's
// PR_SET_CHILD_SUBREAPER): a background child whose parent exited is
// then rooda's to wait for and to stop, so "everything the agent started
// is gone" can be known exactly rather than guessed while a slow init
// reaps it.
func becomeSubreaper() {
	subreaper.Do(func() {
		const prSetChildSubreaper = 36
		syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	})
}

// AdoptOrphans has rooda reap every orphan it adopts as it exits, not
// only the members of an agent's group when the agent ends: an orphan
// that moved to a session of its own and exits later would otherwise
// stay a zombie, and a long run would pile them up.
//
// The reaper takes every exited child that this package did not start,
// so only a program that starts its processes through Run may call it:
// rooda's main does; a test that starts others with os/exec must not.
// It starts with the first process rooda starts (startReaper).
func AdoptOrphans() {
	becomeSubreaper()
	adopting.Store(true)
}

// reaping is set once the reaper waits for SIGCHLD.
var reaping atomic.Bool

// startReaper starts the reaper that AdoptOrphans asked for, before the
// first process rooda starts: no orphan can come before it. A command
// that starts none (rooda list, script check) does without: catching a
// signal has Go's runtime start and wait for a thread of its own, about
// 0.4 ms of such a start (docs/performance.md).
func startReaper() {
	if !adopting.Load() {
		return
	}
	reaper.Do(func() {
		exits := make(chan os.Signal, 1)
		signal.Notify(exits, syscall.SIGCHLD)
		reaping.Store(true)
		go func() {
			for range exits {
				kin.reapOnSignal()
			}
		}()
	})
}

// stopAdopting undoes AdoptOrphans, for tests.
func stopAdopting() { adopting.Store(false) }

// reap collects the exited members of the agent's group that rooda
// adopted, and with AdoptOrphans every other orphan.
func reap(pgid int) {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-pgid, &ws, syscall.WNOHANG, nil)
		if pid <= 0 || err != nil {
			break
		}
	}
	kin.reapOrphans()
}

// sysProcAttr puts the agent in a session of its own, which makes it the
// leader of a process group of its own, and in its cgroup if it has one,
// and has the kernel kill it if rooda dies first (kill -9, a crash): an
// agent never goes on spending without the loop that started it.
//
// A session of its own has no controlling terminal: what the agent runs
// that asks the terminal (a git credential prompt, ssh, sudo) fails at
// once opening /dev/tty (ENXIO), with an error the agent prints and the
// record keeps, where in rooda's session it would be stopped by SIGTTIN,
// reading from a background group, until a timeout.
//
// A process started from a confined thread gets no death signal
// (deathSignal false): the guard stands in for it (guard_linux.go).
func sysProcAttr(g *cgroup, deathSignal bool) *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Setsid: true}
	if deathSignal {
		attr.Pdeathsig = syscall.SIGKILL
	}
	if g != nil {
		attr.UseCgroupFD, attr.CgroupFD = true, g.fd
	}
	return attr
}

// proc is what /proc/PID/stat says of a process.
type proc struct {
	pid, ppid int
	state     byte
	name      string
	// start is when the process started, in clock ticks since boot: with
	// the pid, it names one process, as a pid alone, reused, does not.
	start uint64
}

// StartTime is when process pid started, in clock ticks since boot, or 0
// if that cannot be read (the process is gone). Told with the pid, a
// later process given the same pid is not taken for the one recorded.
func StartTime(pid int) uint64 {
	p, _ := readStat(pid)
	return p.start
}

// zombie reports whether pid is a process that has ended and waits for
// its parent to reap it.
func zombie(pid int) bool {
	p, ok := readStat(pid)
	return ok && p.state == 'Z'
}

// processes lists the processes of the machine, as far as /proc shows
// them; one that ends while it is read is left out.
func processes() []proc {
	dir, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer dir.Close()
	names, _ := dir.Readdirnames(-1)
	list := make([]proc, 0, len(names))
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if p, ok := readStat(pid); ok {
			list = append(list, p)
		}
	}
	return list
}

// readStat parses /proc/PID/stat: "pid (name) state ppid … starttime …"
// (starttime is field 22), where the name may hold spaces and
// parentheses, so it ends at the last ')'.
func readStat(pid int) (proc, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return proc{}, false
	}
	open, end := bytes.IndexByte(data, '('), bytes.LastIndexByte(data, ')')
	if open < 0 || end < open {
		return proc{}, false
	}
	fields := strings.Fields(string(data[end+1:]))
	if len(fields) < 2 || len(fields[0]) != 1 {
		return proc{}, false
	}
	ppid, err := strconv.Atoi(fields[1])
	if err != nil {
		return proc{}, false
	}
	p := proc{pid: pid, ppid: ppid, state: fields[0][0], name: string(data[open+1 : end])}
	const startField = 22 - 3 // fields counts from the state, field 3
	if len(fields) > startField {
		p.start, _ = strconv.ParseUint(fields[startField], 10, 64)
	}
	return p, true
}

// escapees are the live processes that descend from an orphan rooda
// adopted and carry tag in their environment, or with tag "" all of
// them. With no orphan adopted, which is the rule, /proc is not scanned.
func escapees(tag string) []proc {
	kin.mu.Lock()
	roots := kin.adopted()
	kin.mu.Unlock()
	if len(roots) == 0 {
		return nil
	}
	var found []proc
	for _, p := range below(roots, processes()) {
		if p.state != 'Z' && (tag == "" || hasTag(p.pid, tag)) {
			found = append(found, p)
		}
	}
	return found
}

// tagged are rooda's live descendants that carry tag in their
// environment, wherever they are: below the agent, in a session of their
// own, or adopted. It scans /proc, for a Ctrl+Z; escapees is the
// search of every iteration's end.
func tagged(tag string) []int {
	var found []int
	for _, p := range below(children(), processes()) {
		if p.state != 'Z' && hasTag(p.pid, tag) {
			found = append(found, p.pid)
		}
	}
	return found
}

// below are roots and all their descendants in all.
func below(roots, all []proc) []proc {
	byParent := map[int][]proc{}
	for _, p := range all {
		byParent[p.ppid] = append(byParent[p.ppid], p)
	}
	found := slices.Clone(roots)
	for i := 0; i < len(found); i++ {
		found = append(found, byParent[found[i].pid]...)
	}
	return found
}

// hasTag reports whether the process was started with TagVariable=tag.
func hasTag(pid int, tag string) bool {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	want := []byte(TagVariable + "=" + tag)
	for entry := range bytes.SplitSeq(env, []byte{0}) {
		if bytes.Equal(entry, want) {
			return true
		}
	}
	return false
}

// startConfined confines the calling goroutine's thread, locked to it
// for good, and starts p's command from it. The main thread is never let
// go (Go wedges it rather than end it): there, the start moves to
// another goroutine, and the main thread stays locked, and so out of its
// reach, until that goroutine has locked a thread of its own (handed);
// with one processor, the scheduler would put it on the main thread
// again, for ever.
func startConfined(p *started, done chan<- confinedStart, handed chan<- struct{}) {
	runtime.LockOSThread()
	if handed != nil {
		close(handed)
	}
	if syscall.Gettid() == os.Getpid() {
		next := make(chan struct{})
		go startConfined(p, done, next)
		<-next
		runtime.UnlockOSThread()
		return
	}
	err := p.confine()
	if err == nil {
		err = p.cmd.Start()
	}
	done <- confinedStart{syscall.Gettid(), err}
}

// threadGone waits for rooda's thread tid to end.
func threadGone(tid int) {
	for i := 0; tid != 0 && syscall.Tgkill(os.Getpid(), tid, 0) == nil; i++ {
		if i < 10 {
			runtime.Gosched()
		} else {
			time.Sleep(50 * time.Microsecond)
		}
	}
}
