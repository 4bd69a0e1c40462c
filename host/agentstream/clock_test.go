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

// TestCodexTryAgainAt: "try again at 3:05 PM" names the minute the limit
// resets in, cut to it: from 15:05 to the end of the minute, the next
// 15:05 on the clock, today or tomorrow (a minute just begun is now);
// past today codex names the day.
func TestCodexTryAgainAt(t *testing.T) {
	minute := func(day, hour, min int) time.Time { return time.Date(2026, 11, day, hour, min, 0, 0, time.UTC) }
	for _, tc := range []struct {
		msg  string
		from time.Time
	}{
		{"You've hit your usage limit. try again at 3:05 PM.", minute(23, 15, 5)},
		{"try again at 2:58 PM", minute(23, 14, 58)},
		{"try again at 9:00 AM", minute(24, 9, 0)},
		{"try again at 12:30 AM", minute(24, 0, 30)},
		{"You've hit your usage limit. Upgrade to Pro, or try again at Nov 30th, 2026 9:07 AM.", minute(30, 9, 7)},
		{"or try again at Dec 1st, 2026 12:00 PM.", time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)},
		{"try again later", time.Time{}},
		{"try again at 13:61 PM", time.Time{}},
		{"try again at Nov 32nd, 2026 9:07 AM", time.Time{}},
	} {
		from, by := codexTryAgainAt(tc.msg, testNow)
		want := tc.from.Add(time.Minute)
		if tc.from.IsZero() {
			want = time.Time{}
		}
		if !from.Equal(tc.from) || !by.Equal(want) {
			t.Errorf("%q: from %v by %v, want from %v by %v", tc.msg, from, by, tc.from, want)
		}
	}
}
