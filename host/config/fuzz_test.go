package config

import (
	"bytes"
	"testing"
)

// FuzzDecode: no input makes the loader panic, and whatever it accepts,
// "config show" writes and the loader reads back.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		"", "loop: {}", "loop: [1]", "- a", "procedures: {p: {observe: a.md}}",
		"procedures:\n  p:\n    observe:\n      - path: a.md\n        parameters: {a: [1, {b: c}]}\n",
		"loop:\n  iteration_timeout: null\n  max_output_buffer: 10MB\n",
		"ai_cmd_aliases: {x: y}\nloop: {ai_cmd_alias: x}", "a: &a [*a]",
		"loop:\n  checks:\n    - {name: t, run: \"go test ./... && echo '#ok'\"}\nprocedures: {p: {checks: [], act: [x.md]}}\n",
		"libraries: {team: {git: ../repo, ref: v1, path: star}, dir: ./lib}\nloop: {log_format: json, keep_runs: 3, runs_dir: out}\n", "? [a]\n: b", "loop: !!binary aGVsbG8=",
		string(builtinYAML),
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Decode(data, Source{Workspace, "./rooda-config.yml"}, "/work")
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := cfg.WriteYAML(&out); err != nil {
			t.Fatal(err)
		}
		if _, err := Decode(out.Bytes(), Source{Workspace, "./shown.yml"}, "/work"); err != nil {
			t.Fatalf("config show wrote what the loader rejects: %v\ninput:\n%s\nshown:\n%s", err, data, out.String())
		}
	})
}
