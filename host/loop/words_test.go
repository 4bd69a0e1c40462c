package loop

import (
	"fmt"
	"strings"
	"testing"
)

// TestLastLines: the last non-blank lines, oldest first, without
// terminal escapes or a redrawn progress bar, each cut to its width.
func TestLastLines(t *testing.T) {
	long := strings.Repeat("é", 250)
	for _, tc := range []struct {
		out  string
		want []string
	}{
		{"", nil},
		{"\n\n  \n", nil},
		{"one\ntwo\n", []string{"one", "two"}},
		{"a\nb\n\nc\n\n\nd", []string{"b", "c", "d"}},
		{"\x1b[31mError:\x1b[0m Not logged in\r\n", []string{"Error: Not logged in"}},
		{"10%\r50%\r100% done\n", []string{"100% done"}},
		{long + "\n", []string{strings.Repeat("é", 200) + "…"}},
		{"bad \xff byte\n", []string{"bad \uFFFD byte"}},
		// gemini 0.61.0 with its server down: the frames under the error
		// are skipped, a line that merely starts with "at" is not.
		{geminiServerDown, []string{"Ripgrep is not available. Falling back to GrepTool.",
			"Attempt 1 failed. Retrying with backoff... Error: exception TypeError: fetch failed sending request",
			"at last: it worked"}},
	} {
		if got := LastLines([]byte(tc.out), 3, 200); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%q: %q, want %q", tc.out, got, tc.want)
		}
	}
}

// geminiServerDown is the end of what gemini 0.61.0 wrote on stderr with
// no server on its port, then a line of the agent's own.
const geminiServerDown = `Ripgrep is not available. Falling back to GrepTool.
Attempt 1 failed. Retrying with backoff... Error: exception TypeError: fetch failed sending request
    at file:///root/.cache/rooda/clis/gemini@0.61.0/node_modules/@google/gemini-cli/bundle/chunk-JDPZ4CE3.js:267671:13
    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)
    at async Models.generateContent (file:///root/.cache/rooda/clis/gemini@0.61.0/node_modules/@google/gemini-cli/bundle/chunk-JDPZ4CE3.js:268643:16)
    at async retryWithBackoff (file:///root/.cache/rooda/clis/gemini@0.61.0/node_modules/@google/gemini-cli/bundle/chunk-JDPZ4CE3.js:308039:23)
    at async CompositeStrategy.route (file:///root/.cache/rooda/clis/gemini@0.61.0/node_modules/@google/gemini-cli/bundle/chunk-JDPZ4CE3.js:360242:26)
at last: it worked
`
