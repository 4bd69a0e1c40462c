package prompt

import (
	"strings"
	"testing"

	"rooda/internal/golden"
)

// TestCustomPromisesInThePreamble: custom promise words replace the
// default of their kind in the preamble, several of a kind joined by "or";
// a kind given none keeps its default.
func TestCustomPromisesInThePreamble(t *testing.T) {
	words, err := NewPromises([][2]string{{"COMPLETE", "success"}, {"ALL_DONE", "success"}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ComposeWith(Procedure{Name: "p", Phases: [4][]Fragment{3: {{Content: "Work."}}}}, Iteration{Number: 1, Max: 3}, Sections{Promises: words})
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "custom_promises", got)
	plain, _ := ComposeWith(Procedure{Name: "p", Phases: [4][]Fragment{3: {{Content: "Work."}}}}, Iteration{Number: 1, Max: 3}, Sections{})
	if strings.Contains(plain, "COMPLETE") || !strings.Contains(plain, "output: <promise>SUCCESS</promise>\n") {
		t.Errorf("without custom words the preamble changed:\n%s", plain)
	}
}

// TestPromiseWordsChecked: a word that cannot stand between the tags, or
// a kind that is neither success nor failure, is refused, naming it.
func TestPromiseWordsChecked(t *testing.T) {
	for words, want := range map[[2]string]string{
		{"ALL DONE", "success"}:                `promise word "ALL DONE": want letters, digits, _ or -`,
		{"<promise>DONE</promise>", "success"}: `promise word "<promise>DONE</promise>"`,
		{"", "success"}:                        `promise word ""`,
		{"DONE", "stop"}:                       `promise word "DONE": its kind must be "success" or "failure", got "stop"`,
	} {
		if _, err := NewPromises([][2]string{words}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", words, err, want)
		}
	}
}
