package main

import (
	"strings"
	"testing"
)

// TestAssertShowsTheTextNearTheMiss: assert.contains on a prompt, which
// begins with the same banner as every prompt, shows the part of it where
// the needle came closest (the iteration line), not the banner;
// assert.eq of two long texts shows where they part; assert.equal says
// to use assert.eq.
func TestAssertShowsTheTextNearTheMiss(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t, step{})
	w.write("prompt_test.star", `
def test_contains():
    a = fake_agent(outputs = ["<promise>SUCCESS</promise>"])
    iterate(compose("p", act = [fragment(content = "Do it.")]), agent = a)
    assert.contains(a.prompts[0], "Iteration: 2 of 5")

def test_eq():
    assert.eq("=" * 300 + "\nIteration: 1 of 5\n", "=" * 300 + "\nIteration: 2 of 5\n")

def test_equal():
    assert.equal(1, 1)
`)
	o := w.rooda("script", "test")
	if o.code != 1 {
		t.Errorf("exit %d, want 1\n%s%s", o.code, o.stdout, o.stderr)
	}
	for _, want := range []string{
		`Error in assert.contains: "Iteration: 2 of 5" not in the text (`,
		`its longest start found, "Iteration: ", is at line `,
		`\nProcedure: p\nIteration: 1 of 5\n`,
		`Error in assert.eq: the texts differ (got 319 bytes, want 319); they differ from line 2: got …"`,
		`\nIteration: 1 of 5\n", want …"`,
		`Error: assert has no member equal; it has contains, eq, fails, true (did you mean assert.eq?)`,
	} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("the report lacks %q:\n%s", want, o.stdout)
		}
	}
}
