package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"rooda/host/runlog"
	"rooda/internal/golden"
)

// bashComplete sources "rooda completion bash" in a real bash, in w's
// directory with the built rooda first on PATH, and returns what the
// completion function puts in COMPREPLY for the words typed, the last
// being the word under the cursor.
func bashComplete(t *testing.T, w *workspace, typed ...string) []string {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("NOT TESTED: bash is not installed")
	}
	quoted := make([]string, len(typed))
	for i, word := range typed {
		quoted[i] = "'" + word + "'"
	}
	script := `source <(rooda completion bash) || exit 1
COMP_WORDS=(` + strings.Join(quoted, " ") + `)
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMP_LINE="${COMP_WORDS[*]}"
COMP_POINT=${#COMP_LINE}
_rooda_bash_complete
printf '%s\n' "${COMPREPLY[@]}"`
	cmd := exec.Command("bash", "--norc", "--noprofile", "-c", script)
	cmd.Dir = w.dir
	cmd.Env = append(slices.Clone(w.env), "PATH="+binaries(t)+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	return strings.Fields(string(out))
}

// TestBashCompletesProceduresAndCommands: in a real bash, "rooda b"
// completes to the procedure build, "rooda ru" to the commands run and
// runs, and "rooda runs show " to the recorded runs and "last".
func TestBashCompletesProceduresAndCommands(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": successSignal})
	w.run("build").expect(t, 0)
	if got := bashComplete(t, w, "rooda", "b"); !slices.Equal(got, []string{"build"}) {
		t.Errorf("rooda b<TAB> = %q, want [build]", got)
	}
	if got := bashComplete(t, w, "rooda", "ru"); !slices.Equal(got, []string{"run", "runs"}) {
		t.Errorf("rooda ru<TAB> = %q, want [run runs]", got)
	}
	ids, err := runlog.IDs(filepath.Join(w.dir, ".rooda", "runs"))
	if err != nil || len(ids) != 1 {
		t.Fatalf("want one run recorded: %v %v", ids, err)
	}
	if got := bashComplete(t, w, "rooda", "runs", "show", ""); !slices.Equal(got, []string{"last", ids[0]}) {
		t.Errorf("rooda runs show <TAB> = %q, want [last %s]", got, ids[0])
	}
	if got := bashComplete(t, w, "rooda", "runs", "show", "--pr"); !slices.Equal(got, []string{"--prompt"}) {
		t.Errorf("rooda runs show --pr<TAB> = %q, want [--prompt]", got)
	}
	if got := bashComplete(t, w, "rooda", "build", "--max-it"); !slices.Equal(got, []string{"--max-iterations"}) {
		t.Errorf("rooda build --max-it<TAB> = %q, want run's flag --max-iterations", got)
	}
}

// TestCompletionRunsNothing: asking for completions after a procedure's
// name, in every form the shorthand and the moving of flags accept, never
// runs the procedure or a script, even after a "--" (where urfave/cli
// stops completing and would run the command).
func TestCompletionRunsNothing(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": successSignal})
	w.write("ran.star", `print("the script ran")`+"\n")
	for _, args := range [][]string{
		{"script", "run", "ran.star", "--", completeFlag},
		{"script", "run", "ran.star", completeFlag},
		{"build", "--ai-cmd", w.aiCmd(), completeFlag},
		{"--ai-cmd", w.aiCmd(), "build", completeFlag},
		{"build", "--ai-cmd", w.aiCmd(), "--", completeFlag},
		{"run", "build", "--ai-cmd", w.aiCmd(), "--", completeFlag},
		{"run", "--ai-cmd", w.aiCmd(), "build", completeFlag},
	} {
		o := w.rooda(args...)
		if o.code != 0 || o.stderr != "" || strings.Contains(o.stdout, "ran") {
			t.Errorf("rooda %s: exit %d, stderr %q, stdout %q", strings.Join(args, " "), o.code, o.stderr, o.stdout)
		}
		if w.ran(1) {
			t.Fatalf("rooda %s ran the agent", strings.Join(args, " "))
		}
		if _, err := os.Stat(filepath.Join(w.dir, ".rooda")); err == nil {
			t.Fatalf("rooda %s recorded a run", strings.Join(args, " "))
		}
	}
}

