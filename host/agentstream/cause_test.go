package agentstream

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"
)

// causeCase is a real message of a CLI (or of the API behind it, which
// the CLI passes on) and the cause it says.
type causeCase struct {
	table  *causeTable
	status int // the HTTP status the CLI reported with it, 0 if none
	msg    string
	want   Cause
}

// causeCases hold, for every row of the CLIs' and the APIs' tables, the
// message it was read from: in a real run against internal/modelserver,
// in the CLI's code at its pinned version, or as the CLI prints it to its
// users.
var causeCases = []causeCase{
	// claude 2.1.197
	{&claudeCauses, 0, "You've hit your session limit · resets 12:50am (America/Los_Angeles)", CauseUsageLimit},
	{&claudeCauses, 0, "You've hit your weekly limit · resets Jul 18, 4am (Europe/Vienna)\n/login to switch to an API usage-billed account.", CauseUsageLimit},
	{&claudeCauses, 429, "API Error: Request rejected (429) · You've hit your usage limit; it resets at 2026-11-26T09:35:50Z", CauseUsageLimit},
	{&claudeCauses, 0, "You're out of usage credits · resets 3pm", CauseUsageLimit},
	{&claudeCauses, 0, "Credit balance too low · Add funds: https://platform.claude.com/settings/billing", CauseUsageLimit},
	{&claudeCauses, 0, "Not logged in · Please run /login", CauseAuth},
	{&claudeCauses, 0, "Invalid API key · Please run /login", CauseAuth},
	{&claudeCauses, 0, "API Error: Unable to connect to API (ConnectionRefused)", CauseNetwork},
	// codex 0.169.0
	{&codexCauses, 0, "You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at 7:48 AM.", CauseUsageLimit},
	{&codexCauses, 0, "Quota exceeded. Check your plan and billing details.", CauseUsageLimit},
	{&codexCauses, 0, "unexpected status 401 Unauthorized: Incorrect API key provided, url: http://127.0.0.1:36931/v1/responses", CauseAuth},
	{&codexCauses, 0, "Reconnecting... waiting for network (Connection failed: error sending request)", CauseNetwork},
	{&codexCauses, 0, "stream disconnected before completion: error sending request for url (http://127.0.0.1:9/v1/responses)", CauseNetwork},
	// gemini 0.61.0: a usage limit whose reset is over 5 minutes away
	// (TerminalQuotaError, passed on named "unknown"), a quota it names
	// itself, a rate limit, no auth method, a 401, its server down.
	{&geminiCauses, 0, "[API Error: You exceeded your current quota. Please retry in 590s.\nSuggested retry after 590s.]\nPlease wait and try again later. To increase your limits, request a quota increase through AI Studio, or switch to another /auth method", CauseUsageLimit},
	{&geminiCauses, 0, "[API Error: You have exhausted your daily quota on this model.]\nPlease wait and try again later. To increase your limits, request a quota increase through AI Studio, or switch to another /auth method", CauseUsageLimit},
	{&geminiCauses, 0, "[API Error: You have exhausted your capacity on this model. Please retry in 3600s. (Status: RESOURCE_EXHAUSTED)]", CauseUsageLimit},
	{&geminiCauses, 0, "[API Error: Resource has been exhausted (e.g. check quota). Please retry in 2s.\nSuggested retry after 2s.]\nPlease wait and try again later. To increase your limits, request a quota increase through AI Studio, or switch to another /auth method", CauseRateLimited},
	{&geminiCauses, 0, "Please set an Auth method in your /root/.gemini/settings.json or specify one of the following environment variables before running: GEMINI_API_KEY, GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_GENAI_USE_GCA", CauseAuth},
	{&geminiCauses, 0, `[API Error: {"error":{"code":401,"message":"API key not valid. Please pass a valid API key.","status":"UNAUTHENTICATED"}}]`, CauseAuth},
	{&geminiCauses, 0, "Attempt 1 failed. Retrying with backoff... Error: exception TypeError: fetch failed sending request", CauseNetwork},
	// opencode 1.18.33
	{&opencodeCauses, 0, "Cannot connect to API: Unable to connect. Is the computer able to access the url?", CauseNetwork},
	{&opencodeCauses, 401, "Incorrect API key provided", CauseAuth},
	// copilot 1.0.102
	{&copilotCauses, 0, "No authentication information found.", CauseAuth},
	{&copilotCauses, 0, "Could not connect to local model provider at http://127.0.0.1:1/v1.\n  Check that the service is running and the port is correct.", CauseNetwork},
	{&copilotCauses, 429, "429 You've hit your usage limit. Try again at 2026-11-26T07:48:03Z.", CauseUsageLimit},
	// The APIs' own words, as opencode and copilot pass them on.
	{&opencodeCauses, 429, "You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.", CauseUsageLimit},
	{&opencodeCauses, 400, "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.", CauseUsageLimit},
	{&opencodeCauses, 0, "invalid x-api-key", CauseAuth},
	{&copilotCauses, 0, "Incorrect API key provided: sk-abc. You can find your API key at https://platform.openai.com/account/api-keys.", CauseAuth},
	{&geminiCauses, 0, "[API Error: Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. (Status: UNAUTHENTICATED)]", CauseAuth},
	{&geminiCauses, 0, "[API Error: Quota exceeded for quota metric 'Generate Content API requests per minute' (Status: RESOURCE_EXHAUSTED)]", CauseRateLimited},
	{&opencodeCauses, 0, "Overloaded", CauseOverloaded},
	// Words no table of a source knows.
	{&codexCauses, 0, "Not logged in", CauseAuth},
	{&copilotCauses, 0, "connect ECONNREFUSED 127.0.0.1:9", CauseNetwork},
	// A status's number inside another (copilot 1.0.102, its server down
	// on a port that holds "401", "429" or "503").
	{&copilotCauses, 0, "Failed native model HTTP request: error sending request for url (http://127.0.0.1:34017/v1/chat/completions): client error (Connect): tcp connect error: Connection refused (os error 111) [ECONNREFUSED] streaming_error", CauseNetwork},
	{&copilotCauses, 0, "Failed native model HTTP request: error sending request for url (http://127.0.0.1:42953/v1/chat/completions): client error (Connect): tcp connect error: Connection refused (os error 111) [ECONNREFUSED] streaming_error", CauseNetwork},
	{&copilotCauses, 0, "Failed native model HTTP request: error sending request for url (http://127.0.0.1:50399/v1/chat/completions): client error (Connect): tcp connect error: Connection refused (os error 111) [ECONNREFUSED] streaming_error", CauseNetwork},
	{&opencodeCauses, 0, "Request failed (401)", CauseAuth},
	{&opencodeCauses, 429, "Too Many Requests", CauseRateLimited},
	{&claudeCauses, 529, "", CauseOverloaded},
	{&geminiCauses, 0, "something odd", CauseOther},
}

