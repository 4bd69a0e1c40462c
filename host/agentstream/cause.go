package agentstream

import "strings"

// statusCause is the cause an HTTP status says, or "" when it says none.
func statusCause(status int) Cause {
	switch status {
	case 401, 403:
		return CauseAuth
	case 429:
		return CauseRateLimited
	case 503, 529:
		return CauseOverloaded
	}
	return ""
}

// A causeRow says that an error message holding words (lower case, with
// ’ written ') has cause.
type causeRow struct {
	cause Cause
	words string
}

// A causeTable is how one source of errors words them: a CLI at the
// version its wording was read from (the one internal/realcli/install.sh
// pins, which a test checks), or the model APIs whose messages the CLIs
// pass on. Its rows are tried in order, the most telling first: a quota
// error may also say "limit", gemini ends every 429 with "or switch to
// another /auth method". Each row has a test with the real message it was
// read from (cause_test.go): a wording that changes is a row and a test.
type causeTable struct {
	source string // "@google/gemini-cli@0.61.0", as install.sh pins it
	rows   []causeRow
}

// claudeCauses: what claude says itself (its own usage-limit notices,
// "You've hit your session limit · resets 3pm (Europe/Paris)"); the API's
// words come in providerCauses.
var claudeCauses = causeTable{"@anthropic-ai/claude-code@2.1.332", []causeRow{
	{CauseUsageLimit, "you've hit your"}, // session, weekly, Opus, usage, monthly spend limit
	{CauseUsageLimit, "you're out of usage"},
	{CauseUsageLimit, "credit balance too low"},
	{CauseAuth, "not logged in"},
	{CauseAuth, "/login"},
	{CauseNetwork, "unable to connect to api"},
}}

// codexCauses: codex's own words, and how it words a status it got.
var codexCauses = causeTable{"@openai/codex@0.171.0", []causeRow{
	{CauseUsageLimit, "you've hit your usage limit"},
	{CauseUsageLimit, "quota exceeded. check your plan"},
	{CauseAuth, "401 unauthorized"},
	{CauseNetwork, "waiting for network"},
	{CauseNetwork, "stream disconnected"},
}}

// geminiCauses: gemini passes the API's message on inside "[API Error: …]"
// and adds, to any 429, "Please wait and try again later. To increase your
// limits, request a quota increase through AI Studio, or switch to another
// /auth method": which is no login failure.
var geminiCauses = causeTable{"@google/gemini-cli@0.61.0", []causeRow{
	{CauseUsageLimit, "exceeded your current quota"},
	{CauseUsageLimit, "exhausted your daily quota"},
	{CauseUsageLimit, "exhausted your capacity"},
	{CauseRateLimited, "request a quota increase"},
	{CauseAuth, "set an auth method"},
	{CauseAuth, "api key not valid"},
	{CauseNetwork, "fetch failed"},
}}

// opencodeCauses: opencode names its errors (ProviderAuthError, APIError
// with the provider's status) and passes the provider's message on.
var opencodeCauses = causeTable{"opencode-ai@1.18.33", []causeRow{
	{CauseNetwork, "cannot connect to api"},
}}

// copilotCauses: copilot types its session errors (authentication,
// rate_limit, quota, query) and passes the provider's message on.
var copilotCauses = causeTable{"@github/copilot@1.0.102", []causeRow{
	{CauseAuth, "no authentication information found"},
	{CauseNetwork, "could not connect to local model provider"},
}}

// providerCauses are the model APIs' own words (Anthropic's, OpenAI's,
// Google's), which every CLI passes on.
var providerCauses = causeTable{"the model APIs", []causeRow{
	{CauseUsageLimit, "exceeded your current quota"},
	{CauseUsageLimit, "credit balance is too low"},
	{CauseAuth, "invalid x-api-key"},
	{CauseAuth, "incorrect api key provided"},
	{CauseAuth, "unauthenticated"},
	{CauseRateLimited, "resource_exhausted"},
	{CauseOverloaded, "overloaded"},
}}

// commonCauses are words any message may hold, tried last, most telling
// first: a usage limit also says "limit", a login failure "401".
var commonCauses = causeTable{"any", []causeRow{
	{CauseUsageLimit, "usage limit"},
	{CauseUsageLimit, "out of usage"},
	{CauseUsageLimit, "daily quota"},
	{CauseUsageLimit, "billing"},
	{CauseUsageLimit, "insufficient_quota"},
	{CauseAuth, "not logged in"},
	{CauseAuth, "api key"},
	{CauseAuth, "api_key"},
	{CauseAuth, "unauthorized"},
	{CauseAuth, "authentication"},
	{CauseAuth, "permission_denied"},
	{CauseAuth, "401"},
	{CauseRateLimited, "rate limit"},
	{CauseRateLimited, "rate_limit"},
	{CauseRateLimited, "too many requests"},
	{CauseRateLimited, "quota"},
	{CauseRateLimited, "429"},
	{CauseOverloaded, "529"},
	{CauseOverloaded, "503"},
	{CauseOverloaded, "unavailable"},
	{CauseNetwork, "econnrefused"},
	{CauseNetwork, "econnreset"},
	{CauseNetwork, "enotfound"},
	{CauseNetwork, "network"},
	{CauseNetwork, "connect"},
	{CauseNetwork, "timed out"},
	{CauseNetwork, "timeout"},
	{CauseNetwork, "disconnected"},
	{CauseNetwork, "socket"},
}}

