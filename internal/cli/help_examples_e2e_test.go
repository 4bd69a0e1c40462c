package cli

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/urfave/cli/v2"
)

// The examples of every command's --help (the lines under "Examples:" of
// its Description, rooda's own included) run as they are shown: each is
// one line of shell, `rooda …` then, after two spaces or more, what it
// does; a line indented further goes on with the one above. Each runs
// with bash -e -u in a copy of one fixture, helpFixture, and must exit
// 0, or as helpExampleExits says, and why, saying what it says there (a
// usage error exits 1 and says no such thing); one that cannot run here
// is in helpExampleExits with its reason.

// helpExample is one example of a command's help.
type helpExample struct{ command, line string }

// helpExampleLine splits an example's line from what it does.
var helpExampleLine = regexp.MustCompile(`^  (\S.*?)(\s{2,}.*)?$`)

// helpExamples are the examples of rooda's help and of every command's.
func helpExamples(t *testing.T) []helpExample {
	app := newApp(io.Discard, io.Discard)
	var out []helpExample
	add := func(name, description string) {
		_, examples, ok := strings.Cut(description, "Examples:\n")
		if !ok {
			return
		}
		for _, line := range strings.Split(examples, "\n") {
			switch {
			case strings.HasPrefix(line, "   "): // what the line above does
			case helpExampleLine.MatchString(line):
				out = append(out, helpExample{command: name, line: helpExampleLine.FindStringSubmatch(line)[1]})
			case strings.TrimSpace(line) != "":
				t.Errorf("rooda %s --help: a line under Examples: that is no example: %q", name, line)
			}
		}
	}
	add("", app.Description)
	var walk func(prefix string, commands []*cli.Command)
	walk = func(prefix string, commands []*cli.Command) {
		for _, c := range commands {
			add(prefix+c.Name, c.Description)
			walk(prefix+c.Name+" ", c.Subcommands)
		}
	}
	walk("", app.Commands)
	return out
}

// helpExampleExits are the examples that do not run here, or do not
// exit 0, and why.
var helpExampleExits = map[string]struct {
	code int    // the exit code it ends with
	says string // what its output holds, with a code other than 0
	skip string // why it cannot run here; "" runs it
}{
	"rooda init":                        {skip: "asks which of the agents installed to use, at a terminal; TestInitChoosesAmongAgents answers it"},
	`rooda context add "focus on auth"`: {skip: contextNeedsARun},
	`rooda context add "The login tests are flaky; ignore them."`: {skip: contextNeedsARun},
	"rooda context add notes.md --run " + helpRunID:               {skip: contextNeedsARun},
	"rooda context clear":                    {skip: contextNeedsARun},
	"rooda runs resume":                      {skip: resumeNeedsARunCutShort},
	"rooda runs resume 1a2b":                 {skip: resumeNeedsARunCutShort},
	"rooda runs resume last --force":         {skip: resumeNeedsARunCutShort},
	"rooda runs resume --as-left":            {skip: resumeNeedsARunCutShort + "; TestResumeAsLeft goes on from a killed try's changes"},
	"rooda runs serve":                       {skip: serves},
	"rooda runs serve --addr 127.0.0.1:8080": {skip: serves},
	"rooda runs serve --fleet":               {skip: serves + "; TestRunsServeFleet serves a fleet's"},
	// The fake codex prints text, not codex's JSON: no signal is read, and
	// the loop runs to its limit (max-iters, exit 2).
	"rooda run build -n 3 --ai-cmd-alias codex": {code: 2, says: atTheLimit},
	// nightly.star's tests, go test ./..., find no Go module in work/: the
	// loop runs to its limit. A module would pass them, at the cost of a
	// go command in every iteration (tens of seconds on a busy machine).
	"rooda script run nightly.star":                                                 {code: 2, says: atTheLimit},
	"rooda script run nightly.star -n 3 --ai-cmd-alias codex -- src/auth":           {code: 2, says: atTheLimit},
	"rooda script run nightly.star --lib team=../team-procedures --max-duration 2h": {code: 2, says: atTheLimit},
}

// The reasons an example of the help does not run here.
const (
	contextNeedsARun        = "adds context to a run going on; TestContextAddedWhileRunning adds some to one"
	resumeNeedsARunCutShort = "resumes a run cut short; TestResumeAfterKill kills runs and resumes them"
	serves                  = "serves until Ctrl+C; TestRunsServe and TestRunPagesInABrowser serve records"
)

// atTheLimit is what a loop that ran to its limit says.
const atTheLimit = "Reached max iterations: "

// TestHelpExamplesRun runs every example of every command's --help.
func TestHelpExamplesRun(t *testing.T) {
	// rooda fleet's examples run rooda-fleet, beside rooda as installed.
	fleetBinaries(t)
	examples := helpExamples(t)
	if len(examples) < 50 {
		t.Fatalf("%d examples found in the help: too few for an extraction that works", len(examples))
	}
	found := map[string]bool{}
	for _, e := range examples {
		found[e.line] = true
	}
	for line := range helpExampleExits {
		if !found[line] {
			t.Errorf("helpExampleExits names %q, which no help shows", line)
		}
	}
	fixture := helpFixture(t)
	for _, e := range examples {
		t.Run(e.line, func(t *testing.T) {
			t.Parallel()
			want := helpExampleExits[e.line]
			if want.skip != "" {
				t.Skipf("rooda %s --help: %q is not run: %s", e.command, e.line, want.skip)
			}
			dir := filepath.Join(t.TempDir(), "copy")
			if out, err := exec.Command("cp", "-a", fixture.root, dir).CombinedOutput(); err != nil {
				t.Fatalf("copying the fixture: %v\n%s", err, out)
			}
			ctx, cancel := context.WithTimeout(context.Background(), exampleTimeout)
			defer cancel()
			cmd := exec.CommandContext(ctx, "bash", "-e", "-u", "-c", e.line)
			cmd.Dir = filepath.Join(dir, "work")
			cmd.Env = fixture.env(dir)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
			cmd.Stdin = strings.NewReader("")
			out, err := cmd.CombinedOutput()
			if cmd.ProcessState == nil {
				t.Fatalf("%q did not start: %v", e.line, err)
			}
			code := cmd.ProcessState.ExitCode()
			if code != want.code || err != nil && code == 0 || !strings.Contains(string(out), want.says) {
				t.Errorf("rooda %s --help: %q exited %d (%v), want %d, saying %q\n%s", e.command, e.line, code, err, want.code, want.says, out)
			}
		})
	}
}

