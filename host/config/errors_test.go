package config

import (
	"os"
	"path/filepath"
	"testing"

	"rooda/internal/golden"
)

// TestErrorMessages keeps every configuration error's exact text in
// testdata/errors/<name>.golden (go test -update rewrites them).
func TestErrorMessages(t *testing.T) {
	tests := []struct {
		name      string
		workspace string
		files     map[string]string // more files under the sandbox
		env       map[string]string
		flags     []Flag
		config    string // --config, relative to the workspace
		check     string // a procedure to Check after loading
	}{
		{name: "yaml_syntax", workspace: "loop: [\n"},
		{name: "two_documents", workspace: "loop: {}\n---\nloop: {}\n"},
		{name: "yaml_control_character", workspace: "loop:\n  log_level: in\x07fo\n"},
		{name: "yaml_invalid_utf8", workspace: "loop:\n  ai_cmd: caf\xe9 -p\n"},
		{name: "yaml_unknown_anchor", workspace: "loop: &base\n  log_level: info\nprocedures:\n  p:\n    act: *bsae # typo\n"},
		{name: "yaml_bad_indentation", workspace: "loop:\n  log_level: info\n   ai_cmd: x\n"},
		{name: "yaml_dedented_key", workspace: "loop:\n  log_level: info\n ai_cmd: x\n"},
		{name: "yaml_tab_indentation", workspace: "loop:\n\tlog_level: info\n"},
		{name: "yaml_unterminated_quote", workspace: "loop:\n  ai_cmd: \"claude -p\n  log_level: info\n"},
		{name: "yaml_unterminated_flow", workspace: "loop: {log_level: info\n"},
		{name: "yaml_list_after_mapping", workspace: "loop: {}\n- build\n"},
		{name: "yaml_first_line", workspace: "loop: log_level: info\n"},
		{name: "yaml_unknown_escape", workspace: "\n\nloop:\n  ai_cmd: \"a\\qb\"\n"},
		{name: "yaml_utf16_control_character", workspace: "\xff\xfel\x00:\x00 \x00\x01\x00\n\x00"},
		{name: "yaml_not_a_mapping", workspace: "just some text\n"},
		{name: "yaml_control_character_in_config", config: "b.yml", files: map[string]string{"work/b.yml": "loop:\n  log_level: a\x01b\n"}},
		{name: "not_an_integer", workspace: "loop:\n  default_max_iterations: abc\n"},
		{name: "not_a_boolean", workspace: "loop:\n  show_ai_output: maybe\n"},
		{name: "unknown_key_close", workspace: "loop:\n  failure_treshold: 3\n"},
		{name: "unknown_key_far", workspace: "loop:\n  colour: red\n"},
		{name: "unknown_top_key", workspace: "lop:\n  log_level: info\n"},
		{name: "unknown_procedure_key", workspace: "procedures:\n  p:\n    observe: [{content: x}]\n    sumary: typo\n"},
		{name: "unknown_fragment_key", workspace: "procedures:\n  p:\n    observe:\n      - pth: x.md\n"},
		{name: "ranges", workspace: "loop:\n  default_max_iterations: 0\n  iteration_timeout: 0\n  max_output_buffer: 100\n  failure_threshold: -5\n"},
		{name: "enums", workspace: "loop:\n  iteration_mode: sometimes\n  log_level: loud\n"},
		{name: "enum_close", workspace: "loop:\n  log_level: wran\n"},
		{name: "no_value", workspace: "loop:\n  failure_threshold:\n"},
		{name: "list_for_map", workspace: "loop: [1, 2]\n"},
		{name: "list_item_with_separator", workspace: "loop:\n  sandbox_write:\n    - ~/.m2\n    - \"a:b\"\n"},
		{name: "list_of_ports", workspace: "loop:\n  sandbox_net: [443, http]\n"},
		{name: "top_level_list", workspace: "- loop\n- procedures\n"},
		{name: "procedures_string", workspace: "procedures: build\n"},
		{name: "mapping_for_scalar", workspace: "loop:\n  ai_cmd: {name: claude}\n"},
		{name: "fragment_wrong_type", workspace: "procedures:\n  p:\n    observe:\n      - [a.md]\n"},
		{name: "parameters_not_map", workspace: "procedures:\n  p:\n    observe:\n      - content: x\n        parameters: [a]\n"},
		{name: "duplicate_key", workspace: "loop:\n  log_level: info\n  log_level: debug\n"},
		{name: "script_and_phases", workspace: "procedures:\n  p:\n    script: p.star\n    act: [{content: x}]\n"},
		{name: "script_not_star", workspace: "procedures:\n  p:\n    script: p.py\n"},
		{name: "empty_procedure", workspace: "procedures:\n  p:\n"},
		{name: "procedure_without_phases", workspace: "procedures:\n  p:\n    summary: nothing to run\n"},
		{name: "bad_procedure_name", workspace: "procedures:\n  my proc:\n    act: [{content: x}]\n"},
		{name: "alias_unknown_loop", workspace: "loop:\n  ai_cmd_alias: claud\n"},
		{name: "alias_unknown_procedure", workspace: "procedures:\n  build:\n    ai_cmd_alias: nope\n"},
		{name: "alias_unknown_env", env: map[string]string{"ROODA_LOOP_AI_CMD_ALIAS": "gemnii"}},
		{name: "alias_unknown_flag", flags: []Flag{{"ai-cmd-alias", "kiro"}}},
		{name: "command_unterminated_quote", workspace: "loop:\n  ai_cmd: claude -p 'oops\n"},
		{name: "alias_empty_command", workspace: "ai_cmd_aliases:\n  mine: \"  \"\n"},
		{name: "many_problems", workspace: "loop:\n  log_level: loud\n  failure_threshold: 0\nprocedures:\n  p:\n    observ: [x.md]\n"},
		{name: "env_not_integer", env: map[string]string{"ROODA_LOOP_DEFAULT_MAX_ITERATIONS": "abc"}},
		{name: "env_range", env: map[string]string{"ROODA_LOOP_FAILURE_THRESHOLD": "0", "ROODA_LOOP_MAX_OUTPUT_BUFFER": "1KB0"}},
		{name: "env_bool", env: map[string]string{"ROODA_SHOW_AI_OUTPUT": "yes please"}},
		{name: "env_timeout", env: map[string]string{"ROODA_LOOP_ITERATION_TIMEOUT": "soon"}},
		{name: "env_level", env: map[string]string{"ROODA_LOG_LEVEL": "verbose"}},
		{name: "env_unknown_variable", env: map[string]string{"ROODA_LOOP_MAX_ITERATION": "3"}},
		{name: "env_unknown_variable_typo", env: map[string]string{"ROODA_LOOP_FAILURE_TRESHOLD": "2", "ROODA_LOOP_LOG_LEVEL": "debug"}},
		{name: "env_unknown_variable_far", env: map[string]string{"ROODA_LOOP_COLOUR": "red"}},
		{name: "env_unknown_variable_lower_case", env: map[string]string{"ROODA_LOOP_failure_threshold": "2"}},
		{name: "env_unknown_variable_and_bad_value", env: map[string]string{"ROODA_LOOP_ITERATIONS": "2", "ROODA_LOOP_FAILURE_THRESHOLD": "none"}},
		{name: "env_disagree", env: map[string]string{"ROODA_LOG_LEVEL": "debug", "ROODA_LOOP_LOG_LEVEL": "warn"}},
		{name: "flag_zero_iterations", flags: []Flag{{"max-iterations", "0"}}},
		{name: "flag_conflict_iterations", flags: []Flag{{"max-iterations", "3"}, {"unlimited", "true"}}},
		{name: "flag_conflict_level", flags: []Flag{{"quiet", "true"}, {"log-level", "debug"}}},
		{name: "flag_bad_timeout", flags: []Flag{{"iteration-timeout", "500ms"}}},
		{name: "config_missing", config: "nope/rooda-config.yml"},
		{name: "config_directory", config: "adir", files: map[string]string{"work/adir/x": ""}},
		{name: "fragment_missing", workspace: "procedures:\n  p:\n    observe:\n      - content: fine\n      - path: prompts/missing.md\n", check: "p"},
		{name: "fragment_builtin_typo", workspace: "procedures:\n  p:\n    orient:\n      - builtin:fragments/orient/search_codebse.md\n", check: "p"},
		{name: "fragment_both", workspace: "procedures:\n  p:\n    act:\n      - path: a.md\n        content: b\n", check: "p"},
		{name: "fragment_template", workspace: "procedures:\n  p:\n    act:\n      - content: \"line one\\n{{.x\"\n        parameters: {x: 1}\n", check: "p"},
		{name: "script_missing", workspace: "procedures:\n  p:\n    script: scripts/p.star\n", check: "p"},
		{name: "unknown_procedure", check: "biuld"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSandbox(t)
			if tc.workspace != "" {
				s.workspace(tc.workspace)
			}
			for rel, content := range tc.files {
				s.write(rel, content)
			}
			for k, v := range tc.env {
				s.env[k] = v
			}
			opts := s.options(tc.flags...)
			if tc.config != "" {
				opts.ConfigFile = tc.config
			}
			cfg, err := Load(opts)
			if err == nil && tc.check != "" {
				err = cfg.Check(tc.check)
			}
			if err == nil {
				t.Fatal("no error")
			}
			golden.Check(t, filepath.Join("errors", tc.name), s.scrub(err.Error())+"\n")
		})
	}
}

