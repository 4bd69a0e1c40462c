package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestFirstExamplesPass: the examples a team writes first — plan then
// build, a builder and a reviewer, a fan-out into worktrees, a budget of
// the script's own, escalation, a shared library with its tests, a ralph
// loop, tests until green — are under scripts/examples/, and their script
// tests pass in the real binary, as CI runs them.
func TestFirstExamplesPass(t *testing.T) {
	cmd := exec.Command(binary(t), "script", "test", "-v", filepath.Join("scripts", "examples"))
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("rooda script test scripts/examples: %v\n%s", err, out)
	}
	for _, test := range []string{
		"test_tests_until_green_ends_when_the_tests_pass",
		"test_tests_until_green_never_trusts_success_alone",
		"test_shared_library_builds_the_team_procedure",
		"test_passes_trusts_the_command_not_the_agent",
		"test_plan_then_build_until_the_tests_pass",
		"test_builder_and_reviewer_until_the_reviewer_approves_twice",
		"test_fan_out_merges_what_does_not_conflict",
		"test_budget_carries_a_summary_into_the_next_round",
		"test_escalation_hands_over_after_two_failures",
		"test_ralph_reads_prompt_md_anew_until_complete",
	} {
		if !strings.Contains(string(out), " "+test+"\n") {
			t.Errorf("%s did not run:\n%s", test, out)
		}
	}
}

// TestSharedHelpersPinnedFromGit: the example's helper module works as
// its header says, pinned from a git repository with libraries: and
// loaded as @team//helpers.star.
func TestSharedHelpersPinnedFromGit(t *testing.T) {
	t.Parallel()
	helpers, err := os.ReadFile(filepath.Join("..", "..", "scripts", "examples", "team", "helpers.star"))
	if err != nil {
		t.Fatal(err)
	}
	repo, publish := gitRepo(t)
	writeFile(t, filepath.Join(repo, "star", "helpers.star"), string(helpers))
	commit := publish("hello", "v1")
	w := newLibWorkspace(t, repo, filepath.Join(t.TempDir(), "cache"))
	w.write("main.star", `load("@team//helpers.star", "passes", "team_procedure")
r = iterate(team_procedure("team-task", "Fix the flaky test."), max_iterations = 3, on_iteration = passes("true"))
print(r.status, r.iterations)
`)
	o := w.rooda("script", "run", "main.star", "--ai-cmd", w.aiCmd())
	if o.code != 0 || !strings.Contains(o.stderr, "success 1\n") {
		t.Fatalf("exit %d\n%s", o.code, o.stderr)
	}
	if p := w.prompt(1); !strings.Contains(p, "Fix the flaky test.\n\nKeep each commit small") {
		t.Errorf("the helper's procedure did not reach the agent:\n%s", p)
	}
	if lock, err := os.ReadFile(filepath.Join(w.dir, "rooda.lock")); err != nil || !strings.Contains(string(lock), commit) {
		t.Errorf("rooda.lock does not pin %s: %v\n%s", commit, err, lock)
	}
}
