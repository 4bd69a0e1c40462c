package config

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestEachTierWins layers the tiers one at a time, for every loop key, and
// checks that each tier overrides the one below it and is named as the
// source.
func TestEachTierWins(t *testing.T) {
	tests := []struct {
		key                      string
		global, workspace, env   string
		flag, flagValue, flagWin string
	}{
		{"iteration_mode", "unlimited", "max-iterations", "unlimited", "unlimited", "true", "unlimited"},
		{"default_max_iterations", "2", "3", "4", "max-iterations", "6", "6"},
		{"iteration_timeout", "10s", "20s", "30s", "iteration-timeout", "90", "1m30s"},
		{"max_output_buffer", "2KB", "4KB", "8KB", "max-output-buffer", "16384", "16KB"},
		{"failure_threshold", "2", "3", "4", "failure-threshold", "5", "5"},
		{"log_level", "debug", "info", "warn", "log-level", "error", "error"},
		{"show_ai_output", "true", "false", "true", "verbose", "true", "true"},
		{"ai_cmd", "agent-a", "agent-b", "agent-c", "ai-cmd", "agent-d", "agent-d"},
		{"ai_cmd_alias", "claude", "codex", "gemini", "ai-cmd-alias", "amp", "amp"},
	}
	for _, tc := range tests {
		t.Run(tc.key, func(t *testing.T) {
			s := newSandbox(t)
			check := func(stage, want, wantSource string, flags ...Flag) {
				t.Helper()
				f := effective(s.mustLoad(flags...), tc.key)
				if got := f.format(); got != want && got != quote(want) {
					t.Errorf("%s: %s = %s, want %s", stage, tc.key, got, want)
				}
				if got := f.origin().String(); got != wantSource {
					t.Errorf("%s: source %q, want %q", stage, got, wantSource)
				}
			}
			s.global(fmt.Sprintf("loop:\n  %s: %s\n", tc.key, tc.global))
			check("global", tc.global, "global: ~/.config/rooda/rooda-config.yml")
			s.workspace(fmt.Sprintf("loop:\n  %s: %s\n", tc.key, tc.workspace))
			check("workspace", tc.workspace, "workspace: ./rooda-config.yml")
			s.env[EnvName(tc.key)] = tc.env
			check("env", tc.env, "env: "+EnvName(tc.key))
			check("flag", tc.flagWin, "cli: --"+tc.flag, Flag{tc.flag, tc.flagValue})
		})
	}
}

// TestSeedEnvNames: seed 002 names ROODA_LOG_LEVEL and ROODA_SHOW_AI_OUTPUT.
func TestSeedEnvNames(t *testing.T) {
	s := newSandbox(t)
	s.workspace("loop:\n  log_level: error\n  show_ai_output: true\n")
	s.env["ROODA_LOG_LEVEL"] = "debug"
	s.env["ROODA_SHOW_AI_OUTPUT"] = "false"
	cfg := s.mustLoad()
	if l := LogLevel.In(&cfg.Loop); l.V != "debug" || l.Source.String() != "env: ROODA_LOG_LEVEL" {
		t.Errorf("log level %q from %s", l.V, l.Source)
	}
	if v := ShowAIOutput.In(&cfg.Loop); v.V || v.Source.String() != "env: ROODA_SHOW_AI_OUTPUT" {
		t.Errorf("show_ai_output %v from %s", v.V, v.Source)
	}
}

// TestOtherRoodaVariablesPass: only a set ROODA_LOOP_ variable must name a
// setting. What rooda gives its agent (and so a rooda the agent runs), the
// global directory and an emptied typo are no error.
func TestOtherRoodaVariablesPass(t *testing.T) {
	s := newSandbox(t)
	for k, v := range map[string]string{
		"ROODA_ITERATION": "2", "ROODA_MAX_ITERATIONS": "unlimited", "ROODA_PROCEDURE": "build",
		"ROODA_CONFIG_HOME": s.root + "/none", "ROODA_DEBUG": "1", "ROODA_LOOP_MAX_ITERATION": "",
		"ROODA_LOOP_FAILURE_THRESHOLD": "4",
	} {
		s.env[k] = v
	}
	if v := FailureThreshold.In(&s.mustLoad().Loop).V; v != 4 {
		t.Errorf("failure_threshold = %d, want 4 from the environment", v)
	}
}

// TestUnknownVariableNeedsEnviron: given only LookupEnv (as a script's
// check, which reads no environment, is), Load cannot list variables and
// checks none.
func TestUnknownVariableNeedsEnviron(t *testing.T) {
	s := newSandbox(t)
	s.env["ROODA_LOOP_MAX_ITERATION"] = "3"
	opts := s.options()
	if _, err := Load(opts); err == nil || !strings.Contains(err.Error(), "ROODA_LOOP_MAX_ITERATION is not a rooda setting") {
		t.Errorf("with Environ: %v, want the unknown variable reported", err)
	}
	opts.Environ = nil
	if _, err := Load(opts); err != nil {
		t.Error(err)
	}
}

