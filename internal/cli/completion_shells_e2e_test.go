package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"rooda/host/runlog"
)

// Keys of zsh's emacs keymap the zsh tests type, and the one they bind.
const (
	keyLineStart = "\x01" // ^A, beginning-of-line
	keyForward   = "\x06" // ^F, forward-char
	keyTab       = "\t"   // complete-word
	keyReport    = "\x14" // ^T, bound to zshReportBuffer's widget
)

// zshDriver runs an interactive zsh in a pseudo-terminal of zsh's own
// (the zsh/zpty module), so that TAB goes through the real line editor
// and completion system. $1 is a file the interactive shell sources to
// load the completion; every further argument is typed as keys, and the
// line the shell then holds is printed, one per argument. Every wait for
// the terminal gives up after 30 s (a guard against a hang on a busy
// machine, not a measure) and prints what the terminal showed, so
// a broken script fails the test instead of hanging it.
const zshDriver = `zmodload zsh/zpty zsh/zselect || exit 2
# await PATTERN reads the terminal into $got until the whole matches PATTERN.
await() {
  local chunk deadline=$((SECONDS + 30))
  got=''
  while (( SECONDS < deadline )); do
    if zpty -rt shell chunk; then
      got+=$chunk
      [[ $got == $~1 ]] && return 0
    else
      zselect -t 1
    fi
  done
  print -r -- "timed out waiting for $1; the terminal showed: ${(V)got}" >&2
  exit 1
}
zpty shell zsh -f -i
zpty -w shell "source ${(q)1}"
await '*<ready>*'
shift
for keys; do
  zpty -n -w shell "$keys"
  await '*<buffer>*</buffer>*'
  print -r -- "${${got##*<buffer>}%%</buffer>*}"
done
zpty -d shell
`

// zshReportBuffer ends the setup of the interactive shell: ^T prints the
// line being edited between markers, for the driver to read, and empties
// it for the next keys.
const zshReportBuffer = `
zsh-report-buffer() { print -r -- "<buffer>$BUFFER</buffer>"; BUFFER='' }
zle -N zsh-report-buffer
bindkey '^T' zsh-report-buffer
print '<ready>'
`

// zshCompletionOnly keeps in $fpath the completion system's own
// directories, where zsh ships them apart (Debian, Fedora, Homebrew):
// compinit then reads a few hundred functions, not the thousands of every
// command's completion, which takes seconds on a busy machine.
const zshCompletionOnly = `completion=(${(M)fpath:#*/Completion(|/Base|/Unix|/Zsh)})
(( ${#completion} )) && fpath=($completion)
`

// zshLoads are the two ways the script's header gives to load it: sourced
// after compinit, or as the file _rooda in $fpath that compinit finds.
var zshLoads = map[string]string{
	"sourced": `autoload -U compinit && compinit -u -d "$HOME/.zcompdump"
source <(rooda completion zsh)
`,
	"fpath": `mkdir -p "$HOME/functions" && rooda completion zsh >"$HOME/functions/_rooda"
fpath=("$HOME/functions" $fpath)
autoload -U compinit && compinit -u -d "$HOME/.zcompdump"
`,
}

