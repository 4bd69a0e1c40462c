package process

import (
	"io"
	"testing"
	"time"
)

// TestIdleTimeoutStopsASilentAgent: an agent that writes nothing for the
// idle timeout is stopped, its whole group with it, long before it would
// have ended on its own.
func TestIdleTimeoutStopsASilentAgent(t *testing.T) {
	res := run(t, Command{Argv: sh("echo started; sleep 30 & sleep 30"), IdleTimeout: 300 * time.Millisecond, Grace: time.Second})
	if !res.Idle || res.TimedOut || res.Duration > hangGuard || string(res.Output) != "started\n" {
		t.Errorf("idle %t, timed out %t after %s, output %q", res.Idle, res.TimedOut, res.Duration, res.Output)
	}
	groupGone(t, res)
}

// TestIdleTimeoutSparesATalkingAgent: output on stdout or stderr more
// often than the idle timeout keeps the agent going to its end, whether
// the output is shown as it comes or not.
func TestIdleTimeoutSparesATalkingAgent(t *testing.T) {
	for _, tc := range []struct {
		name      string
		stream    io.Writer
		maxOutput int
	}{
		{"not streamed", nil, 1 << 20},
		{"streamed", io.Discard, 1 << 20},
		{"a small limit", nil, 4096},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// Twice the idle timeout in all, a line every 0.15 s: a
			// gap of a second is only a machine's load.
			res := run(t, Command{Argv: sh("for i in 1 2 3 4 5 6 7 8; do echo $i; sleep 0.15; echo err >&2; sleep 0.15; done"),
				IdleTimeout: time.Second, Stream: tc.stream, MaxOutput: tc.maxOutput})
			if res.Idle || res.ExitCode != 0 || res.Duration < 2400*time.Millisecond {
				t.Errorf("idle %t, exit %d after %s", res.Idle, res.ExitCode, res.Duration)
			}
		})
	}
}
