package process

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hangGuard bounds a run that must end promptly; it is a guard against a
// hang, not a measure of speed.
const hangGuard = 10 * time.Second

func sh(script string) []string { return []string{"sh", "-c", script} }

func run(t *testing.T, c Command) Result {
	t.Helper()
	if c.MaxOutput == 0 {
		c.MaxOutput = 1 << 20
	}
	res, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// groupGone fails the test if any process of the agent's group is alive.
func groupGone(t *testing.T, res Result) {
	t.Helper()
	if err := syscall.Kill(-res.PID, 0); err == nil {
		syscall.Kill(-res.PID, syscall.SIGKILL)
		t.Errorf("processes of group %d survived", res.PID)
	}
}

func TestPromptOnStdinAndEnvironment(t *testing.T) {
	res := run(t, Command{Argv: sh(`cat; echo "iteration=$ROODA_ITERATION"`), Prompt: "the prompt\n", Env: []string{"ROODA_ITERATION=2"}})
	if got := string(res.Output); got != "the prompt\niteration=2\n" || res.ExitCode != 0 {
		t.Errorf("exit %d, output %q", res.ExitCode, got)
	}
}

func TestStdoutAndStderrTogether(t *testing.T) {
	res := run(t, Command{Argv: sh(`echo out; echo err >&2; echo out2`)})
	if got := string(res.Output); got != "out\nerr\nout2\n" {
		t.Errorf("output %q", got)
	}
}

// TestExtraFiles: the process inherits ExtraFiles from descriptor 3 on.
func TestExtraFiles(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	res := run(t, Command{Argv: sh("echo through >&3"), ExtraFiles: []*os.File{w}})
	w.Close()
	got, _ := io.ReadAll(r)
	if string(got) != "through\n" || res.ExitCode != 0 {
		t.Errorf("exit %d, descriptor 3 got %q", res.ExitCode, got)
	}
}

func TestExitCode(t *testing.T) {
	if res := run(t, Command{Argv: sh("exit 3")}); res.ExitCode != 3 || res.Signal != "" {
		t.Errorf("exit %d signal %q", res.ExitCode, res.Signal)
	}
}

// TestCrashKeepsPartialOutput: a crash still yields what was written and
// the signal's name.
func TestCrashKeepsPartialOutput(t *testing.T) {
	res := run(t, Command{Argv: sh(`echo "<promise>FAILURE</promise> partial"; kill -SEGV $$`)})
	if res.Signal != "SIGSEGV" || res.ExitCode != 128+11 || !strings.Contains(string(res.Output), "partial") {
		t.Errorf("signal %q exit %d output %q", res.Signal, res.ExitCode, res.Output)
	}
}

// TestOutputIsBounded: only the tail is kept, and the signal at its end
// is whole.
func TestOutputIsBounded(t *testing.T) {
	res := run(t, Command{Argv: sh(`head -c 3000000 /dev/zero | tr '\0' x; echo "<promise>SUCCESS</promise>"`), MaxOutput: 4096})
	if len(res.Output) != 4096 || !bytes.HasSuffix(res.Output, []byte("<promise>SUCCESS</promise>\n")) {
		t.Errorf("kept %d bytes ending %q", len(res.Output), res.Output[max(0, len(res.Output)-40):])
	}
	if res.Total != 3000000+27 || res.Dropped != res.Total-4096 {
		t.Errorf("total %d dropped %d", res.Total, res.Dropped)
	}
	// The memory held is the limit's, not the output's.
	if cap(res.Output) > 4096 {
		t.Errorf("the capture holds %d bytes for a limit of 4096", cap(res.Output))
	}
}

func TestStream(t *testing.T) {
	var live bytes.Buffer
	run(t, Command{Argv: sh("echo live"), Stream: &live})
	if live.String() != "live\n" {
		t.Errorf("streamed %q", live.String())
	}
}

// TestTimeoutWithChildHoldingThePipe: the background child keeps stdout
// open; the timeout must still end the run and the whole group.
func TestTimeoutWithChildHoldingThePipe(t *testing.T) {
	start := time.Now()
	res := run(t, Command{Argv: sh("sleep 30 & sleep 30"), Timeout: 200 * time.Millisecond, Grace: time.Second})
	if !res.TimedOut || time.Since(start) > hangGuard {
		t.Errorf("timed out %v after %v", res.TimedOut, time.Since(start))
	}
	groupGone(t, res)
}

// TestExitLeavesNoChildren: an agent that exits leaving a background
// child holding the pipe does not hold rooda, and the child is stopped.
func TestExitLeavesNoChildren(t *testing.T) {
	start := time.Now()
	res := run(t, Command{Argv: sh("sleep 30 & echo bye"), Grace: time.Second})
	if string(res.Output) != "bye\n" || res.TimedOut || time.Since(start) > hangGuard {
		t.Errorf("output %q, timed out %v, after %v", res.Output, res.TimedOut, time.Since(start))
	}
	groupGone(t, res)
}

// TestLeftoverIgnoringTermIsKilled: a background child that ignores
// SIGTERM, left by an agent that exited, is killed after the grace.
func TestLeftoverIgnoringTermIsKilled(t *testing.T) {
	res := run(t, Command{Argv: sh(`(trap "" TERM; sleep 30) & sleep 0.3; echo bye`), Grace: 200 * time.Millisecond})
	if res.ExitCode != 0 || !res.Killed || res.TimedOut {
		t.Errorf("exit %d, killed %v", res.ExitCode, res.Killed)
	}
	groupGone(t, res)
}

// TestTermIgnored: an agent ignoring SIGTERM is killed after the grace.
func TestTermIgnored(t *testing.T) {
	res := run(t, Command{Argv: sh(`trap "" TERM; echo ready; sleep 30`), Timeout: 300 * time.Millisecond, Grace: 200 * time.Millisecond})
	if !res.TimedOut || res.Signal != "SIGKILL" || !res.Killed {
		t.Errorf("timed out %v, signal %q, killed %v", res.TimedOut, res.Signal, res.Killed)
	}
	groupGone(t, res)
}

func TestCancelStopsTheGroup(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	res, err := Run(ctx, Command{Argv: sh("sleep 30 & sleep 30"), MaxOutput: 1024, Grace: time.Second})
	if err != nil || !res.Interrupted || res.TimedOut || res.Killed {
		t.Errorf("err %v, interrupted %v, killed %v", err, res.Interrupted, res.Killed)
	}
	groupGone(t, res)
}

// TestKillEndsTheGrace: a second interrupt does not wait for the grace.
func TestKillEndsTheGrace(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	kill := make(chan struct{})
	time.AfterFunc(100*time.Millisecond, cancel)
	time.AfterFunc(300*time.Millisecond, func() { close(kill) })
	start := time.Now()
	res, _ := Run(ctx, Command{Argv: sh(`trap "" TERM; sleep 30`), MaxOutput: 1024, Grace: time.Hour, Kill: kill})
	if res.Signal != "SIGKILL" || time.Since(start) > hangGuard {
		t.Errorf("signal %q after %v", res.Signal, time.Since(start))
	}
	groupGone(t, res)
}

func TestCannotStart(t *testing.T) {
	_, err := Run(context.Background(), Command{Argv: []string{"no-such-agent-xyz"}, MaxOutput: 1024})
	if err == nil || !strings.Contains(err.Error(), `exec: "no-such-agent-xyz": executable file not found`) {
		t.Errorf("error %v", err)
	}
}

// slowWriter is a terminal that takes its time.
type slowWriter struct {
	bytes.Buffer
	pause time.Duration
}

func (w *slowWriter) Write(p []byte) (int, error) {
	time.Sleep(w.pause)
	return w.Buffer.Write(p)
}

// TestSlowStreamLosesNothing: output still in the pipe when the agent has
// gone is read to its end, however slowly the stream takes it, and the
// signal at its end is kept.
func TestSlowStreamLosesNothing(t *testing.T) {
	stream := &slowWriter{pause: 3 * drainTime / 2}
	res := run(t, Command{Argv: sh(`head -c 900000 /dev/zero; echo "<promise>SUCCESS</promise>"`), Stream: stream, MaxOutput: 1 << 20})
	if res.Total != 900027 || len(res.Output) != 900027 || stream.Len() != 900027 {
		t.Errorf("total %d, kept %d, streamed %d", res.Total, len(res.Output), stream.Len())
	}
}

type brokenWriter struct{ writes int }

func (w *brokenWriter) Write([]byte) (int, error) {
	w.writes++
	return 0, syscall.EPIPE
}

// TestBrokenStreamKeepsCapturing: a stdout that was closed (rooda -v |
// head) ends the streaming after the first failed write; the capture goes
// on.
func TestBrokenStreamKeepsCapturing(t *testing.T) {
	stream := &brokenWriter{}
	res := run(t, Command{Argv: sh(`echo one; sleep 0.1; echo two; sleep 0.1; echo "<promise>SUCCESS</promise>"`), Stream: stream})
	if string(res.Output) != "one\ntwo\n<promise>SUCCESS</promise>\n" || stream.writes != 1 {
		t.Errorf("output %q after %d writes to the stream", res.Output, stream.writes)
	}
}

// TestInterruptedBeforeStartStartsNothing: a run whose context ended
// before it began starts no process.
func TestInterruptedBeforeStartStartsNothing(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Run(ctx, Command{Argv: []string{"touch", marker}, MaxOutput: 1024})
	if err != nil || !res.Interrupted {
		t.Errorf("err %v, interrupted %v", err, res.Interrupted)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the agent ran")
	}
}

// TestStopEndsTheAgentAtOnce: closing Stop stops the agent's group, a
// child with it, as a timeout does, long before the agent would end; the
// result says so and keeps what it printed.
func TestStopEndsTheAgentAtOnce(t *testing.T) {
	stop := make(chan struct{})
	// Stopped once it said it cannot go on, as a reader of its stream does.
	said := stopOn{word: "refused", stop: stop}
	res := run(t, Command{Argv: sh(`echo refused; sleep 300 & sleep 300`), Stop: stop, Stream: &said})
	if !res.Stopped || res.TimedOut || res.Idle || res.Signal != "SIGTERM" || !strings.Contains(string(res.Output), "refused") {
		t.Errorf("stopped %v, timed out %v, idle %v, signal %q, output %q", res.Stopped, res.TimedOut, res.Idle, res.Signal, res.Output)
	}
	if res.Duration > hangGuard {
		t.Errorf("took %s", res.Duration)
	}
	groupGone(t, res)
}

// stopOn closes stop once the output it is written has had word.
type stopOn struct {
	word string
	seen strings.Builder
	stop chan struct{}
}

func (s *stopOn) Write(p []byte) (int, error) {
	had := strings.Contains(s.seen.String(), s.word)
	s.seen.Write(p)
	if !had && strings.Contains(s.seen.String(), s.word) {
		close(s.stop)
	}
	return len(p), nil
}
