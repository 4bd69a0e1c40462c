package runlog

import "testing"

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
