package runlog

import (
	"fmt"
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	a := "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\n"
	b := "one\ntwo\nTHREE\nfour\nfive\nsix\nseven\neight\nnine\nten\n"
	want := "@@ line 1 @@\n  one\n  two\n- three\n+ THREE\n  four\n  five\n@@ line 8 @@\n  eight\n  nine\n+ ten\n  \n"
	if got := Diff(a, b); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if got := Diff(a, a); got != "" {
		t.Errorf("no change: %q", got)
	}
}

// TestDiffOfLargePrompts: a large context with one line changed is
// diffed without a table of its size.
func TestDiffOfLargePrompts(t *testing.T) {
	var a, b []string
	for i := range 30000 {
		a = append(a, fmt.Sprint("line ", i))
		b = append(b, fmt.Sprint("line ", i))
	}
	b[15000] = "changed"
	got := Diff(strings.Join(a, "\n"), strings.Join(b, "\n"))
	if !strings.Contains(got, "- line 15000\n+ changed\n") || strings.Count(got, "\n") > 10 {
		t.Errorf("diff:\n%s", got)
	}
}