func TestCauseOfRealMessages(t *testing.T) {
	for _, tc := range causeCases {
		if got := tc.table.error(tc.status, tc.msg); got != tc.want {
			t.Errorf("%s: %d %q is %q, want %q", tc.table.source, tc.status, tc.msg, got, tc.want)
		}
	}
}

// TestEveryCauseRowHasARealMessage: each row of a CLI's or the APIs'
// table decides the cause of at least one of causeCases, so that no
// wording is there without the message it was read from.
func TestEveryCauseRowHasARealMessage(t *testing.T) {
	decided := map[*causeTable][]causeRow{}
	for _, tc := range causeCases {
		msg := causeWords(tc.msg)
		for _, table := range []*causeTable{tc.table, &providerCauses} {
			if r, ok := table.row(msg); ok {
				decided[table] = append(decided[table], r)
				break
			}
		}
	}
	for _, table := range []*causeTable{&claudeCauses, &codexCauses, &geminiCauses, &opencodeCauses, &copilotCauses, &providerCauses} {
		for _, r := range table.rows {
			if !slices.Contains(decided[table], r) {
				t.Errorf("%s: no real message is decided by %q (%s)", table.source, r.words, r.cause)
			}
		}
	}
}

// TestCauseTablesAreOfThePinnedVersions: each CLI's table names the
// version the real-CLI suite installs (internal/realcli/install.sh), so
// that moving to another version means checking its wording again.
func TestCauseTablesAreOfThePinnedVersions(t *testing.T) {
	script, err := os.ReadFile(filepath.Join("..", "..", "internal", "realcli", "install.sh"))
	if err != nil {
		t.Fatal(err)
	}
	pinned := map[string]string{}
	for _, m := range regexp.MustCompile(`\[(\w+)\]="([^"]+)"`).FindAllStringSubmatch(string(script), -1) {
		pinned[m[1]] = m[2]
	}
	for name, table := range map[string]*causeTable{"claude": &claudeCauses, "codex": &codexCauses, "gemini": &geminiCauses, "opencode": &opencodeCauses, "copilot": &copilotCauses} {
		if pinned[name] != table.source {
			t.Errorf("%s's causes were read from %s; install.sh pins %q", name, table.source, pinned[name])
		}
	}
}