// TestFalseAndNoneOverride: a value equal to the type's zero still
// overrides a lower tier.
func TestFalseAndNoneOverride(t *testing.T) {
	tests := []struct {
		name, global, workspace string
		env                     map[string]string
		key, want, wantSource   string
	}{
		{"false over true", "show_ai_output: true", "show_ai_output: false", nil, "show_ai_output", "false", "workspace: ./rooda-config.yml"},
		{"env false over workspace true", "", "show_ai_output: true", map[string]string{"ROODA_LOOP_SHOW_AI_OUTPUT": "false"},
			"show_ai_output", "false", "env: ROODA_LOOP_SHOW_AI_OUTPUT"},
		{"none over a timeout", "iteration_timeout: 300", "iteration_timeout: none", nil, "iteration_timeout", "none", "workspace: ./rooda-config.yml"},
		{"null over a timeout", "iteration_timeout: 300", "iteration_timeout: null", nil, "iteration_timeout", "none", "workspace: ./rooda-config.yml"},
		{"env none over a timeout", "iteration_timeout: 300", "", map[string]string{"ROODA_LOOP_ITERATION_TIMEOUT": "none"},
			"iteration_timeout", "none", "env: ROODA_LOOP_ITERATION_TIMEOUT"},
		{"empty env is unset", "", "log_level: warn", map[string]string{"ROODA_LOG_LEVEL": ""}, "log_level", "warn", "workspace: ./rooda-config.yml"},
		{"max-iterations over unlimited", "iteration_mode: unlimited", "iteration_mode: max-iterations", nil,
			"iteration_mode", "max-iterations", "workspace: ./rooda-config.yml"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSandbox(t)
			s.global("loop:\n  " + tc.global + "\n")
			s.workspace("loop:\n  " + tc.workspace + "\n")
			for k, v := range tc.env {
				s.env[k] = v
			}
			f := loopField(s.mustLoad(), tc.key)
			if f.format() != tc.want || f.origin().String() != tc.wantSource {
				t.Errorf("%s = %s (%s), want %s (%s)", tc.key, f.format(), f.origin(), tc.want, tc.wantSource)
			}
		})
	}
}

func TestGlobalDirectory(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		file string
		want string
	}{
		{"ROODA_CONFIG_HOME first", map[string]string{"ROODA_CONFIG_HOME": "$ROOT/rch", "XDG_CONFIG_HOME": "$ROOT/xdg"}, "rch/rooda-config.yml", "global: $SANDBOX/rch/rooda-config.yml"},
		{"then XDG_CONFIG_HOME", map[string]string{"XDG_CONFIG_HOME": "$ROOT/xdg"}, "xdg/rooda/rooda-config.yml", "global: $SANDBOX/xdg/rooda/rooda-config.yml"},
		{"then ~/.config", nil, "home/.config/rooda/rooda-config.yml", "global: ~/.config/rooda/rooda-config.yml"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSandbox(t)
			for k, v := range tc.env {
				s.env[k] = s.root + v[len("$ROOT"):]
			}
			s.write(tc.file, "loop:\n  failure_threshold: 7\n")
			f := FailureThreshold.In(&s.mustLoad().Loop)
			if f.V != 7 || s.scrub(f.Source.String()) != tc.want {
				t.Errorf("failure_threshold %d from %s, want 7 from %s", f.V, s.scrub(f.Source.String()), tc.want)
			}
		})
	}
}

// TestWorkspaceInGlobalDir: running rooda in the global directory reads
// its file once, as the workspace.
func TestWorkspaceInGlobalDir(t *testing.T) {
	s := newSandbox(t)
	s.env["ROODA_CONFIG_HOME"] = s.work
	s.workspace("loop:\n  failure_threshold: 4\n")
	cfg := s.mustLoad()
	if len(cfg.Files) != 1 || cfg.Files[0].Tier != Workspace {
		t.Errorf("files read: %v", cfg.Files)
	}
}

func TestExplicitConfigFile(t *testing.T) {
	s := newSandbox(t)
	s.workspace("loop:\n  failure_threshold: 4\n")
	s.write("work/ci/rooda.yml", "loop:\n  failure_threshold: 9\n")
	opts := s.options()
	opts.ConfigFile = "ci/rooda.yml"
	cfg, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	if f := FailureThreshold.In(&cfg.Loop); f.V != 9 || f.Source.String() != "workspace: ./ci/rooda.yml" {
		t.Errorf("failure_threshold %d from %s: --config must replace ./rooda-config.yml", f.V, f.Source)
	}
}

// TestListsInYAML: a list setting takes a YAML list as it takes its
// items joined by its separator; a path's ${VAR:-default} is one item,
// and the joined text splits back into the items.
func TestListsInYAML(t *testing.T) {
	s := newSandbox(t)
	s.workspace("loop:\n  sandbox_write: [~/.m2, /opt/cache, \"${M2:-~/.m2}/x\"]\n  sandbox_net:\n    - 443\n    - 8080\n")
	cfg := s.mustLoad()
	for key, want := range map[string]string{"sandbox_write": "~/.m2:/opt/cache:${M2:-~/.m2}/x", "sandbox_net": "443,8080"} {
		if f := loopField(cfg, key); f.format() != want {
			t.Errorf("%s = %s, want %s", key, f.format(), want)
		}
	}
	if got := SplitList("~/.m2:/opt/cache:${M2:-~/.m2}/x", ":"); !slices.Equal(got, []string{"~/.m2", "/opt/cache", "${M2:-~/.m2}/x"}) {
		t.Errorf("split: %q", got)
	}
}
