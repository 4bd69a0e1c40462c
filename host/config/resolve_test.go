package config

import (
	"strings"
	"testing"
)

// TestMaxIterations follows seed 002's precedence: --max-iterations >
// --unlimited > procedure mode/count > loop mode/count > 5; and a value
// the user wrote beats a built-in procedure's default.
func TestMaxIterations(t *testing.T) {
	tests := []struct {
		name      string
		workspace string
		env       map[string]string
		flags     []Flag
		procedure string
		want      string // "N (source)"
	}{
		{"built-in default of the procedure", "", nil, nil, "build", "10 (built-in)"},
		{"loop default for a new procedure", "procedures: {p: {act: [{content: x}]}}", nil, nil, "p", "5 (built-in)"},
		{"workspace loop beats a built-in procedure default", "loop: {default_max_iterations: 3}", nil, nil, "build", "3 (workspace: ./rooda-config.yml)"},
		{"env loop beats a built-in procedure default", "", map[string]string{"ROODA_LOOP_DEFAULT_MAX_ITERATIONS": "4"}, nil, "build", "4 (env: ROODA_LOOP_DEFAULT_MAX_ITERATIONS)"},
		{"loop unlimited beats a built-in procedure default", "loop: {iteration_mode: unlimited}", nil, nil, "build", "unlimited (workspace: ./rooda-config.yml)"},
		{"user procedure beats user loop", "loop: {default_max_iterations: 3}\nprocedures: {build: {default_max_iterations: 7}}", nil, nil, "build", "7 (workspace: ./rooda-config.yml)"},
		{"procedure unlimited beats loop count", "loop: {default_max_iterations: 3}\nprocedures: {build: {iteration_mode: unlimited, default_max_iterations: 7}}", nil, nil, "build", "unlimited (workspace: ./rooda-config.yml)"},
		{"procedure mode max-iterations takes the loop count", "loop: {iteration_mode: unlimited, default_max_iterations: 4}\nprocedures: {p: {iteration_mode: max-iterations, act: [{content: x}]}}", nil, nil, "p", "4 (workspace: ./rooda-config.yml)"},
		{"loop count ignored when loop is unlimited", "loop: {iteration_mode: unlimited, default_max_iterations: 4}\nprocedures: {p: {act: [{content: x}]}}", nil, nil, "p", "unlimited (workspace: ./rooda-config.yml)"},
		{"--unlimited beats the procedure", "procedures: {build: {default_max_iterations: 7}}", nil, []Flag{{"unlimited", "true"}}, "build", "unlimited (cli: --unlimited)"},
		{"--max-iterations beats procedure unlimited", "procedures: {build: {iteration_mode: unlimited}}", nil, []Flag{{"max-iterations", "2"}}, "build", "2 (cli: --max-iterations)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSandbox(t)
			s.workspace(tc.workspace)
			for k, v := range tc.env {
				s.env[k] = v
			}
			st, err := s.mustLoad(tc.flags...).Resolve(tc.procedure)
			if err != nil {
				t.Fatal(err)
			}
			if got := FormatMaxIterations(st.MaxIterations.V) + " (" + st.MaxIterations.Source.String() + ")"; got != tc.want {
				t.Errorf("max iterations %s, want %s", got, tc.want)
			}
			// MaxIterations is the only way to read it: the rows of the
			// mode and count, alone, could say otherwise.
			if mode, count := IterationMode.In(st), DefaultMaxIterations.In(st); mode.Set || count.Set {
				t.Errorf("the resolved settings also hold iteration_mode %v and default_max_iterations %v", mode, count)
			}
		})
	}
}

// TestLimitsFollowTheLevels: timeout, buffer and threshold come from the
// command line, else the procedure, else the loop.
func TestLimitsFollowTheLevels(t *testing.T) {
	s := newSandbox(t)
	s.workspace(`loop: {iteration_timeout: 60, max_output_buffer: 2048, failure_threshold: 2}
procedures:
  build: {iteration_timeout: 5m, failure_threshold: 4}
`)
	st, err := s.mustLoad(Flag{"failure-threshold", "9"}).Resolve("build")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Join(st.Lines(), "\n")
	for _, want := range []string{
		"Iteration Timeout: 5m (workspace: ./rooda-config.yml)",
		"Max Output Buffer: 2KB (workspace: ./rooda-config.yml)",
		"Failure Threshold: 9 (cli: --failure-threshold)",
	} {
		if !strings.Contains(lines, want) {
			t.Errorf("missing %q in\n%s", want, lines)
		}
	}
}

// TestAICommandChain follows seed 002: --ai-cmd > --ai-cmd-alias >
// procedure ai_cmd > procedure alias > loop ai_cmd > loop alias.
func TestAICommandChain(t *testing.T) {
	all := `ai_cmd_aliases: {mine: my-agent --fast}
loop: {ai_cmd: loop-cmd, ai_cmd_alias: claude}
procedures:
  build: {ai_cmd: proc-cmd, ai_cmd_alias: mine}
`
	tests := []struct {
		name, workspace string
		flags           []Flag
		want            string
	}{
		{"--ai-cmd first", all, []Flag{{"ai-cmd-alias", "codex"}, {"ai-cmd", "flag-cmd"}}, "flag-cmd (cli: --ai-cmd)"},
		{"then --ai-cmd-alias", all, []Flag{{"ai-cmd-alias", "claude"}}, `claude -p --dangerously-skip-permissions --output-format stream-json --verbose (cli: --ai-cmd-alias "claude" → built-in alias)`},
		{"then procedure ai_cmd", all, nil, "proc-cmd (workspace: ./rooda-config.yml)"},
		{"then procedure alias", strings.Replace(all, "ai_cmd: proc-cmd, ", "", 1), nil,
			`my-agent --fast (workspace: ./rooda-config.yml "mine" → alias in workspace: ./rooda-config.yml)`},
		{"then loop ai_cmd", "loop: {ai_cmd: loop-cmd, ai_cmd_alias: claude}", nil, "loop-cmd (workspace: ./rooda-config.yml)"},
		{"then loop alias", "loop: {ai_cmd_alias: claude}", nil, `claude -p --dangerously-skip-permissions --output-format stream-json --verbose (workspace: ./rooda-config.yml "claude" → built-in alias)`},
		{"an alias can be overridden", "ai_cmd_aliases: {claude: claude -p}\nloop: {ai_cmd_alias: claude}", nil,
			`claude -p (workspace: ./rooda-config.yml "claude" → alias in workspace: ./rooda-config.yml)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSandbox(t)
			s.workspace(tc.workspace)
			st, err := s.mustLoad(tc.flags...).Resolve("build")
			if err != nil {
				t.Fatal(err)
			}
			if got := st.AICommand.V + " (" + st.AICommand.Source.String() + ")"; got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestNoAICommand(t *testing.T) {
	st, err := newSandbox(t).mustLoad().Resolve("build")
	if err != nil {
		t.Fatal(err)
	}
	_, err = st.AI([]string{"claude", "codex"})
	if err == nil || !strings.Contains(err.Error(), "no AI command configured") || !strings.HasSuffix(err.Error(), "Available aliases: claude, codex") {
		t.Errorf("error: %v", err)
	}
}