// TestClaudeResetAt: the reset a claude notice names, on the clock of the
// zone it names or else the local one, to the end of the minute.
func TestClaudeResetAt(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Skip("no zone database:", err)
	}
	now := time.Date(2026, 7, 4, 14, 0, 30, 0, time.UTC) // 16:00 in Paris
	for _, tc := range []struct {
		msg  string
		want time.Time
	}{
		{"You've hit your session limit · resets 12:50am (America/Los_Angeles)", time.Date(2026, 7, 5, 7, 51, 0, 0, time.UTC)},
		{"You've hit your session limit · resets 5:10pm (Europe/Paris)", time.Date(2026, 7, 4, 17, 11, 0, 0, paris)},
		{"You've hit your session limit · resets 3pm", time.Date(2026, 7, 4, 15, 1, 0, 0, time.UTC)},
		{"You've hit your session limit · resets 2pm", time.Date(2026, 7, 4, 14, 1, 0, 0, time.UTC)}, // a minute ago: not tomorrow
		{"You've hit your session limit · resets 1pm", time.Date(2026, 7, 5, 13, 1, 0, 0, time.UTC)},
		{"You've hit your weekly limit · resets Jul 18, 4am (Europe/Vienna)", time.Date(2026, 7, 18, 2, 1, 0, 0, time.UTC)},
		{"You've hit your weekly limit · resets Jan 2, 2027, 4:30am", time.Date(2027, 1, 2, 4, 31, 0, 0, time.UTC)},
		{"You've hit your session limit", time.Time{}},
		{"You've hit your session limit · resets 3pm (Nowhere/Atlantis)", time.Time{}},
		{"API Error: Request rejected (429) · You've hit your usage limit; it resets at 2026-11-26T09:35:50Z", time.Time{}},
	} {
		if got := claudeResetAt(tc.msg, now); !got.Equal(tc.want) {
			t.Errorf("%q: %v, want %v", tc.msg, got, tc.want)
		}
	}
}

// reachCases are real retries of the CLIs without a response, and
// whether their words say the request reached a server: against
// internal/modelserver down (refused) and hanging (held), or as the CLI's
// code at its pinned version words it.
var reachCases = []struct {
	retry Retry
	want  Reach
}{
	// codex 0.169.0: its network down, its server down, its server
	// holding the stream (stream_idle_timeout_ms).
	{Retry{Error: "waiting for network", Cause: CauseNetwork}, ReachNone},
	{Retry{Attempt: 1, Max: 5, Error: "stream disconnected before completion: error sending request for url (http://127.0.0.1:9/v1/responses)", Cause: CauseNetwork}, ReachNone},
	{Retry{Attempt: 1, Max: 5, Error: "stream disconnected before completion: idle timeout waiting for SSE", Cause: CauseNetwork}, ReachHeld},
	// claude 2.1.197 names both "unknown" with no status (the decoder
	// drops the name); gemini 0.61.0 says "fetch failed" of both.
	{Retry{Attempt: 1, Max: 10, Delay: 540 * time.Millisecond, Cause: CauseNetwork}, ReachUnknown},
	{Retry{Attempt: 1, Error: "exception TypeError: fetch failed sending request", Cause: CauseNetwork}, ReachUnknown},
	// Node's fetch, as copilot and opencode pass it on.
	{Retry{Error: "connect ECONNREFUSED 127.0.0.1:9", Cause: CauseNetwork}, ReachNone},
	{Retry{Error: "Connect Timeout Error (attempted address: 10.255.255.1:443, timeout: 10000ms)", Cause: CauseNetwork}, ReachNone},
	{Retry{Error: "Headers Timeout Error", Cause: CauseNetwork}, ReachHeld},
	// A response came: neither.
	{Retry{Status: 504, Error: "gateway timeout", Cause: CauseOther}, ReachUnknown},
}

func TestReachOfRealRetries(t *testing.T) {
	for _, tc := range reachCases {
		if got := tc.retry.Reach(); got != tc.want {
			t.Errorf("%+v: reach %d, want %d", tc.retry, got, tc.want)
		}
	}
}
