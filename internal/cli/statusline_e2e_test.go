package cli

import (
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"rooda/internal/ptytest"
)

// The status line's bytes: it is cleared, then drawn, with these.
const (
	clearLine = "\r\x1b[K"
	dimOn     = "\x1b[2m"
	dimOff    = "\x1b[0m"
)

// slowFirstIteration is a fake agent whose first iteration says a line
// and then sleeps long enough for the status line to tick; its second
// succeeds.
func slowFirstIteration(t *testing.T) *workspace {
	return newWorkspace(t,
		step{"output": "reading the plan\n", "delay": "3500ms"},
		step{"output": "<promise>SUCCESS</promise>\n"})
}

// onTerminal starts rooda run build with args on a pseudo-terminal of
// cols columns, in an environment with env on top.
func onTerminal(t *testing.T, w *workspace, cols int, env []string, args ...string) (*ptytest.PTY, *exec.Cmd) {
	t.Helper()
	pty := ptytest.Open(t, 24, cols)
	cmd := w.command(append([]string{"build", "-n", "2"}, args...)...)
	cmd.Env = withEnv(cmd.Env, append([]string{"TERM=xterm", "NO_COLOR="}, env...)...)
	if err := pty.Start(cmd); err != nil {
		t.Fatal(err)
	}
	return pty, cmd
}

// withEnv is env with each of set ("KEY=value") in place of the key's
// value.
func withEnv(env []string, set ...string) []string {
	for _, kv := range set {
		key, _, _ := strings.Cut(kv, "=")
		env = slices.DeleteFunc(env, func(e string) bool { return strings.HasPrefix(e, key+"=") })
		env = append(env, kv)
	}
	return env
}

// endOf waits for the program on pty to end, and returns the screen.
func endOf(t *testing.T, pty *ptytest.PTY, cmd *exec.Cmd) string {
	t.Helper()
	select {
	case <-pty.Closed():
	case <-time.After(hangGuard):
		cmd.Process.Kill()
		t.Fatalf("rooda did not end; the screen:\n%q", pty.Screen())
	}
	cmd.Wait()
	return pty.Screen()
}

// statusLines are the status lines drawn on screen from byte from on,
// without their colour; logText is everything else, which is the log.
func splitScreen(screen string, from int) (statusLines []string, logText []string) {
	for i, part := range strings.Split(screen[from:], clearLine) {
		switch {
		case part == "":
		case i > 0 && !strings.Contains(part, "\n"):
			statusLines = append(statusLines, strings.TrimSuffix(strings.TrimPrefix(part, dimOn), dimOff))
		default:
			logText = append(logText, part)
		}
	}
	return statusLines, logText
}

var iterationElapsed = regexp.MustCompile(`^build 1/2 · (\d+s) \(run \d+s\)`)

