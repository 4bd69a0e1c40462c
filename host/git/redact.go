package git

import "strings"

// RedactURL is url with the secret in its user information hidden, for
// every place a repository's URL is shown or kept: a password becomes
// ***, and so does a lone user name over http(s), where it is how a
// token is given (https://TOKEN@host/…). A user name beside a password,
// or over ssh, is kept: it tells which account is used. Paths and
// scp-style sources (user@host:path) hold no secret and are returned as
// they are.
func RedactURL(url string) string {
	scheme, info, rest, ok := splitUserinfo(url)
	if !ok {
		return url
	}
	return scheme + "://" + redactUserinfo(scheme, info) + "@" + rest
}

// Redact is text with url, and its user information wherever git quoted
// it apart from the rest, shown as RedactURL shows them.
func Redact(text, url string) string {
	scheme, info, _, ok := splitUserinfo(url)
	if !ok {
		return text
	}
	text = strings.ReplaceAll(text, url, RedactURL(url))
	return strings.ReplaceAll(text, info+"@", redactUserinfo(scheme, info)+"@")
}

// splitUserinfo splits scheme://info@rest; ok is false for a URL
// without user information.
func splitUserinfo(url string) (scheme, info, rest string, ok bool) {
	scheme, after, found := strings.Cut(url, "://")
	if !found {
		return "", "", "", false
	}
	authority := after
	if end := strings.IndexAny(after, "/?#"); end >= 0 {
		authority = after[:end]
	}
	at := strings.LastIndex(authority, "@")
	if at < 0 {
		return "", "", "", false
	}
	return scheme, after[:at], after[at+1:], true
}

func redactUserinfo(scheme, info string) string {
	user, _, hasPassword := strings.Cut(info, ":")
	switch {
	case hasPassword:
		return user + ":***"
	case strings.HasPrefix(strings.ToLower(scheme), "http"):
		return "***"
	}
	return info
}
