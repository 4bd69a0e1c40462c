package prompt

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Promises are the words an agent signals the iteration's outcome with,
// each in a promise tag (<promise>SUCCESS</promise>): the preamble names
// them, and the loop looks for them, and only them, in what the agent
// said. The zero value is the default pair, SUCCESS and FAILURE.
type Promises struct {
	// Success and Failure are the words of each kind; an empty kind is
	// its default word.
	Success, Failure []string
}

// Promise kinds, as a script names them.
const (
	PromiseSuccess = "success"
	PromiseFailure = "failure"
)

// promiseWord is what a custom word may be: it goes between the tags as
// it is, and a word with spaces or markup would be a trap to write.
var promiseWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]+$`) })

// NewPromises reads custom promise words, each with the kind it signals
// ("success" or "failure"), in the order given. A kind given no word
// keeps its default.
func NewPromises(words [][2]string) (Promises, error) {
	var p Promises
	for _, w := range words {
		word, kind := w[0], w[1]
		if !promiseWord().MatchString(word) {
			return Promises{}, fmt.Errorf("promise word %q: want letters, digits, _ or - (it is written <promise>WORD</promise>)", word)
		}
		switch kind {
		case PromiseSuccess:
			p.Success = append(p.Success, word)
		case PromiseFailure:
			p.Failure = append(p.Failure, word)
		default:
			return Promises{}, fmt.Errorf("promise word %q: its kind must be %q or %q, got %q", word, PromiseSuccess, PromiseFailure, kind)
		}
	}
	return p, nil
}

// SuccessWords are the words that signal success: SUCCESS unless others
// were given.
func (p Promises) SuccessWords() []string { return orDefault(p.Success, "SUCCESS") }

// FailureWords are the words that signal failure: FAILURE unless others
// were given.
func (p Promises) FailureWords() []string { return orDefault(p.Failure, "FAILURE") }

func orDefault(words []string, dflt string) []string {
	if len(words) == 0 {
		return []string{dflt}
	}
	return words
}

// Tag is a word in its promise tag.
func Tag(word string) string { return "<promise>" + word + "</promise>" }

// tags are the words in their tags, as the preamble lists them.
func tags(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = Tag(w)
	}
	return strings.Join(out, " or ")
}
