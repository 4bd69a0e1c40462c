package agentstream

import (
	"strings"
	"testing"
)

// TestWriteReadsBack writes replies as each CLI prints them and decodes
// them with that CLI's decoder: the text, the tokens, the cost and the
// cause come back as written, for every format and every cause.
func TestWriteReadsBack(t *testing.T) {
	full := Usage{Input: 100, Output: 50, CacheRead: 20, CacheWrite: 10}
	noWrite := Usage{Input: 100, Output: 50, CacheRead: 20}
	cases := map[Format][]Reply{
		Text:     {{Text: "Done. <promise>SUCCESS</promise>"}},
		Claude:   {{Text: "Done. <promise>SUCCESS</promise>", Usage: full, Cost: 0.25, HasCost: true}, {Text: "no cost", Usage: full}},
		Codex:    {{Text: "Done.\nSecond line.", Usage: noWrite}},
		Gemini:   {{Text: "Done.", Usage: noWrite}},
		OpenCode: {{Text: "Done.", Usage: full, Cost: 0.5, HasCost: true}},
		Copilot:  {{Text: "Done."}},
	}
	for f, replies := range cases {
		for _, cause := range []Cause{"", CauseAuth, CauseRateLimited, CauseUsageLimit, CauseNetwork, CauseOverloaded, CauseOther} {
			if f == Text && cause != "" {
				continue
			}
			for _, r := range replies {
				r.Cause = cause
				out, err := Write(f, r)
				if err != nil {
					t.Fatalf("%s: Write(%+v): %v", f, r, err)
				}
				_, sum := decode(f, out, 0)
				got := Reply{Text: sum.Text, Usage: sum.Usage, Cost: sum.CostUSD, HasCost: sum.CostReported, Cause: sum.Cause}
				if got != r {
					t.Errorf("%s: wrote %+v, read back %+v from:\n%s", f, r, got, out)
				}
			}
		}
	}
}

// TestWriteRefusesWhatACLINeverReports: a fake agent cannot report what
// its CLI never does, so a test cannot pass on a reply no agent gives.
func TestWriteRefusesWhatACLINeverReports(t *testing.T) {
	cases := []struct {
		f    Format
		r    Reply
		want string
	}{
		{Text, Reply{Cause: CauseAuth}, "no cause"},
		{Text, Reply{Cost: 1, HasCost: true}, "no cost"},
		{Codex, Reply{Cost: 1, HasCost: true}, "codex-json reports no cost"},
		{Gemini, Reply{Usage: Usage{CacheWrite: 1}}, "no cache_write"},
		{Copilot, Reply{Usage: Usage{Input: 1}}, "copilot-json reports no tokens"},
		{OpenCode, Reply{HasCost: true}, "a cost of 0"},
		{Claude, Reply{Cause: "weird"}, `unknown cause "weird"`},
	}
	for _, c := range cases {
		_, err := Write(c.f, c.r)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %+v: got %v, want an error with %q", c.f, c.r, err, c.want)
		}
	}
}
