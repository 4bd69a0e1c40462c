package prompt

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Digests are a hash of each phase's composed text ("act phase" → its first
// twelve hex digits of sha256), over p and then each of roles: what a
// loop's prompt says, besides the preamble and the context, which a
// resume checks against the journal, so that an edited fragment (its
// inline content, its file, its template's parameters) is a changed
// call. A phase that cannot be composed hashes its error: it differs
// from one that can.
func Digests(p Procedure, roles []Procedure, promises Promises) map[string]string {
	out := map[string]string{}
	for _, ph := range Phases {
		var b strings.Builder
		for _, q := range append([]Procedure{p}, roles...) {
			text, err := composePhase(q, ph)
			if err != nil {
				text = "error: " + err.Error()
			}
			b.WriteString(text + "\x00")
		}
		out[ph.String()+" phase"] = shortHash(b.String())
	}
	// The words the preamble asks for shape the prompt too.
	out["promises"] = shortHash(strings.Join(promises.SuccessWords(), ",") + "\x00" + strings.Join(promises.FailureWords(), ","))
	return out
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:12]
}
