package config

// aliasNotes tell, for the built-in aliases, what the CLI needs that rooda
// cannot provide. Each was checked against the CLI's --help and a run
// without credentials (claude 2.1.197, codex 0.169.0, gemini 0.61.0,
// copilot 1.0.102, opencode 1.18.33, amp); the README's alias table says
// the same at more length.
var aliasNotes = map[string]string{
	"claude":       "claude refuses --dangerously-skip-permissions when run as root (\"cannot be used with root/sudo privileges\") unless IS_SANDBOX=1 is set",
	"codex":        "codex echoes the prompt into its output, and without credentials it retries the connection indefinitely: set an iteration_timeout",
	"gemini":       "gemini ignores --yolo in a folder it does not trust (\"Approval mode overridden to default\"); trust the workspace first, and set GEMINI_API_KEY",
	"copilot":      "copilot needs COPILOT_GITHUB_TOKEN, GH_TOKEN or GITHUB_TOKEN, or 'gh auth login'",
	"opencode":     "opencode's stdin handling was not verified end to end; if it does not take the prompt, use ai_cmd with a wrapper",
	"amp":          "amp without an API key starts a browser login; set AMP_API_KEY first",
	"kiro-cli":     "kiro-cli's headless mode needs KIRO_API_KEY",
	"cursor-agent": "cursor-agent (also installed as 'agent') documents the prompt as an argument; reading stdin with -p is what other tools rely on",
}
