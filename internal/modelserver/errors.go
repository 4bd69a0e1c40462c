package modelserver

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"
)

// writeError answers a reply's HTTP error in the API's own shape, with the
// headers the CLIs read: retry-after, and for a usage limit its reset.
func writeError(w http.ResponseWriter, api API, r Reply) {
	status := r.Status
	if status == 529 && api != Anthropic {
		status = http.StatusServiceUnavailable // only Anthropic has a 529
	}
	if wait := r.wait(); wait > 0 {
		w.Header().Set("retry-after", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
		w.Header().Set("retry-after-ms", strconv.FormatInt(wait.Milliseconds(), 10))
	}
	if !r.ResetAt.IsZero() && api == Anthropic {
		// claude reads its subscription's limits from these headers.
		w.Header().Set("anthropic-ratelimit-unified-status", "rejected")
		w.Header().Set("anthropic-ratelimit-unified-reset", strconv.FormatInt(r.ResetAt.Unix(), 10))
		w.Header().Set("anthropic-ratelimit-unified-representative-claim", "five_hour")
	}
	writeJSON(w, status, errorBodies[api](status, r))
}

// wait is how long the CLI should wait before trying again: until the
// reset of a usage limit, else the retry-after.
func (r Reply) wait() time.Duration {
	if !r.ResetAt.IsZero() {
		return max(time.Until(r.ResetAt), time.Second)
	}
	return r.RetryAfter
}

// errorBodies make each API's error body.
var errorBodies = map[API]func(status int, r Reply) obj{
	Anthropic: anthropicError,
	Responses: openAIError,
	Chat:      openAIError,
	Gemini:    geminiError,
}

func anthropicError(status int, r Reply) obj {
	kind, message := "api_error", "Internal server error"
	switch {
	case status == http.StatusUnauthorized:
		kind, message = "authentication_error", "invalid x-api-key"
	case !r.ResetAt.IsZero():
		kind, message = "rate_limit_error", "You've hit your usage limit; it resets at "+r.ResetAt.UTC().Format(time.RFC3339)
	case status == http.StatusTooManyRequests:
		kind, message = "rate_limit_error", "Number of requests has exceeded your rate limit"
	case status == 529:
		kind, message = "overloaded_error", "Overloaded"
	}
	return obj{"type": "error", "error": obj{"type": kind, "message": message}}
}

// openAIError is the error of OpenAI's APIs. A usage limit is codex's
// usage_limit_reached, with the reset as resets_at (Unix seconds) and
// resets_in_seconds.
func openAIError(status int, r Reply) obj {
	e := obj{"type": "server_error", "code": "server_error", "message": "The server had an error"}
	switch {
	case status == http.StatusUnauthorized:
		e = obj{"type": "invalid_request_error", "code": "invalid_api_key",
			"message": "Incorrect API key provided"}
	case !r.ResetAt.IsZero():
		e = obj{"type": "usage_limit_reached", "code": "usage_limit_reached",
			"message":           "You've hit your usage limit. Try again at " + r.ResetAt.UTC().Format(time.RFC3339) + ".",
			"plan_type":         "plus",
			"resets_at":         r.ResetAt.Unix(),
			"resets_in_seconds": int(math.Ceil(r.wait().Seconds())),
		}
	case status == http.StatusTooManyRequests:
		e = obj{"type": "requests", "code": "rate_limit_exceeded", "message": "Rate limit reached. Please try again later."}
		if r.RetryAfter > 0 {
			e["message"] = fmt.Sprintf("Rate limit reached. Please try again in %s.", r.RetryAfter)
		}
	case status == http.StatusServiceUnavailable:
		e = obj{"type": "server_error", "code": "server_is_overloaded",
			"message": "The server is overloaded. Please try again later."}
	}
	return obj{"error": e}
}

// geminiError is a google.rpc.Status. A 429 carries a RetryInfo (how
// gemini learns when to retry) and, for a usage limit, a QuotaFailure; its
// message says "Please retry in Ns", which gemini also reads.
func geminiError(status int, r Reply) obj {
	e := obj{"code": status, "status": "INTERNAL", "message": "Internal error encountered."}
	switch status {
	case http.StatusUnauthorized:
		e["status"], e["message"] = "UNAUTHENTICATED", "API key not valid. Please pass a valid API key."
	case http.StatusTooManyRequests:
		e["status"], e["message"] = "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota)."
		if r.wait() == 0 {
			break // a limit that names no time to retry at
		}
		seconds := strconv.Itoa(int(math.Ceil(r.wait().Seconds()))) + "s"
		details := []obj{{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": seconds}}
		e["message"] = "Resource has been exhausted (e.g. check quota). Please retry in " + seconds + "."
		if !r.ResetAt.IsZero() {
			details = append([]obj{{"@type": "type.googleapis.com/google.rpc.QuotaFailure",
				"violations": []obj{{"quotaMetric": "generativelanguage.googleapis.com/generate_content_requests",
					"quotaId": "GenerateRequestsPerMinutePerProjectPerModel"}}}}, details...)
			e["message"] = "You exceeded your current quota. Please retry in " + seconds + "."
		}
		e["details"] = details
	case http.StatusServiceUnavailable:
		e["status"], e["message"] = "UNAVAILABLE", "The model is overloaded. Please try again later."
	}
	return obj{"error": e}
}
