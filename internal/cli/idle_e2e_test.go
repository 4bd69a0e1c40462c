package cli

import (
	"strings"
	"testing"
	"time"
)

// TestIdleAgentStopped: an agent that prints a line, then nothing, with a
// child in its group, is stopped after --idle-timeout with cause idle, and
// nothing of it survives (the workspace checks); with a threshold of 1
// the run aborts.
func TestIdleAgentStopped(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": "thinking\n", "child": "60s", "delay": "60s"})
	o := w.run("build", "-n", "3", "--failure-threshold", "1", "--idle-timeout", "1s")
	o.expect(t, 1, "WARN: Iteration 1/3: no output for 1s; ", " [idle]\n", "Aborting after 1 consecutive failure (")
	if o.took > 30*time.Second {
		t.Errorf("took %s", o.took)
	}
	if m := w.meta(1); m.Cause != "idle" || m.TimedOut {
		t.Errorf("meta.json: cause %q, timed out %t", m.Cause, m.TimedOut)
	}
	if pids := w.recordedPids(); len(pids) != 2 {
		t.Errorf("want the agent and its child recorded, got %v", pids)
	}
}

// TestTalkingAgentNotIdle: an agent that prints a line every 300ms for 2s
// is not stopped by an idle timeout of 1s.
func TestTalkingAgentNotIdle(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"tick": "300ms", "tick_for": "2s", "output": successSignal + "\n"})
	o := w.run("build", "-n", "1", "--idle-timeout", "1s")
	o.expect(t, 0, "Success: the agent signaled SUCCESS in iteration 1/1")
	if strings.Contains(o.stderr, "[idle]") || o.took < 2*time.Second {
		t.Errorf("took %s\n%s", o.took, o.stderr)
	}
}

// TestIdleTimeoutSetting: idle_timeout is on by default, shown by a dry
// run with its source, and turned off by none, from the configuration
// or the environment.
func TestIdleTimeoutSetting(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{})
	for _, tc := range []struct{ config, env, want string }{
		{"", "", "  Idle Timeout: 15m (built-in)\n"},
		{"loop:\n  idle_timeout: none\n", "", "  Idle Timeout: none (workspace: ./rooda-config.yml)\n"},
		{"loop:\n  idle_timeout: null\n", "ROODA_LOOP_IDLE_TIMEOUT=90s", "  Idle Timeout: 1m30s (env: ROODA_LOOP_IDLE_TIMEOUT)\n"},
	} {
		w.write("rooda-config.yml", tc.config)
		w.env = append(w.env, tc.env)
		if o := w.run("build", "--dry-run"); o.code != 0 || !strings.Contains(o.stdout, tc.want) {
			t.Errorf("exit %d; the dry run lacks %q:\n%s%s", o.code, tc.want, o.stdout, o.stderr)
		}
	}
}
