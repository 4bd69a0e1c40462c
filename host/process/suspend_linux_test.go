package process

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestAgentLeadsASessionOfItsOwn: the agent is the leader of a session
// of its own, so it has no controlling terminal that could stop it
// (SIGTTIN) when something it runs reads /dev/tty.
func TestAgentLeadsASessionOfItsOwn(t *testing.T) {
	res := run(t, Command{Argv: sh(`cut -d' ' -f6 /proc/$$/stat`)})
	if sid, _ := strconv.Atoi(strings.TrimSpace(string(res.Output))); sid != res.PID {
		t.Errorf("the agent %d is in session %q", res.PID, res.Output)
	}
}

// lines is a Stream the test reads while the agent runs.
type lines struct {
	mu  sync.Mutex
	out strings.Builder
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.out.Write(p)
}

// first waits for the first line and returns its fields.
func (l *lines) first(t *testing.T) []string {
	t.Helper()
	return eventually(t, "the agent's first line", func() ([]string, bool) {
		l.mu.Lock()
		defer l.mu.Unlock()
		line, _, whole := strings.Cut(l.out.String(), "\n")
		return strings.Fields(line), whole
	})
}

// eventually polls get until it holds, and fails the test if it never does.
func eventually[T any](t *testing.T, what string, get func() (T, bool)) T {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for {
		v, ok := get()
		if ok {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// held reports whether pid is stopped: state T, what ps shows. (A shell
// stopped as it forks, between its vfork and the child's exec, shows D:
// the agents below are checked by what they did not do instead.)
func held(pid int) bool { return state(pid) == 'T' }

// working is an agent that prints the pid of a child that escaped its
// group, then needs about half a second of running (ten sleeps of 50 ms:
// a stop costs it one of them at most), printing nothing.
const working = `setsid sleep 30 >/dev/null 2>&1 & echo $!;` + waitEscaped + `; i=0; while [ $i -lt 10 ]; do sleep 0.05; i=$((i+1)); done; echo done`

// TestSuspendStopsTheAgentAndItsClocks: Suspend stops the agent's group
// and what escaped it, and Resume continues them; the time between
// counts toward neither the timeout nor the idle timeout, both shorter
// than it, so the agent ends as it would have.
func TestSuspendStopsTheAgentAndItsClocks(t *testing.T) {
	eachWay(t, func(t *testing.T) {
		out := &lines{}
		done := make(chan Result, 1)
		go func() {
			res, _ := Run(context.Background(), Command{Argv: sh(working), Timeout: 3 * time.Second, IdleTimeout: 2 * time.Second, Grace: time.Second, Stream: out, MaxOutput: 1 << 20})
			done <- res
		}()
		escaped, _ := strconv.Atoi(out.first(t)[0])
		Suspend()
		eventually(t, "the escaped child stopped", func() (bool, bool) { return true, held(escaped) })
		// Stopped longer than both timeouts and the agent's work; the
		// timeouts leave its half second of work seconds to spare on a
		// loaded machine.
		time.Sleep(3500 * time.Millisecond)
		select {
		case res := <-done:
			t.Error("the agent ran on while suspended, to its end")
			done <- res
		default:
		}
		if !held(escaped) {
			t.Error("the escaped child ran on while suspended")
		}
		Resume()
		res := <-done
		if res.TimedOut || res.Idle || res.ExitCode != 0 || !strings.HasSuffix(string(res.Output), "done\n") {
			t.Errorf("timed out %t, idle %t, exit %d after %s, output %q: the stopped time was counted", res.TimedOut, res.Idle, res.ExitCode, res.Duration, res.Output)
		}
		dead(t, res.Escaped...)
	})
}

// TestStartedWhileSuspendedIsStopped: a process that starts between
// Suspend and Resume (a loop that went on as rooda was stopping) is
// stopped as it starts, and continued with the rest.
func TestStartedWhileSuspendedIsStopped(t *testing.T) {
	Suspend()
	resumed := false
	defer func() {
		if !resumed {
			Resume()
		}
	}()
	done := make(chan Result, 1)
	go func() {
		res, _ := Run(context.Background(), Command{Argv: []string{"sleep", "0.2"}, Timeout: 5 * time.Second, MaxOutput: 1024})
		done <- res
	}()
	pid := eventually(t, "the agent started", func() (int, bool) {
		kin.mu.Lock()
		defer kin.mu.Unlock()
		for pid := range kin.started {
			return pid, true
		}
		return 0, false
	})
	eventually(t, "the agent stopped", func() (bool, bool) { return true, held(pid) })
	Resume()
	resumed = true
	if res := <-done; res.ExitCode != 0 || res.TimedOut {
		t.Errorf("exit %d, timed out %t", res.ExitCode, res.TimedOut)
	}
}

// TestSuspendStopsTheWholeCgroup: in a cgroup, what escaped the group
// with an empty environment, which no tag finds, is stopped all the same.
func TestSuspendStopsTheWholeCgroup(t *testing.T) {
	if baseCgroup() == "" || cgroupsOff.Load() {
		t.Skip("SKIPPED: no writable cgroup v2 hierarchy on this machine")
	}
	out := &lines{}
	done := make(chan Result, 1)
	go func() {
		res, _ := Run(context.Background(), Command{Argv: sh(cleanEscape + "; sleep 0.3"), Grace: time.Second, Stream: out, MaxOutput: 1024})
		done <- res
	}()
	escaped, _ := strconv.Atoi(out.first(t)[0])
	Suspend()
	eventually(t, "the escaped child stopped", func() (bool, bool) { return true, held(escaped) })
	Resume()
	res := <-done
	if len(res.Escaped) != 1 || res.Escaped[0].PID != escaped {
		t.Errorf("escaped %v, want %d", res.Escaped, escaped)
	}
	dead(t, res.Escaped...)
}

// TestStoppedSinceCountsOnlyTheStopsAfter: the time suspended after a
// moment is the suspensions' overlap with the time since, the one going
// on included.
func TestStoppedSinceCountsOnlyTheStopsAfter(t *testing.T) {
	// What other tests' suspensions left is set aside, then put back.
	stops.mu.Lock()
	before := stops.spans
	stops.spans = nil
	stops.mu.Unlock()
	t.Cleanup(func() {
		stops.mu.Lock()
		stops.spans = before
		stops.mu.Unlock()
	})
	base := time.Now().Add(-time.Hour)
	noteSuspended(base)
	noteResumed(base.Add(10 * time.Minute))
	noteSuspended(base.Add(20 * time.Minute))
	noteResumed(base.Add(25 * time.Minute))
	for since, want := range map[time.Duration]time.Duration{0: 15 * time.Minute, 5 * time.Minute: 10 * time.Minute, 22 * time.Minute: 3 * time.Minute, 30 * time.Minute: 0} {
		if got := StoppedSince(base.Add(since)); got != want {
			t.Errorf("since +%s: %s, want %s", since, got, want)
		}
	}
}
