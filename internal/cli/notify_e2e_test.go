package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// notifier writes a loop.notify command into the workspace that appends
// what it reads on stdin to notices.jsonl, then runs tail (a shell
// command: "exit 3"); it returns the configuration line of it.
func (w *workspace) notifier(tail string) string {
	w.t.Helper()
	path := filepath.Join(w.dir, "notify.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\ncat >> "+filepath.Join(w.dir, "notices.jsonl")+"\n"+tail+"\n"), 0o755); err != nil {
		w.t.Fatal(err)
	}
	return "  notify: " + path + "\n"
}

// notices are the JSON objects the notifier was given, in order.
func (w *workspace) notices() []map[string]any {
	w.t.Helper()
	data := readText(w.t, filepath.Join(w.dir, "notices.jsonl"))
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(data), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			w.t.Fatalf("a notice is not one JSON object on a line: %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// TestNotifyRunFinished: a run that succeeds tells the notifier once, as
// it ends: the event, the run's id, procedure, status, exit code,
// iterations, what it spent and the log's last line.
func TestNotifyRunFinished(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": "thinking\n"}, step{"output": transcript(t, "claude-stream-json", "tool_call_success")})
	w.extraConfig = w.notifier("")
	o := w.runAlias("claude-stream-json", "build", "-n", "3")
	o.expect(t, 0, "Success")
	notices := w.notices()
	if len(notices) != 1 {
		t.Fatalf("notices: %v", notices)
	}
	n := notices[0]
	runs, _ := filepath.Glob(filepath.Join(w.dir, ".rooda", "runs", "*", "run.json"))
	if len(runs) != 1 || n["run_id"] != filepath.Base(filepath.Dir(runs[0])) {
		t.Errorf("run_id %v, runs %v", n["run_id"], runs)
	}
	want := map[string]any{"event": "run_finished", "procedure": "build", "status": "success", "exit_code": 0.0, "iterations": 2.0, "cost_usd": 0.000285, "tokens": 178.0}
	for key, value := range want {
		if n[key] != value {
			t.Errorf("%s: got %v want %v (%v)", key, n[key], value, n)
		}
	}
	if msg, _ := n["message"].(string); !strings.HasPrefix(msg, "Success: the agent signaled SUCCESS in iteration 2/3") {
		t.Errorf("message %q", msg)
	}
}

// TestNotifyLoginFailed: an agent that cannot log in tells the notifier
// login_failed with what its CLI said, then run_finished.
func TestNotifyLoginFailed(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": transcript(t, "claude-stream-json", "not_logged_in"), "exit": 1})
	w.extraConfig = w.notifier("")
	o := w.runAlias("claude-stream-json", "build", "-n", "5")
	o.expect(t, 1, "the agent cannot log in")
	notices := w.notices()
	if len(notices) != 2 || notices[0]["event"] != "login_failed" || notices[1]["event"] != "run_finished" {
		t.Fatalf("notices: %v", notices)
	}
	login := notices[0]
	if login["status"] != "aborted" || login["exit_code"] != 1.0 || login["iterations"] != 1.0 ||
		!strings.Contains(login["message"].(string), "Not logged in · Please run /login") {
		t.Errorf("login_failed: %v", login)
	}
	if notices[1]["status"] != "aborted" {
		t.Errorf("run_finished: %v", notices[1])
	}
}

// TestNotifyLimitWait: a wait for a usage limit tells the notifier as it
// begins: the iteration, the agent, the cause and how long.
func TestNotifyLimitWait(t *testing.T) {
	t.Parallel()
	limit := strings.ReplaceAll(transcript(t, "claude-stream-json", "usage_limit_reset"), "1795446000", "{{unix+2}}")
	w := newWorkspace(t, step{"output": limit, "exit": 1, "again": step{"output": transcript(t, "claude-stream-json", "tool_call_success")}})
	w.extraConfig = w.notifier("")
	o := w.runAlias("claude-stream-json", "build", "-n", "2")
	o.expect(t, 0, "waiting until ")
	notices := w.notices()
	if len(notices) != 2 || notices[0]["event"] != "limit_wait" || notices[1]["event"] != "run_finished" {
		t.Fatalf("notices: %v", notices)
	}
	wait := notices[0]
	if wait["status"] != "waiting" || wait["iteration"] != 1.0 || wait["agent"] != "fake" || wait["cause"] != "usage_limit" ||
		wait["until"] == nil || wait["exit_code"] != nil || !strings.Contains(wait["message"].(string), "then running iteration 1/2 again") {
		t.Errorf("limit_wait: %v", wait)
	}
}

// TestNotifierFailureIsAWarning: a notifier that fails, or cannot start,
// is a warning in the log; the run ends as it would have.
func TestNotifierFailureIsAWarning(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": successSignal})
	w.write("rooda-config.yml", "loop:\n"+w.notifier("echo no mail server >&2; exit 3"))
	o := w.run("build", "-n", "1")
	o.expect(t, 0, "WARN: notify (run_finished): exit code 3: no mail server")
	if len(w.notices()) != 1 {
		t.Errorf("the notifier was not run once")
	}
	w.write("rooda-config.yml", "loop:\n  notify: "+filepath.Join(w.dir, "no-such-notifier")+"\n")
	o = w.run("build", "-n", "1")
	o.expect(t, 0, "WARN: notify (run_finished): ")
	w.write("rooda-config.yml", "loop:\n  notify: "+filepath.Join(w.dir, "notify.sh")+"\n")
	o = w.run("build", "-n", "1", "--log-format", "json")
	o.expect(t, 0, `"event":"notify_failed"`, `"notice":"run_finished"`)
}

// TestNotifierEndsOnInterrupt: a notifier still running after a moment
// is said to be waited for, and a signal then stops it: after a run that
// succeeded, SIGINT or SIGTERM stops it (SIGTERM to its group); after a
// run SIGINT interrupted, a second SIGINT kills a notifier that ignores
// SIGTERM at once. rooda exits 130, the notifier gone, its notice sent.
func TestNotifierEndsOnInterrupt(t *testing.T) {
	cases := map[string]struct {
		agent  step
		tail   string
		first  syscall.Signal // sent while the agent runs, when set
		signal syscall.Signal
	}{
		"SIGINT after success":               {agent: step{"output": successSignal}, tail: "exec sleep 30", signal: syscall.SIGINT},
		"SIGTERM after success":              {agent: step{"output": successSignal}, tail: "exec sleep 30", signal: syscall.SIGTERM},
		"second SIGINT ignoring SIGTERM":     {agent: step{"delay": "30s"}, tail: "trap '' TERM; while :; do sleep 0.1; done", first: syscall.SIGINT, signal: syscall.SIGINT},
		"SIGTERM after SIGINT ignoring TERM": {agent: step{"delay": "30s"}, tail: "trap '' TERM; while :; do sleep 0.1; done", first: syscall.SIGINT, signal: syscall.SIGTERM},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := newWorkspace(t, tc.agent)
			pidFile := filepath.Join(w.dir, "notifier.pid")
			w.write("rooda-config.yml", "loop:\n"+w.notifier("echo $$ > "+pidFile+"; "+tc.tail))
			s := w.start(w.command("build", "-n", "1"))
			if tc.first != 0 {
				w.waitForPids(1)
				s.cmd.Process.Signal(tc.first)
			}
			w.waitForLog(s, "notify (run_finished): waiting for loop.notify's command to end (at most 30s); Ctrl+C stops it", "rooda never said it waits for the notifier")
			s.cmd.Process.Signal(tc.signal)
			o := w.wait(s)
			// The exit code is the run's, as its record says: a success
			// whose notice was cut is still a success.
			code := 0
			if tc.first != 0 {
				code = 130
			}
			o.expect(t, code, "WARN: notify (run_finished): stopped: interrupted by "+signalNames[tc.signal])
			if status := w.runStatus(); status != map[int]string{0: "success", 130: "interrupted"}[code] {
				t.Errorf("the record says %s, the exit code %d", status, code)
			}
			if strings.Contains(o.stderr, "timed out") {
				t.Errorf("the notifier ran out its time:\n%s", o.stderr)
			}
			if pid := pids(pidFile); len(pid) != 1 || alive(pid[0]) {
				t.Errorf("the notifier %v survived rooda", pid)
			}
			if len(w.notices()) != 1 {
				t.Errorf("notices: %v", w.notices())
			}
		})
	}
}