// TestZshAndFishCompletionScripts: the zsh and fish scripts complete
// rooda and ask rooda for procedures and run ids; each shell that is
// installed parses its script (zsh -n, fish -n).
func TestZshAndFishCompletionScripts(t *testing.T) {
	t.Parallel()
	for shell, wants := range map[string][]string{
		"zsh":  {"#compdef rooda\n", "compdef _rooda_zsh_complete rooda\n", "--generate-bash-completion"},
		"fish": {"complete -c rooda ", "'(rooda --generate-bash-completion 2>/dev/null)'", "'(rooda runs show --generate-bash-completion 2>/dev/null)'"},
	} {
		t.Run(shell, func(t *testing.T) {
			stdout, stderr, code := rooda("completion", shell)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			for _, want := range wants {
				if !strings.Contains(stdout, want) {
					t.Errorf("the %s script lacks %q:\n%s", shell, want, stdout)
				}
			}
			if _, err := exec.LookPath(shell); err != nil {
				t.Skipf("NOT TESTED: %s is not installed, so its script was not parsed (%s -n)", shell, shell)
			}
			script := filepath.Join(t.TempDir(), "rooda."+shell)
			if err := os.WriteFile(script, []byte(stdout), 0o644); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(shell, "-n", script).CombinedOutput(); err != nil {
				t.Errorf("%s -n: %v\n%s", shell, err, out)
			}
		})
	}
}

func TestCompletionOfAnUnknownShell(t *testing.T) {
	_, stderr, code := rooda("completion", "powershell")
	if code == 0 || !strings.Contains(stderr, `rooda completion knows bash, zsh and fish, not "powershell"`) {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// TestVersionFlag: --version and -V print what "rooda version" prints,
// wherever they stand, and run nothing.
func TestVersionFlag(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": successSignal})
	want := w.rooda("version").stdout
	for _, args := range [][]string{{"--version"}, {"-V"}, {"build", "--ai-cmd", w.aiCmd(), "--version"}, {"runs", "list", "-V"}} {
		o := w.rooda(args...)
		if o.code != 0 || o.stderr != "" || o.stdout != want {
			t.Errorf("rooda %s: exit %d, stderr %q, stdout %q, want %q", strings.Join(args, " "), o.code, o.stderr, o.stdout, want)
		}
	}
	if w.ran(1) {
		t.Error("rooda build --version ran the agent")
	}
}

// TestManPage: "rooda man" is the man page urfave/cli writes from the
// commands, kept as testdata/man_rooda.1.golden so that a change to the
// commands shows in review; it is ASCII, and man renders it without a
// warning in the C locale, where troff has no glyph beyond ASCII.
func TestManPage(t *testing.T) {
	stdout, stderr, code := rooda("man")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	golden.Check(t, "man_rooda.1", stdout)
	for i, r := range stdout {
		if r > unicode.MaxASCII {
			t.Errorf("the man page holds %q at byte %d: %q", r, i, stdout[max(0, i-40):i])
		}
	}
	for _, want := range []string{".TH rooda 1", "<promise>SUCCESS</promise>", "--max-iterations", "completion"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the man page lacks %q", want)
		}
	}
	if _, err := exec.LookPath("man"); err != nil {
		t.Skip("NOT TESTED: man is not installed, so the page was not rendered")
	}
	page := filepath.Join(t.TempDir(), "rooda.1")
	if err := os.WriteFile(page, []byte(stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("man", "--warnings", "-l", page)
	cmd.Env = append(os.Environ(), "MANPAGER=cat", "MANWIDTH=100", "LC_ALL=C")
	var rendered, warnings strings.Builder
	cmd.Stdout, cmd.Stderr = &rendered, &warnings
	if err := cmd.Run(); err != nil || warnings.Len() > 0 || !strings.Contains(rendered.String(), "run AI coding agents through OODA loops") {
		t.Errorf("man -l: %v\nwarnings:\n%s\nrendered:\n%s", err, warnings.String(), rendered.String())
	}
}