// fixture is a directory the help examples run in a copy of.
type fixture struct {
	root string
	// env is the environment of the copy at dir.
	env func(dir string) []string
}

// helpRunID is the id the help's examples give a run.
const helpRunID = "20261123T101500.123456Z-build-1a2b"

// helpFixture is what the help's examples name, made once, under root:
//
//	work/             the working directory: a git repository with the
//	                  docs' nightly.star, nightly_test.star and
//	                  prompts/act.md; notes.md; my-agent.sh, an agent of
//	                  one's own; ci/rooda-config.yml, which declares
//	                  my-procedure; scripts/, a copy of the repository's
//	                  (the standard library's tests and the examples);
//	                  team/, the examples' team library; and one run of
//	                  rooda build recorded under the id the examples give
//	                  it, helpRunID
//	team-procedures/  the same library, a git repository
//	global/           the configuration rooda init would have written:
//	                  the fake agent, and the library team (team-procedures,
//	                  from git); and 3 iterations at most by default, so
//	                  that a loop that runs to its limit costs little
//	bin/              claude, codex, gemini, opencode, copilot: each the
//	                  fake agent, which works one iteration and signals
//	                  SUCCESS in the second
//	home/             HOME
func helpFixture(t *testing.T) fixture {
	w := newWorkspace(t, step{"output": "working on it"}, step{"output": successSignal})
	root := t.TempDir()
	work := filepath.Join(root, "work")
	shown := map[string]string{}
	for _, doc := range documents(t) {
		for _, e := range docExamples(t, doc) {
			if e.file() {
				shown[e.name] = e.code + "\n"
			}
		}
	}
	for _, name := range []string{"nightly.star", "nightly_test.star", "prompts/act.md"} {
		if shown[name] == "" {
			t.Fatalf("no page shows %s", name)
		}
		writeFile(t, filepath.Join(work, name), shown[name])
	}
	writeFile(t, filepath.Join(work, "notes.md"), "Keep the public API as it is.\n")
	writeFile(t, filepath.Join(work, "my-agent.sh"), "#!/bin/sh\ncat > /dev/null\necho '<promise>SUCCESS</promise>'\n")
	must(t, os.Chmod(filepath.Join(work, "my-agent.sh"), 0o755))
	writeFile(t, filepath.Join(work, "ci", "rooda-config.yml"), "procedures:\n  my-procedure:\n    summary: What CI runs\n    act: [builtin:fragments/act/emit_signal.md]\n")
	copyTree(t, filepath.Join("..", "..", "scripts"), filepath.Join(work, "scripts"))
	copyTree(t, filepath.Join("..", "..", "scripts", "examples", "team"), filepath.Join(work, "team"))
	copyTree(t, filepath.Join("..", "..", "scripts", "examples", "team"), filepath.Join(root, "team-procedures"))
	git(t, filepath.Join(root, "team-procedures"))
	writeFile(t, filepath.Join(work, ".gitignore"), ".rooda/\n")
	git(t, work)
	for _, cli := range []string{"claude", "codex", "gemini", "opencode", "copilot"} {
		w.fakeCLIIn(filepath.Join(root, "bin"), cli)
	}
	writeFile(t, filepath.Join(root, "global", "rooda-config.yml"), "loop:\n  ai_cmd: "+w.aiCmd()+"\n  default_max_iterations: 3"+
		"\nlibraries:\n  team: {git: "+filepath.Join(root, "team-procedures")+", ref: main}\n")
	f := fixture{root: root, env: func(dir string) []string {
		return append(os.Environ(), "PATH="+binaries(t)+string(os.PathListSeparator)+filepath.Join(dir, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"),
			"ROODA_CONFIG_HOME="+filepath.Join(dir, "global"), "HOME="+filepath.Join(dir, "home"), "ROODA_LOG_LEVEL=", "ROODA_SHOW_AI_OUTPUT=")
	}}
	build := exec.Command(binary(t), "build")
	build.Dir, build.Env = work, f.env(root)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("the recorded run: %v\n%s", err, out)
	}
	runs, _ := filepath.Glob(filepath.Join(work, ".rooda", "runs", "2*"))
	if len(runs) != 1 {
		t.Fatalf("runs recorded: %v, want one", runs)
	}
	recorded := filepath.Join(work, ".rooda", "runs", helpRunID)
	must(t, os.Rename(runs[0], recorded))
	runJSON := filepath.Join(recorded, "run.json")
	writeFile(t, runJSON, strings.ReplaceAll(readText(t, runJSON), filepath.Base(runs[0]), helpRunID))
	return f
}

// git makes dir a git repository of one commit, on branch main.
func git(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{{"init", "--quiet", "--initial-branch=main"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "--quiet", "-m", "start"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// copyTree copies a directory's files.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		writeFile(t, filepath.Join(to, rel), readText(t, path))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
