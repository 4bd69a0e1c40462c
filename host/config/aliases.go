package config

// aliasNotes tell, for the built-in aliases, what the CLI needs that rooda
// cannot provide. Checked against each CLI's --help; see the README.
var aliasNotes = map[string]string{
	"claude": "claude refuses --dangerously-skip-permissions when run as root unless IS_SANDBOX=1 is set",
}
