package agentstream

import (
	"regexp"
	"strconv"
	"sync"
	"time"
)

// claudeResets is how claude names when a limit resets, on the local
// clock or the zone it names: "resets 3pm", "resets 12:50am
// (America/Los_Angeles)", past a day "resets Jul 18, 4am", in another
// year "resets Jan 2, 2027, 4am" (2.1.197's notices, from the reset time
// formatted "en-US").
var claudeResets = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`resets (?:([A-Z][a-z]{2}) (\d{1,2}), (?:(\d{4}), )?)?(\d{1,2})(?::(\d{2}))?([ap]m)(?: \(([A-Za-z0-9_+/-]+)\))?`)
})

// claudeResetAt is when the limit msg names is surely over: the end of
// the minute it names (claude names no seconds), the next time the clock
// shows it when it names no day; zero when msg names none, or a zone
// this system does not know.
func claudeResetAt(msg string, now time.Time) time.Time {
	m := claudeResets().FindStringSubmatch(msg)
	if m == nil {
		return time.Time{}
	}
	loc := now.Location()
	if m[7] != "" {
		var err error
		if loc, err = time.LoadLocation(m[7]); err != nil {
			return time.Time{}
		}
	}
	hour, minute, ok := clock12(m[4], m[5], m[6] == "pm")
	if !ok {
		return time.Time{}
	}
	if m[1] == "" {
		return nextEndOfMinute(now, hour, minute, loc)
	}
	month, err := time.Parse("Jan", m[1])
	day, _ := strconv.Atoi(m[2])
	if err != nil || day < 1 || day > 31 {
		return time.Time{}
	}
	year := now.In(loc).Year()
	if m[3] != "" {
		year, _ = strconv.Atoi(m[3])
	}
	return time.Date(year, month.Month(), day, hour, minute, 0, 0, loc).Add(time.Minute)
}
