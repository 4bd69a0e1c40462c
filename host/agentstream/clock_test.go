package agentstream

import (
	"os"
	"testing"
	"time"
)

// testNow is the time every test decodes at: the resets a CLI names by
// the clock alone come out the same on every run.
var testNow = time.Date(2026, 11, 23, 14, 58, 30, 0, time.UTC)

func TestMain(m *testing.M) {
	clock = func() time.Time { return testNow }
	os.Exit(m.Run())
}

// TestCodexTryAgainAt: "try again at 3:05 PM" is over at the end of the
// next 15:05 on the clock, today or tomorrow; a minute just begun is now.
func TestCodexTryAgainAt(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		want time.Time
	}{
		{"You've hit your usage limit. try again at 3:05 PM.", time.Date(2026, 11, 23, 15, 6, 0, 0, time.UTC)},
		{"try again at 2:58 PM", time.Date(2026, 11, 23, 14, 59, 0, 0, time.UTC)},
		{"try again at 9:00 AM", time.Date(2026, 11, 24, 9, 1, 0, 0, time.UTC)},
		{"try again at 12:30 AM", time.Date(2026, 11, 24, 0, 31, 0, 0, time.UTC)},
		{"try again later", time.Time{}},
		{"try again at 13:61 PM", time.Time{}},
	} {
		if got := codexTryAgainAt(tc.msg, testNow); !got.Equal(tc.want) {
			t.Errorf("%q: %v, want %v", tc.msg, got, tc.want)
		}
	}
}
