package config

import (
	"cmp"
	"testing"
)

// TestLogFormatWithoutLoading: the log format is the highest tier's that
// can be read, whether or not the configuration loads.
func TestLogFormatWithoutLoading(t *testing.T) {
	jsonFlag := Flag{"log-format", "json"}
	for _, tc := range []struct {
		name              string
		global, workspace string
		env               string
		flags             []Flag
		want              string
	}{
		{name: "nothing set", want: "text"},
		{name: "the flag over a broken file", workspace: "loop: [\n", flags: []Flag{jsonFlag}, want: "json"},
		{name: "the last flag", flags: []Flag{jsonFlag, {"log-format", "text"}}, want: "text"},
		{name: "an invalid flag is no tier", flags: []Flag{{"log-format", "xml"}}, env: "json", want: "json"},
		{name: "the environment over a broken file", workspace: "loop: [\n", env: "json", want: "json"},
		{name: "the flag over the environment", env: "json", flags: []Flag{{"log-format", "text"}}, want: "text"},
		{name: "a file wrong elsewhere", workspace: "loop:\n  log_format: json\n  max_iterashuns: [\n    3]\nnonsense: 1\n", want: "json"},
		{name: "the global file under a broken workspace file", global: "loop:\n  log_format: json\n", workspace: "loop: [\n", want: "json"},
		{name: "the workspace file over the global", global: "loop:\n  log_format: json\n", workspace: "loop:\n  log_format: text\n", want: "text"},
		{name: "a file that is no mapping", workspace: "- log_format: json\n", want: "text"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSandbox(t)
			if tc.global != "" {
				s.global(tc.global)
			}
			if tc.workspace != "" {
				s.workspace(tc.workspace)
			}
			if tc.env != "" {
				s.env[EnvName("log_format")] = tc.env
			}
			if got := LogFormatOf(s.options(tc.flags...)); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			// Unset, the loaded format is "": text.
			if cfg, err := s.load(tc.flags...); err == nil && cmp.Or(LogFormat.In(&cfg.Loop).V, "text") != tc.want {
				t.Errorf("the configuration loads with %q, LogFormatOf says %q", LogFormat.In(&cfg.Loop).V, tc.want)
			}
		})
	}
}
