package config

// aliasNotes tell, for the built-in aliases, what the CLI needs that rooda
// cannot provide. Each was checked against the CLI's --help and a run
// without credentials (claude 2.1.197, codex 0.169.0, gemini 0.61.0,
// copilot 1.0.102, opencode 1.18.33, amp); the README's alias table says
// the same at more length.
var aliasNotes = map[string]string{
	"claude":       "claude refuses --dangerously-skip-permissions when run as root (\"cannot be used with root/sudo privileges\") unless IS_SANDBOX=1 is set",
	"codex":        "codex echoes the prompt into its output, and without credentials it retries the connection indefinitely: set an iteration_timeout",
	"gemini":       "gemini needs GEMINI_API_KEY and an auth method chosen in ~/.gemini/settings.json ({\"security\":{\"auth\":{\"selectedType\":\"gemini-api-key\"}}}), else it exits 41; --skip-trust keeps it from exiting 55 in a folder it does not trust",
	"copilot":      "copilot needs COPILOT_GITHUB_TOKEN, GH_TOKEN or GITHUB_TOKEN, or 'gh auth login'",
	"opencode":     "opencode run takes the prompt from stdin; it needs a provider in opencode.json (or a login), and without one it fails only after about 70 seconds (\"Cannot connect to API\")",
	"amp":          "amp without an API key starts a browser login; set AMP_API_KEY first",
	"kiro-cli":     "kiro-cli's headless mode needs KIRO_API_KEY",
	"cursor-agent": "cursor-agent (also installed as 'agent') documents the prompt as an argument; reading stdin with -p is what other tools rely on",
}