// zshComplete types each of keys into a real interactive zsh, in w's
// directory with the built rooda first on PATH and the completion loaded
// as load says (a key of zshLoads), and returns the line the shell holds
// after each.
func zshComplete(t *testing.T, w *workspace, load string, keys ...string) []string {
	t.Helper()
	if _, err := exec.LookPath("zsh"); err != nil {
		t.Skip("NOT TESTED: zsh is not installed")
	}
	home := t.TempDir()
	setup := filepath.Join(home, "setup.zsh")
	driver := filepath.Join(home, "driver.zsh")
	for file, content := range map[string]string{
		setup:  "PS1='%% '\nbindkey -e\n" + zshCompletionOnly + zshLoads[load] + zshReportBuffer,
		driver: zshDriver,
	} {
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := shellOutput(t, w, home, "zsh", append([]string{"-f", driver, setup}, keys...)...)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(keys) {
		t.Fatalf("zsh reported %d lines for %d completions:\n%s", len(lines), len(keys), out)
	}
	return lines
}

// shellOutput runs shell with args in w's directory, with home as HOME
// (and zsh's ZDOTDIR, fish's XDG_CONFIG_HOME) so that no configuration of
// the machine's user is read, and the built rooda first on PATH. A shell
// that hangs is killed after 90 s.
func shellOutput(t *testing.T, w *workspace, home, shell string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, shell, args...)
	cmd.Dir = w.dir
	cmd.Env = append(slices.Clone(w.env), "HOME="+home, "ZDOTDIR="+home, "XDG_CONFIG_HOME="+home,
		"PATH="+binaries(t)+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.WaitDelay = time.Second
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", shell, err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// TestZshCompletesProceduresAndCommands: in a real zsh with compinit,
// with the script sourced or found in $fpath, TAB after "rooda b"
// completes the procedure build, and after "rooda runs show " "last" and
// the recorded run; a word in the middle of the line and a quoted
// --config are completed as the shell will pass them.
func TestZshCompletesProceduresAndCommands(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": successSignal})
	w.run("build").expect(t, 0)
	ids, err := runlog.IDs(filepath.Join(w.dir, ".rooda", "runs"))
	if err != nil || len(ids) != 1 {
		t.Fatalf("want one run recorded: %v %v", ids, err)
	}
	w.write("bake it.md", "Bake it.\n")
	w.write("my procedures.yml", "procedures:\n  bake:\n    act:\n      - path: bake it.md\n")
	cases := []struct{ keys, want string }{
		{"rooda b", "rooda build "},
		{"rooda ru", "rooda run"},
		{"rooda runs show l", "rooda runs show last "},
		{"rooda runs show " + ids[0][:1], "rooda runs show " + ids[0] + " "},
		{"rooda runs show --pr", "rooda runs show --prompt "},
		{"rooda build --max-it", "rooda build --max-iterations "},
		// The cursor after "rooda b", before " -n 3".
		{"rooda b -n 3" + keyLineStart + strings.Repeat(keyForward, len("rooda b")), "rooda build -n 3"},
		{"rooda --config 'my procedures.yml' ba", "rooda --config 'my procedures.yml' bake "},
	}
	var keys []string
	for _, c := range cases {
		keys = append(keys, c.keys+keyTab+keyReport)
	}
	// zsh keeps its space after a word completed before another; one
	// space stands for any number.
	spaces := regexp.MustCompile(" +")
	for load := range zshLoads {
		t.Run(load, func(t *testing.T) {
			t.Parallel()
			for i, got := range zshComplete(t, w, load, keys...) {
				if got := spaces.ReplaceAllString(got, " "); got != cases[i].want {
					t.Errorf("%q<TAB> = %q, want %q", cases[i].keys, got, cases[i].want)
				}
			}
		})
	}
}

// TestFishCompletesProceduresAndRunIDs: in a real fish, "rooda b" offers
// the procedure build, and "rooda runs show " "last" and the recorded run.
func TestFishCompletesProceduresAndRunIDs(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("fish"); err != nil {
		t.Skip("NOT TESTED: fish is not installed")
	}
	w := newWorkspace(t, step{"output": successSignal})
	w.run("build").expect(t, 0)
	ids, err := runlog.IDs(filepath.Join(w.dir, ".rooda", "runs"))
	if err != nil || len(ids) != 1 {
		t.Fatalf("want one run recorded: %v %v", ids, err)
	}
	for typed, wants := range map[string][]string{
		"rooda b":           {"build"},
		"rooda runs show ":  {"last", ids[0]},
		"rooda ru":          {"run", "runs"},
		"rooda runs show -": {"--prompt"},
	} {
		out := shellOutput(t, w, t.TempDir(), "fish", "--no-config", "-c",
			`source (rooda completion fish | psub); and complete -C $argv[1]`, typed)
		var offered []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			candidate, _, _ := strings.Cut(line, "\t") // a description follows a tab
			offered = append(offered, candidate)
		}
		for _, want := range wants {
			if !slices.Contains(offered, want) {
				t.Errorf("%q<TAB> offers %q, not %q", typed, offered, want)
			}
		}
	}
}
