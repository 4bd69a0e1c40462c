package main

import (
	"regexp"
	"testing"
)

// TestListSummaryFromCommentHeader: rooda list gives a script procedure
// that opens with a comment header (the style of scripts/examples, whose
// lint leaves module docstrings off) the header's first sentence as its
// summary, across the lines it wraps over, past a #! line; a docstring
// still comes first, and a script with neither has none.
func TestListSummaryFromCommentHeader(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.write("rooda-config.yml", "procedures:\n"+
		"  pair: {script: "+example("builder_reviewer.star")+"}\n"+
		"  wrapped: {script: wrapped.star}\n"+
		"  both: {script: both.star}\n"+
		"  bare: {script: bare.star}\n")
	w.write("wrapped.star", "#!/usr/bin/env rooda\n\n# Nightly: the build, until\n# the tests pass. Then a review.\n#\n# Usage: rooda nightly\n\nprint(1)\n")
	w.write("both.star", "# Not this.\n\"\"\"The docstring's line.\n\nMore.\"\"\"\nprint(1)\n")
	w.write("bare.star", "print(1)  # no summary here\n# nor here\n")
	o := w.rooda("list")
	for _, want := range []string{
		`(?m)^pair +Builder and reviewer in one loop, each with a prompt of its own: the builder does the next piece of the work, the reviewer reads it\.$`,
		`(?m)^wrapped +Nightly: the build, until the tests pass\.$`,
		`(?m)^both +The docstring's line\.$`,
		`(?m)^bare +\(no summary\)$`,
	} {
		if !regexp.MustCompile(want).MatchString(o.stdout) {
			t.Errorf("rooda list does not match %s (exit %d):\n%s%s", want, o.code, o.stdout, o.stderr)
		}
	}
	stdoutHas(t, w.rooda("list", "--json"), `"summary": "Nightly: the build, until the tests pass."`)
}
