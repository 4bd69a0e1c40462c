package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rooda/internal/ptytest"
)

// The first contact of issue 28: a newcomer with no configuration, maybe
// no agent, runs rooda init, a dry run, and the small commands around.

// withAgentCLIs makes PATH hold only git and a stub of each named agent
// CLI, which records that it ran (NAME.ran beside it), so that what is
// installed is the same on every machine.
func withAgentCLIs(w *workspace, names ...string) {
	w.t.Helper()
	bin := filepath.Join(w.dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		w.t.Fatal(err)
	}
	git, err := exec.LookPath("git")
	if err != nil {
		w.t.Fatal(err)
	}
	if err := os.Symlink(git, filepath.Join(bin, "git")); err != nil {
		w.t.Fatal(err)
	}
	for _, name := range names {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n: >\"$0.ran\"\n"), 0o755); err != nil {
			w.t.Fatal(err)
		}
	}
	w.env = withEnv(w.env, "PATH="+bin)
}

// gitInit makes the workspace a fresh git repository.
func gitInit(w *workspace) {
	w.t.Helper()
	if out, err := exec.Command("git", "init", "-q", w.dir).CombinedOutput(); err != nil {
		w.t.Fatalf("git init: %v\n%s", err, out)
	}
}

// TestInitThenDryRun: in a fresh git repository with only claude
// installed, rooda init writes a configuration that names it and an
// AGENTS.md, and says what to run next; the dry run it points to passes.
// A second init refuses to replace the configuration; --force replaces
// it and keeps the AGENTS.md the user wrote.
func TestInitThenDryRun(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	gitInit(w)
	withAgentCLIs(w, "claude")
	o := w.rooda("init")
	if o.code != 0 || !strings.Contains(o.stdout, "Wrote rooda-config.yml: the agent is claude (") ||
		!strings.Contains(o.stdout, "Wrote AGENTS.md: a skeleton") || !strings.Contains(o.stdout, "\n  rooda build --dry-run ") {
		t.Fatalf("init: exit %d\nstdout:\n%s\nstderr:\n%s", o.code, o.stdout, o.stderr)
	}
	if config := readText(t, filepath.Join(w.dir, "rooda-config.yml")); !strings.Contains(config, "\n  ai_cmd_alias: claude\n") {
		t.Errorf("rooda-config.yml:\n%s", config)
	}
	for _, section := range []string{"## Work Tracking", "## Quick Reference", "## Quality Criteria", "## Operational Learnings"} {
		if !strings.Contains(readText(t, filepath.Join(w.dir, "AGENTS.md")), section) {
			t.Errorf("AGENTS.md lacks %q", section)
		}
	}
	if o := w.rooda("config", "show"); o.code != 0 || !strings.Contains(o.stdout, "ai_cmd_alias: claude") {
		t.Errorf("config show: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	o = w.rooda("build", "--dry-run")
	if o.code != 0 || !strings.Contains(o.stdout, "✓ AI command binary exists: "+filepath.Join(w.dir, "bin", "claude")) {
		t.Errorf("build --dry-run after init: exit %d\nstdout:\n%s\nstderr:\n%s", o.code, o.stdout, o.stderr)
	}

	w.write("rooda-config.yml", "# mine\n")
	w.write("AGENTS.md", "# my guide\n")
	o = w.rooda("init")
	if want := "Error: rooda-config.yml exists; rooda init replaces nothing without --force\n"; o.code != 1 || !strings.HasPrefix(o.stderr, want) {
		t.Errorf("init over a configuration: exit %d, stderr:\n%s\nwant prefix:\n%s", o.code, o.stderr, want)
	}
	if got := readText(t, filepath.Join(w.dir, "rooda-config.yml")); got != "# mine\n" {
		t.Errorf("init without --force replaced the configuration:\n%s", got)
	}
	o = w.rooda("init", "--force")
	if o.code != 0 || !strings.Contains(o.stdout, "Kept AGENTS.md as it is") {
		t.Errorf("init --force: exit %d\nstdout:\n%s\nstderr:\n%s", o.code, o.stdout, o.stderr)
	}
	if got := readText(t, filepath.Join(w.dir, "AGENTS.md")); got != "# my guide\n" {
		t.Errorf("init --force replaced AGENTS.md:\n%s", got)
	}
	if got := readText(t, filepath.Join(w.dir, "rooda-config.yml")); !strings.Contains(got, "ai_cmd_alias: claude") {
		t.Errorf("init --force did not write the configuration:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(w.dir, "bin", "claude.ran")); err == nil {
		t.Error("init or the dry run started the agent")
	}
}

// TestInitChoosesAmongAgents: --agent must name an installed agent, and
// the error lists those that are; with several installed and no --agent,
// init fails without a terminal to ask on, and asks on one.
func TestInitChoosesAmongAgents(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	withAgentCLIs(w, "claude", "codex")
	w.rooda("init", "--agent", "gemini").expect(t, 1, "Error: --agent gemini: it is not installed (not on PATH)\nFound on PATH: claude, codex\n")
	w.rooda("init", "--agent", "claud").expect(t, 1, "Error: --agent claud: rooda knows no such agent (did you mean claude?)\nThe agents rooda knows: amp, claude, codex,")
	w.rooda("init").expect(t, 1, "Error: several agent CLIs are on PATH: claude, codex\nChoose one with --agent, as in: rooda init --agent claude\n")
	if _, err := os.Stat(filepath.Join(w.dir, "rooda-config.yml")); err == nil {
		t.Fatal("a failed init wrote rooda-config.yml")
	}

	pty := ptytest.Open(t, 24, 120)
	cmd := exec.Command(binary(t), "init")
	cmd.Dir, cmd.Env = w.dir, w.env
	if err := pty.Start(cmd); err != nil {
		t.Fatal(err)
	}
	for !strings.Contains(pty.Screen(), "Which one should rooda run? [1-2]: ") {
		select {
		case <-pty.Closed():
			t.Fatalf("init ended without asking:\n%s", pty.Screen())
		case <-time.After(10 * time.Millisecond):
		}
	}
	if err := pty.Type("3\n2\n"); err != nil {
		t.Fatal(err)
	}
	screen := endOf(t, pty, cmd)
	if !strings.Contains(screen, "  1) claude ") || !strings.Contains(screen, "Answer with a number from 1 to 2.") || !strings.Contains(screen, "Wrote rooda-config.yml: the agent is codex") {
		t.Errorf("the screen:\n%s", screen)
	}
	if got := readText(t, filepath.Join(w.dir, "rooda-config.yml")); !strings.Contains(got, "\n  ai_cmd_alias: codex\n") {
		t.Errorf("rooda-config.yml:\n%s", got)
	}
}

// TestInitWithoutAnyAgent: with no agent CLI installed, init fails and
// says how to install one; it writes nothing.
func TestInitWithoutAnyAgent(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	withAgentCLIs(w)
	w.rooda("init").expect(t, 1, "Error: no agent CLI to set up\nNo agent CLI found on PATH (looked for amp, claude, codex, copilot, cursor-agent, gemini, kiro-cli, opencode).\n",
		"  npm install -g @anthropic-ai/claude-code   (claude)\n")
	for _, name := range []string{"rooda-config.yml", "AGENTS.md"} {
		if _, err := os.Stat(filepath.Join(w.dir, name)); err == nil {
			t.Errorf("init wrote %s", name)
		}
	}
}

// TestDryRunWithoutAgentShowsPrompt: with no agent chosen, the dry run
// still shows the prompt it would send, after the ✗ that says how to
// choose one, and exits 1; a real run says the same and starts nothing.
func TestDryRunWithoutAgentShowsPrompt(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	withAgentCLIs(w)
	o := w.rooda("build", "--dry-run")
	if o.code != 1 || o.stderr != "Error: Dry-run validation failed\n" {
		t.Errorf("exit %d, stderr:\n%s", o.code, o.stderr)
	}
	for _, want := range []string{
		"  ✗ No AI command configured\n    No agent CLI found on PATH (looked for amp, claude, codex, copilot, cursor-agent, gemini, kiro-cli, opencode).\n    Install one, then run 'rooda init'; for example, with npm:\n",
		`    Or give your agent's command line: --ai-cmd "your-agent --its-flags".`,
		"\nAssembled Prompt (", "ROODA PROCEDURE EXECUTION", "PHASE 1: OBSERVE",
		"\nNot ready to execute; mend what the ✗ lines above say:\n  ✗ No AI command configured\n",
	} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("the dry run lacks %q:\n%s", want, o.stdout)
		}
	}
	if strings.Contains(o.stdout, "Ready to execute:") {
		t.Errorf("a failed dry run says it is ready:\n%s", o.stdout)
	}

	two := newWorkspace(t)
	withAgentCLIs(two, "claude", "codex")
	o = two.rooda("build")
	want := "Error: cannot run build:\n\nNo AI command configured\n" +
		"Agent CLIs found on PATH; give one with its flag, or put its line in rooda-config.yml:\n" +
		"  --ai-cmd-alias claude    loop: {ai_cmd_alias: claude}\n" +
		"  --ai-cmd-alias codex     loop: {ai_cmd_alias: codex}\n" +
		"Or run 'rooda init' to write a rooda-config.yml that names one.\n\nSet one via:\n"
	if o.code != 1 || !strings.HasPrefix(o.stderr, want) {
		t.Errorf("real run: exit %d, stderr:\n%s\nwant prefix:\n%s", o.code, o.stderr, want)
	}
	if _, err := os.Stat(filepath.Join(two.dir, "bin", "claude.ran")); err == nil {
		t.Error("the run started claude, which no one chose")
	}
}

// TestContextPathThatIsNotThere: a --context value that looks like a
// path and names no file is an error naming it, in a dry run and in a
// real run, which starts no agent; text with spaces stays text.
func TestContextPathThatIsNotThere(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": successSignal})
	want := "context 1: context file not found: docs/plan.md\nA path on the command line is relative to the working directory. For text rather than a file, write a sentence."
	w.run("build", "-c", "docs/plan.md", "-c", "focus on auth").expect(t, 1, "Error: cannot run build:\n\n"+want)
	if w.ran(1) {
		t.Error("the agent ran with the mistyped path as its context")
	}
	o := w.run("build", "--dry-run", "-c", "notes.md")
	if o.code != 1 || !strings.Contains(o.stdout, "✗ context 1: context file not found: notes.md\n") {
		t.Errorf("dry run: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	o = w.run("build", "--dry-run", "-c", "focus on the auth module/JWT")
	if o.code != 0 || !strings.Contains(o.stdout, "✓ Context 1: inline text (28 bytes)") {
		t.Errorf("text with spaces: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
}

// TestRunsListHeader: runs list names its columns and counts one
// iteration in the singular; with no runs, it says so.
func TestRunsListHeader(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": successSignal})
	if o := w.rooda("runs", "list"); o.code != 0 || o.stdout != "No runs recorded in .rooda/runs yet.\n" {
		t.Errorf("no runs: exit %d, stdout %q", o.code, o.stdout)
	}
	w.run("build", "-n", "3").expect(t, 0)
	o := w.rooda("runs", "list")
	lines := strings.Split(o.stdout, "\n")
	if o.code != 0 || lines[0] != "RUN\tSTATUS\tITERATIONS\tSTARTED" || len(lines) != 3 || !strings.Contains(lines[1], "\tsuccess\t1 iteration\t") {
		t.Errorf("exit %d, stdout:\n%s", o.code, o.stdout)
	}
}

// TestRunStarFileHintsScriptRun: rooda run x.star, or rooda x.star, says
// that script run runs it, with the arguments given after --.
func TestRunStarFileHintsScriptRun(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.write("x.star", "print('ran')\n")
	w.rooda("run", "x.star").expect(t, 1, "Error: unknown procedure \"x.star\": a .star file is a script\n\nRun it with: rooda script run x.star\n")
	w.rooda("x.star", "--", "a", "b c").expect(t, 1, "Run it with: rooda script run x.star -- a 'b c'\n")
}

// TestContextFileRemovedWhileRunning: a context file the agent removes
// as part of its work (a task file it finished) does not end the run:
// the next prompt gives what the file held when the run started, saying
// it is gone, and the log warns.
func TestContextFileRemovedWhileRunning(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{"output": "done with the task", "shell": "rm TASK.md"}, step{"output": successSignal})
	w.write("TASK.md", "Fix the login bug.\n")
	o := w.run("build", "-n", "3", "-c", "TASK.md")
	o.expect(t, 0, "WARN: Iteration 2: context file TASK.md is gone since the run started; the prompt gives what it held then\n")
	if second := w.prompt(2); !strings.Contains(second, "Source: TASK.md\n\nFix the login bug.\n\n(TASK.md is gone since the run started; this is what it held then.)\n") {
		t.Errorf("prompt 2:\n%s", second)
	}
}

// TestHelpOfAProcedure: rooda build --help, the first thing a newcomer
// types, shows the help of running a procedure, exit 0, not "No help
// topic for 'build'".
func TestHelpOfAProcedure(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"build", "--help"}, {"run", "build", "-h"}, {"script", "run", "x.star", "--help"}} {
		stdout, stderr, code := exe(t, args...)
		if code != 0 || !strings.Contains(stdout, "USAGE:") || strings.Contains(stderr, "No help topic") {
			t.Errorf("rooda %v: exit %d\n%s%s", args, code, stdout, stderr)
		}
	}
}
