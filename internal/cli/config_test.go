package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rooda/host/config"
	"rooda/internal/golden"
)

// inWorkspace runs the test in a fresh directory, with a global
// configuration directory of its own and no ROODA_ variables from outside.
// It returns the directory.
func inWorkspace(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("HOME", dir)
	t.Setenv("ROODA_CONFIG_HOME", filepath.Join(dir, "global"))
	for _, key := range []string{"log_level", "show_ai_output", "iteration_mode", "default_max_iterations", "iteration_timeout",
		"max_output_buffer", "failure_threshold", "ai_cmd", "ai_cmd_alias"} {
		t.Setenv(config.EnvName(key), "")
	}
	t.Setenv("ROODA_LOG_LEVEL", "")
	t.Setenv("ROODA_SHOW_AI_OUTPUT", "")
	for rel, content := range files {
		path := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const customConfig = `loop:
  failure_threshold: 2
  ai_cmd_alias: claude
procedures:
  review:
    display: Review
    summary: Review the last commit
    description: Reads the last commit and writes review notes.
    default_max_iterations: 1
    observe:
      - path: prompts/observe.md
      - builtin:fragments/observe/read_agents_md.md
    orient:
      - content: "Judge {{.what}} against the specs."
        parameters: {what: the diff}
    decide: []
    act:
      - builtin:fragments/act/emit_signal.md
`

func TestList(t *testing.T) {
	inWorkspace(t, map[string]string{"rooda-config.yml": customConfig, "prompts/observe.md": "# Observe\n\nRead the diff."})
	stdout, stderr, code := rooda("list")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	golden.Check(t, "list", stdout)

	stdout, _, code = rooda("list", "--json")
	var procs []config.ProcedureJSON
	if err := json.Unmarshal([]byte(stdout), &procs); code != 0 || err != nil {
		t.Fatalf("exit %d, %v:\n%s", code, err, stdout)
	}
	if len(procs) != 17 || procs[0].Name != "agents-sync" {
		t.Errorf("list --json: %d procedures, first %+v", len(procs), procs[0])
	}
	for _, p := range procs {
		if p.Name == "review" && (p.Summary != "Review the last commit" || p.Source != "workspace: ./rooda-config.yml") {
			t.Errorf("review: %+v", p)
		}
	}
}

func TestInfo(t *testing.T) {
	inWorkspace(t, map[string]string{"rooda-config.yml": customConfig, "prompts/observe.md": "# Observe\n\nRead the diff."})
	for _, tc := range []struct {
		golden string
		args   []string
		env    map[string]string
	}{
		{"info_build", []string{"info", "build"}, nil},
		{"info_review", []string{"info", "review", "--failure-threshold", "4"}, map[string]string{"ROODA_LOOP_ITERATION_TIMEOUT": "10m"}},
		{"info_no_ai_command", []string{"info", "build", "--config", "other.yml"}, nil},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			if err := os.WriteFile("other.yml", nil, 0o644); err != nil {
				t.Fatal(err)
			}
			stdout, stderr, code := rooda(tc.args...)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			golden.Check(t, tc.golden, stdout)
		})
	}
}

// TestInfoBrokenProcedure: info still describes the procedure, then fails
// with every problem.
func TestInfoBrokenProcedure(t *testing.T) {
	inWorkspace(t, map[string]string{"rooda-config.yml": customConfig})
	stdout, stderr, code := rooda("info", "review")
	if code != 1 || !strings.Contains(stdout, "prompts/observe.md") {
		t.Errorf("exit %d, stdout:\n%s", code, stdout)
	}
	if !strings.HasPrefix(stderr, "Error: procedure review: observe phase fragment 0 (./rooda-config.yml:11): fragment file not found: prompts/observe.md") {
		t.Errorf("stderr:\n%s", stderr)
	}
}

func TestConfigShow(t *testing.T) {
	inWorkspace(t, map[string]string{"rooda-config.yml": customConfig})
	t.Setenv("ROODA_LOG_LEVEL", "debug")
	stdout, stderr, code := rooda("config", "show", "-q")
	if code != 0 || !strings.Contains(stdout, "log_level: warn                               # cli: --quiet") {
		t.Fatalf("-q beats ROODA_LOG_LEVEL: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	stdout, stderr, code = rooda("config", "show", "--verbose")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	golden.Check(t, "config_show", stdout)
}

func TestConfigErrors(t *testing.T) {
	inWorkspace(t, map[string]string{"rooda-config.yml": "loop:\n  failure_threshold: 0\n  colour: blue\n"})
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"error_config_file", []string{"list"}},
		{"error_config_missing", []string{"list", "--config", "missing.yml"}},
		{"error_info_no_name", []string{"info", "--config", "missing.yml"}},
		{"error_verbose_quiet", []string{"config", "show", "-v", "-q"}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			stdout, stderr, code := rooda(tc.args...)
			if code != 1 || stdout != "" {
				t.Errorf("exit %d, stdout %q", code, stdout)
			}
			golden.Check(t, tc.golden, stderr)
		})
	}
}