// row is the first row of t that msg (lower case) holds.
func (t *causeTable) row(msg string) (causeRow, bool) {
	for _, r := range t.rows {
		if holds(msg, r.words) {
			return r, true
		}
	}
	return causeRow{}, false
}

// holds says whether msg holds words; a number (a status, "401") only
// where it stands alone, not inside a longer one: a refused connection to
// port 34017 is no refused login.
func holds(msg, words string) bool {
	if !isDigit(words[0]) {
		return strings.Contains(msg, words)
	}
	for at := 0; ; {
		i := strings.Index(msg[at:], words)
		if i < 0 {
			return false
		}
		start, end := at+i, at+i+len(words)
		if (start == 0 || !isDigit(msg[start-1])) && (end == len(msg) || !isDigit(msg[end])) {
			return true
		}
		at = start + 1
	}
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

// causeWords is msg as the rows are written: lower case, a typographic
// apostrophe (codex's "You’ve") a plain one.
func causeWords(msg string) string {
	return strings.ReplaceAll(strings.ToLower(msg), "’", "'")
}

// text is the cause an error message says in words: the CLI's own first,
// then the APIs', then the common ones; CauseOther when none says.
func (t *causeTable) text(msg string) Cause {
	msg = causeWords(msg)
	for _, table := range []*causeTable{t, &providerCauses, &commonCauses} {
		if r, ok := table.row(msg); ok {
			return r.cause
		}
	}
	return CauseOther
}

// error is the cause of an error with an HTTP status (0 if none) and a
// message: the status when it says one, otherwise the words.
func (t *causeTable) error(status int, msg string) Cause {
	if c := statusCause(status); c != "" {
		return t.sharpen(c, msg)
	}
	return t.text(msg)
}

// sharpen tells a plan's usage limit from a burst of requests: both come
// as a 429 or a "rate_limit", only the words differ.
func (t *causeTable) sharpen(c Cause, msg string) Cause {
	if c == CauseRateLimited && t.text(msg) == CauseUsageLimit {
		return CauseUsageLimit
	}
	return c
}

// A Reach says whether a request that got no response reached a server:
// what tells an outage, which rooda waits out, from a hung model, which
// fails at model_timeout however often the CLI tries again.
type Reach uint8

const (
	// ReachUnknown: the words do not tell. claude names a refused
	// connection and a request it gave up on alike ("unknown", no
	// status), gemini says "fetch failed" of both; the time the try took
	// tells them apart (host/engine's watch).
	ReachUnknown Reach = iota
	// ReachNone: no connection was made, or it was cut before any byte
	// came back (refused, DNS, no network, reset): an outage.
	ReachNone
	// ReachHeld: the server took the request and held it without an
	// answer until the CLI's own timeout: a hung model.
	ReachHeld
)

// A reachRow says that a retry's error holding words (lower case) had
// reach.
type reachRow struct {
	reach Reach
	words string
}

// reachRows are the words the CLIs' retries carry that tell whether
// their request reached a server, tried in order: a connect timeout is
// no connection, any other timeout a request held. Each row has a test
// with the real message it was read from (cause_test.go).
var reachRows = []reachRow{
	{ReachNone, "waiting for network"}, // codex 0.169.0, its network down
	{ReachNone, "error sending request"},
	{ReachNone, "connection failed"},
	{ReachNone, "unable to connect"},
	{ReachNone, "cannot connect"},
	{ReachNone, "could not connect"},
	{ReachNone, "econnrefused"},
	{ReachNone, "connectionrefused"},
	{ReachNone, "enotfound"},
	{ReachNone, "eai_again"},
	{ReachNone, "econnreset"},
	{ReachNone, "connect timeout"},
	{ReachNone, "und_err_connect_timeout"},
	{ReachHeld, "idle timeout"}, // codex 0.169.0: "idle timeout waiting for SSE"
	{ReachHeld, "headers timeout"},
	{ReachHeld, "und_err_headers_timeout"},
	{ReachHeld, "body timeout"},
	{ReachHeld, "timed out"},
	{ReachHeld, "timeout"},
}

// Reach is whether r's request, which got no response, reached a server,
// from its words; ReachUnknown for a retry with an HTTP status, which
// had a response.
func (r Retry) Reach() Reach {
	if r.Status != 0 {
		return ReachUnknown
	}
	msg := causeWords(r.Error)
	for _, row := range reachRows {
		if strings.Contains(msg, row.words) {
			return row.reach
		}
	}
	return ReachUnknown
}
