package process

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"sync"
)

// Without cgroups, what a killed rooda's agent started outlives it
// unseen: the agent dies with rooda (PR_SET_PDEATHSIG), but not the
// processes it started, which init adopts. Each carries its agent's tag,
// and the tag names the rooda that started it (its pid and start time),
// so the next rooda to start an agent without a cgroup finds those whose
// rooda is gone, in its own pid namespace, and stops them, as the stale
// cgroups are where rooda has them (removeStale).

var staleTags sync.Once

// stopStaleTagged stops, once in rooda's life, what the agents of roodas
// that are gone left running, and returns them.
func stopStaleTagged() (found []Found) {
	staleTags.Do(func() {
		found, _, _ = stopLeft(taggedBy(roodaGone), 0, nil)
	})
	return found
}

// taggedBy finds the live processes, in rooda's own pid namespace, whose
// tag match accepts.
type taggedBy func(tag string) bool

func (taggedBy) killAll() {}

func (match taggedBy) find() []proc {
	own, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return nil
	}
	var found []proc
	for _, p := range processes() {
		if p.state == 'Z' {
			continue
		}
		if ns, _ := os.Readlink("/proc/" + strconv.Itoa(p.pid) + "/ns/pid"); ns != own {
			continue // a pid in its tag would name another namespace's process
		}
		if tag, ok := tagOf(p.pid); ok && match(tag) {
			found = append(found, p)
		}
	}
	return found
}

// tagOf is the process's TagVariable, if it has one.
func tagOf(pid int) (string, bool) {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return "", false
	}
	prefix := []byte(TagVariable + "=")
	for entry := range bytes.SplitSeq(env, []byte{0}) {
		if tag, ok := bytes.CutPrefix(entry, prefix); ok {
			return string(tag), true
		}
	}
	return "", false
}

// roodaGone reports whether the rooda a tag ("pid.start.n") names is
// gone. A tag of another form (an older rooda's "pid.n") is not
// judged: its pid alone could name a process that took the pid since.
func roodaGone(tag string) bool {
	fields := strings.Split(tag, ".")
	if len(fields) != 3 {
		return false
	}
	pid, err1 := strconv.Atoi(fields[0])
	start, err2 := strconv.ParseUint(fields[1], 10, 64)
	if err1 != nil || err2 != nil || start == 0 {
		return false
	}
	return !Alive(pid, start)
}
