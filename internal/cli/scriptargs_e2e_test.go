package cli

import (
	"strings"
	"testing"
)

// TestScriptTypedArguments: flags() reads the script's arguments after
// -- by their defaults' types, for rooda script run and rooda run NAME;
// a flag it does not take or a value of the wrong type ends the run
// naming the flag, at the flags() line; rooda info shows the flags.
func TestScriptTypedArguments(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.write("rooda-config.yml", "procedures:\n  nightly:\n    script: nightly.star\n")
	w.write("nightly.star", `"""Builds n times."""
opts = flags(n = 3, agent = "claude", dry_run = False, ratio = 0.5)
print("n+1 =", opts.n + 1, "agent =", opts.agent, "dry_run =", opts.dry_run, "ratio =", opts.ratio, "args =", args)
`)
	w.runScript("nightly.star").expect(t, 0, `n+1 = 4 agent = claude dry_run = False ratio = 0.5 args = ()`)
	w.runScript("nightly.star", "--", "--n=5", "--agent", "codex", "--dry-run", "src/auth").expect(t, 0,
		`n+1 = 6 agent = codex dry_run = True ratio = 0.5 args = ("--n=5", "--agent", "codex", "--dry-run", "src/auth")`)
	w.rooda("run", "nightly", "--", "--ratio=2.5", "-n", "7").expect(t, 0, `n+1 = 8 agent = claude dry_run = False ratio = 2.5`)
	w.runScript("nightly.star", "--", "--n=five").expect(t, 1,
		"nightly.star:2:13: in <toplevel>", `Error in flags: the script's argument --n: want an int, got "five"`)
	w.runScript("nightly.star", "--", "--agnet", "codex").expect(t, 1,
		"Error in flags: the script takes no argument --agnet (did you mean --agent?); it takes --n=3, --agent=claude, --dry_run, --ratio=0.5")
	o := w.rooda("info", "nightly")
	want := "Summary: Builds n times.\n"
	flagsShown := "\nArguments (after --):\n  flags() at nightly.star:2:13:\n    --n=3           int\n    --agent=claude  str\n    --dry_run       bool\n    --ratio=0.5     float\n\nLoops"
	if o.code != 0 || !strings.Contains(o.stdout, want) || !strings.Contains(o.stdout, flagsShown) {
		t.Errorf("info: exit %d, want the flags:\n%s\nstdout:\n%s\nstderr:\n%s", o.code, flagsShown, o.stdout, o.stderr)
	}
}
