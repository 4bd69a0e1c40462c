package session

import "testing"

// TestResumedLoopKeepsItsName: a branch of parallel() whose loop a
// resumed record names keeps that name, and its later loops are told
// apart as they were: "p#4" recorded says another function's loop has p,
// whichever of the two starts again first.
func TestResumedLoopKeepsItsName(t *testing.T) {
	names := &loopNames{taken: map[string]int{}}
	third := &branch{number: 3, fn: "work", names: names}
	fourth := &branch{number: 4, fn: "work", names: names}
	for _, tc := range []struct {
		got, want string
	}{
		{fourth.keepName("p#4"), "p#4"},
		{fourth.loopName("p", nil), "p#4"},
		{third.keepName("p"), "p"},
		{third.loopName("p", nil), "p"},
		{fourth.loopName("p", nil), "p#4"},
		{fourth.loopName("build", nil), "build"},
		{third.loopName("build", nil), "build#3"},
	} {
		if tc.got != tc.want {
			t.Errorf("named %q, want %q", tc.got, tc.want)
		}
	}
}
