package cli

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// roodaIn runs the built binary in dir, with no global configuration and
// the environment's ROODA_ settings cleared, plus env.
func roodaIn(t *testing.T, dir string, env []string, args ...string) outcome {
	t.Helper()
	w := &workspace{t: t, dir: dir, env: append(os.Environ(), "ROODA_CONFIG_HOME="+filepath.Join(dir, "no-global"),
		"ROODA_LOG_LEVEL=", "ROODA_SHOW_AI_OUTPUT=")}
	w.env = append(w.env, env...)
	return w.rooda(args...)
}

// TestYAMLErrorsNameFileAndPosition: a configuration file YAML cannot read
// gives "Error: FILE:LINE:COL: message" (or FILE:LINE: where yaml.v3 knows
// only the line), never the file's name run into yaml's text.
func TestYAMLErrorsNameFileAndPosition(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, content, want string
	}{
		{"control character", "b.yml", "loop:\n  log_level: a\x01b\n",
			`./b.yml:2:15: control character U+0001 is not allowed in YAML; remove it, or write it as "\x01" inside double quotes`},
		{"invalid UTF-8", "b.yml", "# ok\nloop:\n  ai_cmd: caf\xe9\n",
			"./b.yml:3:14: invalid UTF-8 (byte 0xE9); save the file as UTF-8"},
		{"unknown anchor", "x.yml", "loop:\n  log_level: info\n  ai_cmd: *agent\n",
			"./x.yml:3:11: *agent refers to no anchor; define it first with &agent"},
		{"tab indentation", "rooda-config.yml", "loop:\n\tlog_level: info\n",
			"./rooda-config.yml:2: found character that cannot start any token (YAML indents with spaces, not tabs)"},
		{"bad indentation", "rooda-config.yml", "loop:\n  log_level: info\n   ai_cmd: x\n",
			"./rooda-config.yml:3: mapping values are not allowed in this context"},
		{"unterminated quote", "rooda-config.yml", "loop:\n  ai_cmd: \"claude\n  log_level: info\n",
			"./rooda-config.yml:2: found unexpected end of stream (a quoted string that starts on this line is never closed)"},
		{"error on line 1", "rooda-config.yml", "loop: log_level: info\n",
			"./rooda-config.yml:1: mapping values are not allowed in this context"},
		{"not a mapping", "rooda-config.yml", "just some text\n",
			`./rooda-config.yml:1:1: the configuration file must be a mapping of keys to values, got "just some text"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, tc.file), []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"config", "show"}
			if tc.file != "rooda-config.yml" {
				args = append(args, "--config", tc.file)
			}
			o := roodaIn(t, dir, nil, args...)
			if want := "Error: " + tc.want + "\n"; o.code != 1 || o.stderr != want {
				t.Errorf("exit %d, stderr:\n%s\nwant:\n%s", o.code, o.stderr, want)
			}
		})
	}
}

// valueFlag is a flag that takes a value, and the command that defines it.
type valueFlag struct {
	command []string // the command's path: "run", "script run"; empty for the app
	name    string   // the flag's first name
}

// valueFlags lists every flag that takes a value, of every command.
func valueFlags() []valueFlag {
	app := newApp(io.Discard, io.Discard)
	var out []valueFlag
	add := func(path []string, flags []cli.Flag) {
		for _, f := range flags {
			if v, ok := f.(cli.DocGenerationFlag); ok && v.TakesValue() {
				out = append(out, valueFlag{path, f.Names()[0]})
			}
		}
	}
	var walk func(path []string, commands []*cli.Command)
	walk = func(path []string, commands []*cli.Command) {
		for _, c := range commands {
			p := append(append([]string{}, path...), c.Name)
			add(p, c.Flags)
			walk(p, c.Subcommands)
		}
	}
	add(nil, app.Flags)
	walk(nil, app.Commands)
	return out
}

// TestValueFlagWithoutValue: every flag that takes a value, given none (it
// is the last argument, or another flag follows it), is an error that
// names it, and nothing runs.
func TestValueFlagWithoutValue(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	flags := valueFlags()
	if len(flags) < 20 {
		t.Fatalf("found only %d value flags: %v", len(flags), flags)
	}
	for _, f := range flags {
		cmd := f.command
		if len(cmd) == 0 {
			cmd = []string{"run"} // the app's flags, given to the command that uses them most
		}
		for _, after := range [][]string{nil, {"-q"}, {"--"}} {
			args := append(append(append([]string{}, cmd...), "ARG", "--"+f.name), after...)
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				o := roodaIn(t, dir, nil, args...)
				want := "Error: flag --" + f.name + " needs a value"
				if len(after) == 1 && after[0] != "--" {
					want += ", got the flag " + after[0]
				}
				if o.code != 1 || !strings.HasPrefix(o.stderr, want+"\n") {
					t.Errorf("exit %d, stderr:\n%s\nwant it to start with %q", o.code, o.stderr, want)
				}
			})
		}
	}
}

// TestValueFlagMessageSaysWhatToGive pins one message whole: the flag, what
// it takes, and where to read more.
func TestValueFlagMessageSaysWhatToGive(t *testing.T) {
	t.Parallel()
	o := roodaIn(t, t.TempDir(), nil, "run", "build", "--log-level", "--ai-cmd", "x")
	want := "Error: flag --log-level needs a value, got the flag --ai-cmd\n" +
		"  --log-level LEVEL    log LEVEL: debug, info, warn or error\n" +
		"Write --log-level=VALUE for a value that starts with \"-\". Run 'rooda run --help' for usage.\n"
	if o.code != 1 || o.stderr != want {
		t.Errorf("exit %d, stderr:\n%s\nwant:\n%s", o.code, o.stderr, want)
	}
}

// TestFlagValuesStillParse: the forms that worked keep working: --flag=value,
// "-n 3", a negative number as a value, a value that starts with "-" after
// "=", and "--" before a script's arguments.
func TestFlagValuesStillParse(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		args []string
		code int
		want string // in stdout or stderr
	}{
		{[]string{"info", "build", "--max-iterations=3"}, 0, "Max Iterations: 3 (cli: --max-iterations)"},
		{[]string{"info", "build", "-n", "3"}, 0, "Max Iterations: 3 (cli: --max-iterations)"},
		{[]string{"info", "build", "--log-level=warn", "-n", "4"}, 0, "Max Iterations: 4 (cli: --max-iterations)"},
		{[]string{"info", "build", "-n", "-3"}, 1, "Error: --max-iterations must be >= 1, got -3"},
		{[]string{"info", "build", "--ai-cmd=-weird"}, 0, "AI Command: -weird (cli: --ai-cmd)"},
		{[]string{"runs", "show", "last", "--iteration", "-1"}, 1, "Error: "},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			o := roodaIn(t, dir, nil, tc.args...)
			if o.code != tc.code || !strings.Contains(o.stdout+o.stderr, tc.want) || strings.Contains(o.stderr, "needs a value") {
				t.Errorf("exit %d, want %d and %q\nstdout:\n%s\nstderr:\n%s", o.code, tc.code, tc.want, o.stdout, o.stderr)
			}
		})
	}
	script := filepath.Join(dir, "args.star")
	if err := os.WriteFile(script, []byte("print(args)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := roodaIn(t, dir, nil, "script", "run", "args.star", "--dry-run", "--", "--max-steps", "-n")
	if o.code != 0 || !strings.Contains(o.stderr+o.stdout, `("--max-steps", "-n")`) {
		t.Errorf("script arguments after --: exit %d\nstdout:\n%s\nstderr:\n%s", o.code, o.stdout, o.stderr)
	}
}

// TestUnknownLoopVariable: a ROODA_LOOP_ variable that names no setting is
// an error, like an unknown key in a file, before any agent starts; other
// ROODA_ variables (rooda's own, set for an agent) pass.
func TestUnknownLoopVariable(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{})
	w.env = append(w.env, "ROODA_LOOP_MAX_ITERATION=3")
	o := w.run("build", "-n", "1")
	want := "Error: ROODA_LOOP_MAX_ITERATION is not a rooda setting (did you mean ROODA_LOOP_DEFAULT_MAX_ITERATIONS?)\n"
	if o.code != 1 || o.stderr != want {
		t.Errorf("run: exit %d, stderr:\n%s\nwant:\n%s", o.code, o.stderr, want)
	}
	if w.ran(1) {
		t.Error("the agent ran")
	}
	o = roodaIn(t, w.dir, []string{"ROODA_LOOP_FAILURE_TRESHOLD=2"}, "config", "show")
	want = "Error: ROODA_LOOP_FAILURE_TRESHOLD is not a rooda setting (did you mean ROODA_LOOP_FAILURE_THRESHOLD?)\n"
	if o.code != 1 || o.stderr != want {
		t.Errorf("config show: exit %d, stderr:\n%s\nwant:\n%s", o.code, o.stderr, want)
	}
	// What rooda gives its agent, seen by a rooda the agent runs.
	o = roodaIn(t, w.dir, []string{"ROODA_ITERATION=2", "ROODA_MAX_ITERATIONS=5", "ROODA_PROCEDURE=build", "ROODA_LOOP_FAILURE_THRESHOLD=2"}, "config", "show")
	if o.code != 0 || !strings.Contains(o.stdout, "failure_threshold: 2") {
		t.Errorf("rooda's own variables: exit %d\nstdout:\n%s\nstderr:\n%s", o.code, o.stdout, o.stderr)
	}
}
