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

// causePhrases map what the CLIs write in their error messages (lower
// case) to a cause, most telling first: a usage limit also says "limit",
// a login failure may also say "401".
var causePhrases = []struct {
	cause   Cause
	phrases []string
}{
	{CauseUsageLimit, []string{"usage limit", "out of usage", "hit your", "exhausted your", "daily quota", "credit balance", "billing", "insufficient_quota"}},
	{CauseAuth, []string{"not logged in", "/login", "api key", "api_key", "unauthorized", "unauthenticated", "authentication", "auth method", "permission_denied", "401"}},
	{CauseRateLimited, []string{"rate limit", "rate_limit", "too many requests", "resource_exhausted", "quota", "429"}},
	{CauseOverloaded, []string{"overloaded", "529", "503", "unavailable"}},
	{CauseNetwork, []string{"network", "connect", "econnrefused", "econnreset", "enotfound", "timed out", "timeout", "disconnected", "fetch failed", "socket"}},
}

// textCause guesses the cause from an error message: the CLIs that say
// no cause of their own still say it in words.
func textCause(msg string) Cause {
	msg = strings.ToLower(msg)
	for _, c := range causePhrases {
		for _, p := range c.phrases {
			if strings.Contains(msg, p) {
				return c.cause
			}
		}
	}
	return CauseOther
}

// errorCause is the cause of an error with an HTTP status (0 if none) and
// a message: the status when it says one, otherwise the words.
func errorCause(status int, msg string) Cause {
	if c := statusCause(status); c != "" {
		return sharpen(c, msg)
	}
	return textCause(msg)
}

// sharpen tells a plan's usage limit from a burst of requests: both come
// as a 429 or a "rate_limit", only the words differ.
func sharpen(c Cause, msg string) Cause {
	if c == CauseRateLimited && textCause(msg) == CauseUsageLimit {
		return CauseUsageLimit
	}
	return c
}
