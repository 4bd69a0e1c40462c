package process

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Where the kernel offers a cgroup v2 hierarchy that rooda may write to,
// each agent starts in a cgroup of its own (CLONE_INTO_CGROUP). A cgroup
// holds every process the agent starts, whatever session or group it
// moves to and whatever it does to its environment, so what is left in
// it once the group is gone is exactly what escaped, and cgroup.kill
// ends it all at once, a process forking while it dies included. Without
// such a hierarchy (cgroup v1 only, no write access), the tags serve.

// cgroupsOff is set once the kernel refused to start an agent in a
// cgroup: rooda then does without, and tests set it to try the tags.
var cgroupsOff atomic.Bool

// cgroupsRefused is ROODA_CGROUPS=off: rooda does without cgroups, as on
// a machine that has none (a container whose cgroups misbehave; the
// tests of the tags).
var cgroupsRefused = sync.OnceValue(func() bool { return os.Getenv("ROODA_CGROUPS") == "off" })

var cgroupBase struct {
	mu   sync.Mutex
	made bool   // tried since rooda started or last removed it
	dir  string // rooda's own cgroup: <rooda's cgroup>/rooda-<pid>
	n    int
	// spare are agents' cgroups found empty and thawed as their agents
	// ended, kept for the next agents: making a cgroup and removing it
	// cost an iteration a mkdir and an rmdir of the kernel's
	// (docs/performance.md).
	spare []*cgroup
}

// maxSpareCgroups bounds the cgroups kept for the next agents: as many
// as loops at once, within reason.
const maxSpareCgroups = 16

// cgroup is one agent's.
type cgroup struct {
	dir string
	fd  int // a descriptor of dir, for CLONE_INTO_CGROUP
	// spared is set on one that served an agent before (release).
	spared bool
}

// newCgroup makes a cgroup for one agent, or returns nil where rooda
// cannot.
func newCgroup() *cgroup {
	if cgroupsRefused() {
		return nil
	}
	base := baseCgroup()
	if base == "" || cgroupsOff.Load() {
		return nil
	}
	cgroupBase.mu.Lock()
	if n := len(cgroupBase.spare); n > 0 {
		g := cgroupBase.spare[n-1]
		cgroupBase.spare = cgroupBase.spare[:n-1]
		cgroupBase.mu.Unlock()
		g.spared = true
		return g
	}
	cgroupBase.n++
	dir := filepath.Join(base, "agent-"+strconv.Itoa(cgroupBase.n))
	cgroupBase.mu.Unlock()
	if os.Mkdir(dir, 0o755) != nil {
		return nil
	}
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		os.Remove(dir)
		return nil
	}
	return &cgroup{dir: dir, fd: fd}
}

// baseCgroup makes, once, the cgroup under which rooda puts its agents'
// (beside rooda itself, in the cgroup it runs in), and removes those
// that roodas killed outright left behind. "" means none can be made.
func baseCgroup() string {
	cgroupBase.mu.Lock()
	defer cgroupBase.mu.Unlock()
	if cgroupBase.made {
		return cgroupBase.dir
	}
	cgroupBase.made = true
	own := ownCgroup()
	if own == "" {
		return ""
	}
	removeStale(own)
	dir := filepath.Join(own, "rooda-"+strconv.Itoa(os.Getpid()))
	if os.Mkdir(dir, 0o755) == nil {
		cgroupBase.dir = dir
	}
	return cgroupBase.dir
}

// ownCgroup is the directory of rooda's cgroup in the v2 hierarchy, or
// "" when there is none.
func ownCgroup() string {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return ""
	}
	for line := range strings.Lines(string(data)) {
		if path, ok := strings.CutPrefix(strings.TrimSpace(line), "0::"); ok {
			if mount := cgroup2Mount(); mount != "" {
				return filepath.Join(mount, path)
			}
		}
	}
	return ""
}

// cgroup2Mount is where the v2 hierarchy is mounted: /sys/fs/cgroup, or
// /sys/fs/cgroup/unified beside the v1 ones.
func cgroup2Mount() string {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		// "id parent dev root mountpoint options … - fstype source options"
		fields := strings.Fields(lines.Text())
		for i, field := range fields {
			if field == "-" && i+1 < len(fields) && fields[i+1] == "cgroup2" && len(fields) > 4 {
				return fields[4]
			}
		}
	}
	return ""
}

// removeStale ends what the agents of roodas that are gone left running
// — a rooda killed outright (kill -9) takes its agent along, but not
// what the agent started — and removes their cgroups. A rooda killed but
// not reaped by its parent (a zombie) is gone too.
func removeStale(own string) {
	entries, _ := os.ReadDir(own)
	for _, e := range entries {
		pid, ok := strings.CutPrefix(e.Name(), "rooda-")
		n, err := strconv.Atoi(pid)
		if ok && err == nil && e.IsDir() && !Alive(n, 0) {
			stale := &cgroup{dir: filepath.Join(own, e.Name()), fd: -1}
			waitFor(func() bool { stale.killAll(); return len(stale.find()) == 0 }, time.Second, nil)
			removeTree(stale.dir)
		}
	}
}

// find lists the live processes in the cgroup and the cgroups below it
// (a rooda the agent ran makes its own there).
func (g *cgroup) find() []proc {
	if g.empty() {
		return nil
	}
	var found []proc
	filepath.WalkDir(g.dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		data, _ := os.ReadFile(filepath.Join(path, "cgroup.procs"))
		for _, field := range strings.Fields(string(data)) {
			pid, _ := strconv.Atoi(field)
			if p, ok := readStat(pid); ok && p.state != 'Z' {
				found = append(found, p)
			}
		}
		return nil
	})
	return found
}

