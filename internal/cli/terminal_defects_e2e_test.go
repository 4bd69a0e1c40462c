package cli

import (
	"os/exec"
	"strings"
	"testing"

	"rooda/internal/ptytest"
)

// hostileConfig is a workspace configuration whose procedure drives the
// terminal of whoever reads it: its name clears the screen (ESC[2J), its
// summary writes the clipboard (OSC 52) and clears with the one-byte CSI
// (U+009B), its display name retitles the window (OSC 0), its
// description and fragment hold more.
const hostileConfig = `procedures:
  "evil\e[2J":
    summary: "copies \e]52;c;cm0gLXJmIH4=\a and clears \x9b2J"
    display: "\e]0;pwned\a"
    description: "line one \e[2J\nline two"
    act:
      - content: "do it \e[2J"
`

// rawControl is the first control character in s that a terminal would
// obey — anything but a newline or a tab — or "".
func rawControl(s string) string {
	for _, r := range s {
		if r != '\n' && r != '\t' && (r < 0x20 || r >= 0x7f && r < 0xa0) {
			return string(r)
		}
	}
	return ""
}

// TestConfigCannotDriveTheTerminal: what a workspace's configuration, a
// run's record and an agent's last words hold reaches the terminal with
// its control characters written visibly ("\x1b"), never raw: in list
// (text and JSON), info, config show, the run's log, its dry run, runs
// list, runs show (text and JSON) and runs diff. Multi-line text keeps its lines; a one-line
// field stays on its line.
func TestConfigCannotDriveTheTerminal(t *testing.T) {
	t.Parallel()
	// The agent's last words, which the failure's warning repeats, end
	// with a terminal reset (ESC c) and a title (OSC 0).
	w := newWorkspace(t, step{"output": "reset \x1bc title \x1b]0;pwned\n", "exit": 1})
	w.write("rooda-config.yml", hostileConfig)
	name := "evil\x1b[2J"

	run := w.run(name, "-n", "2")
	outputs := map[string]outcome{
		"list":                    w.rooda("list"),
		"list --json":             w.rooda("list", "--json"),
		"info":                    w.rooda("info", name),
		"config show":             w.rooda("config", "show"),
		"run":                     run,
		"run --dry-run":           w.run(name, "--dry-run"),
		"runs diff":               w.rooda("runs", "diff", "last", "1", "2"),
		"runs list":               w.rooda("runs", "list"),
		"runs show":               w.rooda("runs", "show", "last"),
		"runs show --json":        w.rooda("runs", "show", "last", "--json"),
		"runs show --iteration 1": w.rooda("runs", "show", "last", "--iteration", "1"),
	}
	for what, o := range outputs {
		if c := rawControl(o.stdout + o.stderr); c != "" {
			t.Errorf("%s writes %q raw to the terminal:\n%s%s", what, c, o.stdout, o.stderr)
		}
	}
	for _, tc := range []struct{ what, want string }{
		{"list", "\nevil\\x1b[2J   "},
		{"list", `  copies \x1b]52;c;cm0gLXJmIH4=\a and clears \u009b2J` + "\n"},
		{"info", "Procedure: evil\\x1b[2J\n"},
		{"info", "Display Name: \\x1b]0;pwned\\a\n"},
		{"runs show", "Name: evil\\x1b[2J\n"},
		{"run --dry-run", "=== Dry-Run: evil\\x1b[2J ===\n"},
		{"run --dry-run", "\ndo it \\x1b[2J\n"},
		{"runs diff", "  Procedure: evil\\x1b[2J\n"},
	} {
		if o := outputs[tc.what]; !strings.Contains(o.stdout, tc.want) {
			t.Errorf("%s lacks %q:\n%s", tc.what, tc.want, o.stdout)
		}
	}
	if o := outputs["info"]; !strings.Contains(o.stdout, "Description:\n  line one \\x1b[2J\n  line two\n") {
		t.Errorf("info's description is not its two lines, shown safe:\n%s", o.stdout)
	}
	run.expect(t, 1, "Starting procedure: evil\\x1b[2J (max 2 iterations)", "  > reset \\x1bc title")
	if o := outputs["list --json"]; !strings.Contains(o.stdout, `"summary": "copies \u001b]52;c;cm0gLXJmIH4=\u0007 and clears \u009b2J"`) {
		t.Errorf("list --json does not say the same summary, escaped:\n%s", o.stdout)
	}
}

// TestRecordedOutputOnATerminal: runs show --output writes an agent's
// output with its control characters visible on a terminal (OSC 52
// would write the reader's clipboard), and its exact bytes into a pipe.
func TestRecordedOutputOnATerminal(t *testing.T) {
	t.Parallel()
	hostile := "clipboard \x1b]52;c;aGk=\x07 done\n"
	w := newWorkspace(t, step{"output": hostile + successSignal + "\n"})
	w.run("build", "-n", "1").expect(t, 0)
	if piped := w.rooda("runs", "show", "last", "--iteration", "1", "--output"); !strings.Contains(piped.stdout, hostile) {
		t.Errorf("into a pipe, the output is not exact:\n%q", piped.stdout)
	}
	pty := ptytest.Open(t, 24, 120)
	cmd := exec.Command(binary(t), "runs", "show", "last", "--iteration", "1", "--output")
	cmd.Dir, cmd.Env = w.dir, w.env
	if err := pty.Start(cmd); err != nil {
		t.Fatal(err)
	}
	screen := endOf(t, pty, cmd)
	if strings.Contains(screen, "\x1b]52") || !strings.Contains(screen, `clipboard \x1b]52;c;aGk=\a done`) {
		t.Errorf("on a terminal: %q", screen)
	}
}
