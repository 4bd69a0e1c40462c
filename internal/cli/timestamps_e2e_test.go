package cli

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestUpstreamRelativeTimestamps: a configuration of the upstream Go
// rooda with log_timestamp_format: relative loads, and every log line is
// stamped with the time since the run started, which goes on.
func TestUpstreamRelativeTimestamps(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": "working\n", "delay": "1200ms"}, step{"output": "done\n"})
	w.write("rooda-config.yml", "loop:\n  iteration_mode: max-iterations\n  default_max_iterations: 2\n  failure_threshold: 3\n"+
		"  log_level: info\n  log_timestamp_format: relative\n  show_ai_output: false\n  ai_cmd: \""+w.aiCmd()+"\"\n")
	cmd := exec.Command(binary(t), "run", "build") // the agent from the file
	cmd.Dir, cmd.Env = w.dir, w.env
	o := w.wait(w.start(cmd))
	o.expect(t, 2, "Reached max iterations: 2")
	relative := regexp.MustCompile(`^\[\+(\d+)s\] `)
	var last string
	for _, line := range strings.Split(strings.TrimRight(o.stderr, "\n"), "\n") {
		if strings.HasPrefix(line, "  ") {
			continue // a detail line under the summary, without a stamp
		}
		m := relative.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("line without a relative stamp: %q\nstderr:\n%s", line, o.stderr)
		}
		last = m[1]
	}
	if !strings.HasPrefix(o.stderr, "[+0s] ") || last == "0" {
		t.Errorf("the stamps do not count from the start:\n%s", o.stderr)
	}
}

// TestTimestampFormatFromEnvironmentAndFlag: ROODA_LOOP_LOG_TIMESTAMP_FORMAT
// sets the stamps, and --log-timestamp-format beats it.
func TestTimestampFormatFromEnvironmentAndFlag(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": "x\n"})
	w.env = append(w.env, "ROODA_LOOP_LOG_TIMESTAMP_FORMAT=none")
	o := w.run("build", "-n", "1")
	o.expect(t, 2)
	if regexp.MustCompile(`(?m)^\[`).MatchString(o.stderr) {
		t.Errorf("none still stamps:\n%s", o.stderr)
	}
	o = w.run("build", "-n", "1", "--log-timestamp-format", "time-ms")
	if !regexp.MustCompile(`(?m)^\[\d\d:\d\d:\d\d\.\d{3}\] Reached max iterations: 1`).MatchString(o.stderr) {
		t.Errorf("--log-timestamp-format time-ms:\n%s", o.stderr)
	}
	o = w.run("build", "-n", "1", "--log-timestamp-format", "iso")
	if !regexp.MustCompile(`(?m)^\[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}(Z|[+-]\d\d:\d\d)\] Reached max iterations: 1`).MatchString(o.stderr) {
		t.Errorf("--log-timestamp-format iso:\n%s", o.stderr)
	}
}