// TestUnreadableFile: a config file rooda cannot read is an error that
// names it and says why, not a file skipped. Root reads a file of any
// mode, so the ways that hold for root are tried whoever runs the test:
// a directory, and a link that leads to itself; the file of mode 0 is
// tried too when the test is not root.
func TestUnreadableFile(t *testing.T) {
	const global = ".config/rooda/rooda-config.yml"
	type way struct {
		name, why string
		make      func(path string) error
	}
	cases := []way{
		{"a directory", "it is a directory", func(path string) error { return os.Mkdir(path, 0o755) }},
		{"a link to itself", "too many levels of symbolic links", func(path string) error { return os.Symlink(path, path) }},
	}
	if os.Geteuid() != 0 {
		cases = append(cases, way{"mode 0", "permission denied", func(path string) error {
			if err := os.WriteFile(path, []byte("loop: {}\n"), 0o644); err != nil {
				return err
			}
			return os.Chmod(path, 0)
		}})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSandbox(t)
			path := filepath.Join(s.home, global)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := tc.make(path); err != nil {
				t.Fatal(err)
			}
			_, err := s.load()
			if want := "cannot read global config ~/" + global + ": " + tc.why; err == nil || err.Error() != want {
				t.Errorf("error: %v\nwant:  %s", err, want)
			}
		})
	}
}