// TestStatusLineOnATerminal: under a real pseudo-terminal, the status
// line shows the iteration and its elapsed time ticking while the agent
// sleeps, with what the agent said last; the log's lines are written
// whole above it; after a resize to 20 columns it is no wider than the
// terminal; and the run ends on a clean line.
func TestStatusLineOnATerminal(t *testing.T) {
	w := slowFirstIteration(t)
	pty, cmd := onTerminal(t, w, 120, nil)

	seen := map[string]bool{}
	deadline := time.Now().Add(hangGuard)
	for len(seen) < 2 && time.Now().Before(deadline) {
		statuses, _ := splitScreen(pty.Screen(), 0)
		for _, s := range statuses {
			if m := iterationElapsed.FindStringSubmatch(s); m != nil {
				seen[m[1]] = true
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(seen) < 2 {
		t.Fatalf("the status line did not tick (elapsed seen: %v); the screen:\n%q", seen, pty.Screen())
	}

	if err := pty.Resize(24, 20); err != nil {
		t.Fatal(err)
	}
	cmd.Process.Signal(syscall.SIGWINCH)
	// What was drawn before the resize has been read by now.
	time.Sleep(200 * time.Millisecond)
	resized := len(pty.Screen())

	screen := endOf(t, pty, cmd)
	statuses, logText := splitScreen(screen, 0)
	if !slices.ContainsFunc(statuses, func(s string) bool { return strings.HasSuffix(s, " · reading the plan") }) {
		t.Errorf("no status line shows the agent's last line; status lines:\n%q", statuses)
	}
	narrow, _ := splitScreen(screen, resized)
	if len(narrow) == 0 {
		t.Errorf("no status line drawn after the resize; the screen after it:\n%q", screen[resized:])
	}
	for _, s := range narrow {
		if n := utf8.RuneCountInString(s); n >= 20 {
			t.Errorf("a status line of %d runes on a terminal of 20 columns: %q", n, s)
		}
	}
	log := wholeLines(t, logText)
	for _, want := range []string{"] Iteration 1/2 completed in ", "] Iteration 2/2 completed in "} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
	if !strings.Contains(screen, clearLine+"[") {
		t.Errorf("the log's lines are not written after the status line is cleared:\n%q", screen)
	}
	if end := screen[strings.LastIndex(screen, clearLine)+len(clearLine):]; !strings.HasSuffix(screen, clearLine) && !strings.HasSuffix(end, "\n") {
		t.Errorf("the run does not end on a clean line: %q", end)
	}
}

// wholeLines is the log, the screen's text but the status lines; it
// fails the test if a line of it is torn: not whole, or with a piece of
// the status line in it.
func wholeLines(t *testing.T, logText []string) string {
	t.Helper()
	log := strings.Join(logText, "")
	if !strings.HasSuffix(log, "\n") {
		t.Errorf("the log does not end with a whole line:\n%q", log)
	}
	for _, line := range strings.SplitAfter(log, "\n") {
		if line == "" {
			continue
		}
		if !strings.HasSuffix(line, "\n") || strings.ContainsAny(line, "\r\x1b") || strings.Contains(line, " · ") {
			t.Errorf("a log line torn by the status line: %q", line)
		}
	}
	return log
}

// TestStatusLineUnderAIOutput: with -v the agent's output goes to the
// same terminal, through the status line too: its lines are whole above
// it.
func TestStatusLineUnderAIOutput(t *testing.T) {
	w := slowFirstIteration(t)
	pty, cmd := onTerminal(t, w, 120, nil, "-v")
	statuses, logText := splitScreen(endOf(t, pty, cmd), 0)
	if len(statuses) == 0 {
		t.Errorf("no status line with -v")
	}
	if log := wholeLines(t, logText); !strings.Contains(log, "\nreading the plan\n") {
		t.Errorf("the agent's output is not shown whole:\n%q", log)
	}
}

// TestStatusLineOnlyOnATerminalThatWantsIt: a pipe, --log-format json,
// -q, TERM=dumb and loop.status_line: off have no trace of the status
// line; NO_COLOR has it
// without colour.
func TestStatusLineOnlyOnATerminalThatWantsIt(t *testing.T) {
	t.Run("pipe", func(t *testing.T) {
		t.Parallel()
		o := slowFirstIteration(t).run("build", "-n", "2")
		o.expect(t, 0)
		noStatusLine(t, o.stderr)
	})
	for name, tc := range map[string]struct {
		args, env []string
	}{
		"json":  {args: []string{"--log-format", "json"}},
		"quiet": {args: []string{"-q"}},
		"dumb":  {env: []string{"TERM=dumb"}},
		"off":   {env: []string{"ROODA_LOOP_STATUS_LINE=off"}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := slowFirstIteration(t)
			pty, cmd := onTerminal(t, w, 120, tc.env, tc.args...)
			noStatusLine(t, endOf(t, pty, cmd))
		})
	}
	t.Run("no colour", func(t *testing.T) {
		t.Parallel()
		w := slowFirstIteration(t)
		pty, cmd := onTerminal(t, w, 120, []string{"NO_COLOR=1"})
		screen := endOf(t, pty, cmd)
		if !strings.Contains(screen, clearLine+"build 1/2 · ") {
			t.Errorf("no status line under NO_COLOR:\n%q", screen)
		}
		if strings.Contains(strings.ReplaceAll(screen, clearLine, ""), "\x1b[") {
			t.Errorf("colour under NO_COLOR:\n%q", screen)
		}
	})
}

func noStatusLine(t *testing.T, out string) {
	t.Helper()
	if strings.ContainsAny(out, "\r") || strings.Contains(out, "\x1b[K") || strings.Contains(out, " · ") {
		t.Errorf("a trace of the status line:\n%q", out)
	}
}
