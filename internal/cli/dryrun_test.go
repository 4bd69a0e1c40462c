package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rooda/internal/golden"
)

const dryRunConfig = `loop:
  failure_threshold: 2
procedures:
  review:
    default_max_iterations: 1
    observe:
      - path: prompts/observe.md
    orient:
      - content: "Judge {{.what}} against the specifications."
        parameters: {what: the diff}
    act:
      - builtin:fragments/act/emit_signal.md
`

// withAgent puts an executable my-agent on a PATH of its own, so that the
// dry run's search is the same on every machine.
func withAgent(t *testing.T, dir string) {
	t.Helper()
	bin := filepath.Join(dir, "bin")
	must(t, os.MkdirAll(bin, 0o755))
	if err := os.WriteFile(filepath.Join(bin, "my-agent"), []byte("#!/bin/sh\n: >\"${0%/*}/ran\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":/nonexistent/bin")
}

// TestDryRun is seed 002's Example 7: the settings with their sources,
// the checks, the prompt of iteration 1 with its size, and the command
// that would run; exit 0, no agent started.
func TestDryRun(t *testing.T) {
	dir := inWorkspace(t, map[string]string{"rooda-config.yml": dryRunConfig, "prompts/observe.md": "Read the last commit.\n", "notes.md": "Auth is broken.\n"})
	withAgent(t, dir)
	stdout, stderr, code := rooda("review", "--dry-run", "--ai-cmd", "my-agent --fast", "-c", "notes.md", "-c", "focus on auth")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	golden.Check(t, "dry_run", strings.ReplaceAll(stdout, dir, "$WORK"))
	if _, err := os.Stat(filepath.Join(dir, "bin", "ran")); err == nil {
		t.Error("the dry run started the agent")
	}
	// The agent script does run when asked to, so the check above can fail.
	if _, stderr, code := rooda("review", "--ai-cmd", "my-agent"); code != 2 {
		t.Errorf("real run: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "bin", "ran")); err != nil {
		t.Error("the real run did not start the agent")
	}
}

// TestDryRunFailure is seed 002's Example 8: the ✗ line with the PATH that
// was searched, no prompt, "Dry-run validation failed", exit 1.
func TestDryRunFailure(t *testing.T) {
	dir := inWorkspace(t, map[string]string{"rooda-config.yml": dryRunConfig})
	withAgent(t, dir)
	stdout, stderr, code := rooda("run", "review", "-d", "--ai-cmd", "nonexistent-cli", "--act", "prompts/act.md", "--decide", "Decide.")
	if code != 1 {
		t.Errorf("exit %d", code)
	}
	if code != 1 || stderr != "Error: --act \"prompts/act.md\": fragment file not found: prompts/act.md\n\nTip: A path on the command line is relative to the working directory.\n" {
		t.Errorf("a missing --act file: exit %d, stderr:\n%s", code, stderr)
	}
	stdout, stderr, code = rooda("run", "review", "-d", "--ai-cmd", "nonexistent-cli", "--decide", "Decide.")
	if code != 1 || stderr != "Error: Dry-run validation failed\n" {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	golden.Check(t, "dry_run_failure", strings.ReplaceAll(stdout, dir, "$WORK"))
}

// TestDryRunWithoutAICommand: the check fails with every way to set one,
// and nothing else stops the report.
func TestDryRunWithoutAICommand(t *testing.T) {
	dir := inWorkspace(t, nil)
	t.Setenv("PATH", dir) // no agent CLI on it
	stdout, stderr, code := rooda("build", "--dry-run")
	if code != 1 || stderr != "Error: Dry-run validation failed\n" {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	for _, want := range []string{"  AI Command: none\n", "  ✗ No AI command configured\n    No agent CLI found on PATH", "\n    Set one via:\n      --ai-cmd \"your-command\"", "Available aliases: amp, claude"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("lacks %q:\n%s", want, stdout)
		}
	}
}

// TestRunChecksEverythingFirst: a real run with a missing fragment and no
// agent on PATH reports both and starts nothing.
func TestRunChecksEverythingFirst(t *testing.T) {
	dir := inWorkspace(t, map[string]string{"rooda-config.yml": dryRunConfig})
	withAgent(t, dir)
	_, stderr, code := rooda("review", "--ai-cmd", "missing-agent")
	want := "Error: cannot run review:\n\nAI command binary not found: missing-agent\nSearched PATH: " + dir + "/bin:/nonexistent/bin\n\n" +
		"observe fragment 0 (prompts/observe.md): fragment file not found: prompts/observe.md\nResolved to: " + dir + "/prompts/observe.md"
	if code != 1 || !strings.HasPrefix(stderr, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant prefix:\n%s", code, stderr, want)
	}
}

// TestScriptProcedureRuns: a configured procedure with script: runs its
// script, by "rooda NAME" as by "rooda run NAME".
func TestScriptProcedureRuns(t *testing.T) {
	inWorkspace(t, map[string]string{"rooda-config.yml": "procedures:\n  nightly:\n    script: procs/nightly.star\n", "procs/nightly.star": "print('nightly ran', len(args))\n"})
	for _, args := range [][]string{{"nightly"}, {"run", "nightly"}} {
		_, stderr, code := rooda(args...)
		if code != 0 || stderr != "nightly ran 0\n" {
			t.Errorf("%v: exit %d, stderr:\n%s", args, code, stderr)
		}
	}
	if _, stderr, code := rooda("nightly", "--max-steps", "100000", "--", "a", "b"); code != 0 || stderr != "nightly ran 2\n" {
		t.Errorf("script arguments: exit %d, stderr:\n%s", code, stderr)
	}
	for args, want := range map[string]string{
		"nightly --context x":            "Error: --context applies to a YAML procedure; nightly is a script\n",
		"nightly --act x":                "Error: --act applies to a YAML procedure; nightly is a script\n",
		"build --max-steps 5":            "Error: --max-steps applies to a script procedure; build is not\n",
		"build --lib a=b":                "Error: --lib applies to a script procedure; build is not\n",
		"build --max-total-iterations 5": "Error: --max-total-iterations applies to a script procedure; build is not: its one loop's count is -n/--max-iterations\n",
		"build -- x":                     "Error: arguments after -- go to a script procedure; build is not one: x\n",
		"nightly --lib rooda=x":          "Error: --lib \"rooda=x\": library name \"rooda\" must be a word of letters, digits, - and _, and not rooda (the standard library)\n",
	} {
		if _, stderr, code := rooda(strings.Fields(args)...); code != 1 || stderr != want {
			t.Errorf("%s: exit %d, stderr:\n%s", args, code, stderr)
		}
	}
}

// TestScriptDoc: one symbol's reference, the whole of it as committed in
// docs/builtins.md, and a suggestion for a typo.
func TestScriptDoc(t *testing.T) {
	wd, _ := os.Getwd()
	committed, err := os.ReadFile(filepath.Join(wd, "..", "..", "docs", "builtins.md"))
	if err != nil {
		t.Fatal(err)
	}
	inWorkspace(t, nil)
	stdout, stderr, code := rooda("script", "doc", "iterate")
	if code != 0 || !strings.HasPrefix(stdout, "### iterate\n\n```python no-run: a signature\niterate(procedure, max_iterations=None") || !strings.Contains(stdout, "| `on_iteration` | function(it) | None |") {
		t.Errorf("exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	if stdout, _, code := rooda("script", "doc"); code != 0 || stdout != string(committed) {
		t.Errorf("rooda script doc differs from docs/builtins.md (exit %d)", code)
	}
	if _, stderr, code := rooda("script", "doc", "itrate"); code != 1 || !strings.Contains(stderr, `no "itrate" in the reference; did you mean iterate?`) {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
