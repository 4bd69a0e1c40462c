package agentstream

// LoginFix says how to fix a CLI that cannot log in, by its format: what
// a user runs or sets before the next run.
func LoginFix(f Format) string {
	switch f {
	case Claude:
		return "Log claude in (claude, then /login) or set ANTHROPIC_API_KEY; as root, --dangerously-skip-permissions also needs IS_SANDBOX=1."
	case Codex:
		return "Log codex in (codex login) or set OPENAI_API_KEY, or the env_key of the model provider in ~/.codex/config.toml."
	case Gemini:
		return "Set GEMINI_API_KEY, or run gemini once to choose an auth method (security.auth.selectedType in ~/.gemini/settings.json)."
	case OpenCode:
		return "Log opencode in (opencode auth login) or set the provider's API key."
	case Copilot:
		return "Log copilot in (copilot, then /login) or set GH_TOKEN, or COPILOT_PROVIDER_API_KEY for your own provider."
	}
	return "Log the agent's CLI in, then run rooda again."
}