// empty reports whether the kernel says no live process is in the
// cgroup or below it (cgroup.events, "populated 0"): one read, where
// walking the cgroups reads every directory, which is what an agent that
// left nothing behind, the rule, costs each iteration.
func (g *cgroup) empty() bool {
	events, err := g.events()
	return err == nil && strings.Contains(events, "populated 0\n")
}

// events is what the cgroup's cgroup.events says, in three system calls:
// os.ReadFile offers the file to Go's poller, for kernfs files poll,
// which costs as many again, and it is read twice an iteration.
func (g *cgroup) events() (string, error) {
	fd, err := syscall.Open(filepath.Join(g.dir, "cgroup.events"), syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return "", err
	}
	defer syscall.Close(fd)
	var buf [128]byte // "populated 0\nfrozen 0\n", and room for more
	n, err := syscall.Read(fd, buf[:])
	if err != nil {
		return "", err
	}
	return string(buf[:n]), nil
}

// release keeps the cgroup for the next agent where the kernel says that
// no process is left in it and none is frozen; else it removes it. It is
// for the cgroup of an agent that ended by itself and left nothing
// (started.stopEscaped): one ended by a signal may have been ended with
// cgroup.kill, by rooda or by anyone, after which this kernel (6.18)
// kills every process that starts in it.
func (g *cgroup) release() {
	events, err := g.events()
	if err == nil && events == "populated 0\nfrozen 0\n" && keepSpare(g) {
		return
	}
	g.remove()
}

// keepSpare keeps g for the next agent, unless enough are kept or g is
// not of rooda's cgroup as it is now (removed and made again since).
func keepSpare(g *cgroup) bool {
	cgroupBase.mu.Lock()
	defer cgroupBase.mu.Unlock()
	if cgroupBase.dir == "" || !strings.HasPrefix(g.dir, cgroupBase.dir+"/") || len(cgroupBase.spare) >= maxSpareCgroups {
		return false
	}
	cgroupBase.spare = append(cgroupBase.spare, g)
	return true
}

// dropSpares removes the cgroups kept for the next agents, once the
// kernel refused to start an agent in one (removed meanwhile, as an
// agent with the rights may): the others may be gone too.
func dropSpares() {
	cgroupBase.mu.Lock()
	spare := cgroupBase.spare
	cgroupBase.spare = nil
	cgroupBase.mu.Unlock()
	for _, g := range spare {
		g.remove()
	}
}

// killAll kills every process in the cgroup and those below it at once
// (cgroup.kill, Linux 5.14), or without that file each one it finds.
func (g *cgroup) killAll() {
	if os.WriteFile(filepath.Join(g.dir, "cgroup.kill"), []byte("1"), 0) == nil {
		return
	}
	for _, p := range g.find() {
		syscall.Kill(p.pid, syscall.SIGKILL)
	}
}

// remove closes the cgroup and removes it, which the kernel allows only
// once no process is left in it.
func (g *cgroup) remove() {
	if g.fd >= 0 {
		syscall.Close(g.fd)
	}
	removeTree(g.dir)
}

// unused is release for a cgroup no agent started in (the kernel
// refused, or the command was not found): one made for it is removed,
// one kept from an agent before is kept again, if still as it was.
func (g *cgroup) unused() {
	if g.spared {
		g.release()
		return
	}
	g.remove()
}

// removeTree removes a cgroup and those below it, deepest first: a
// cgroup's directory is removed whole, its files with it, or not at all.
func removeTree(dir string) {
	if syscall.Rmdir(dir) == nil {
		return // none below it, the rule: no need to read it
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() {
			removeTree(filepath.Join(dir, e.Name()))
		}
	}
	syscall.Rmdir(dir)
}

// removeBaseCgroup removes rooda's own cgroup as a run ends. Should the
// process start agents again (a test binary runs many), the next makes it
// again: an agent without one could leave processes nothing finds.
func removeBaseCgroup() {
	cgroupBase.mu.Lock()
	defer cgroupBase.mu.Unlock()
	for _, g := range cgroupBase.spare {
		syscall.Close(g.fd)
	}
	cgroupBase.spare = nil
	if cgroupBase.dir != "" {
		removeTree(cgroupBase.dir)
	}
	cgroupBase.made, cgroupBase.dir = false, ""
}

// stopAll stops every process in the cgroup and below it with SIGSTOP,
// and reports whether it could. Signalled one by one, a process could
// fork between the listing and its signal; so the cgroup is frozen first
// (cgroup.freeze, Linux 5.2), each process sent SIGSTOP, then thawed:
// each takes its SIGSTOP before it runs again. Left frozen instead, they
// would not show as stopped (state T, what ps says), and a SIGSTOP sent
// just before the freeze would wait, pending, until the thaw.
func (g *cgroup) stopAll() bool {
	if !g.setFrozen(true) {
		return false
	}
	waitFor(g.frozen, time.Second, nil)
	for _, p := range g.find() {
		syscall.Kill(p.pid, syscall.SIGSTOP)
	}
	g.setFrozen(false)
	return true
}

// continueAll continues every process in the cgroup and below it.
func (g *cgroup) continueAll() {
	for _, p := range g.find() {
		syscall.Kill(p.pid, syscall.SIGCONT)
	}
}

func (g *cgroup) setFrozen(frozen bool) bool {
	state := "0"
	if frozen {
		state = "1"
	}
	return os.WriteFile(filepath.Join(g.dir, "cgroup.freeze"), []byte(state), 0) == nil
}

// frozen reports whether the kernel says every process in the cgroup is
// frozen (cgroup.events, "frozen 1").
func (g *cgroup) frozen() bool {
	events, err := g.events()
	return err != nil || strings.Contains(events, "frozen 1\n")
}
