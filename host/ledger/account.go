package ledger

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
)

// credentials are, by CLI (its program's base name), the environment
// variables that hold the credential it spends from, in the order it
// prefers them: an account is the CLI and which of those it was given.
var credentials = map[string][]string{
	"claude":   {"ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_AUTH_TOKEN"},
	"codex":    {"CODEX_API_KEY", "OPENAI_API_KEY"},
	"gemini":   {"GEMINI_API_KEY", "GOOGLE_API_KEY"},
	"copilot":  {"COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"},
	"opencode": {"ANTHROPIC_API_KEY", "OPENAI_API_KEY"},
	"amp":      {"AMP_API_KEY"},
	"kiro-cli": {"KIRO_API_KEY"},
}

// Account names the account an agent spends from, when its alias names
// none: its CLI (program's base name), and, when a credential variable
// of that CLI is set, a short fingerprint of its value, never the value:
// "claude" for a login, "claude-3fa9c1d2" for an API key. Two keys of
// one CLI are two accounts; one login on one machine is one.
func Account(program string, getenv func(string) string) string {
	cli := filepath.Base(program)
	for _, name := range credentials[cli] {
		if v := getenv(name); v != "" {
			return cli + "-" + Fingerprint(v)
		}
	}
	return cli
}

// Fingerprint is a short hash of a credential: enough to tell two apart,
// nothing to find one from.
func Fingerprint(credential string) string {
	sum := sha256.Sum256([]byte(credential))
	return hex.EncodeToString(sum[:4])
}
