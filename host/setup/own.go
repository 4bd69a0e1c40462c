package setup

import (
	"errors"
	"fmt"
	"regexp"
	"sync"
	"unicode/utf8"

	"rooda/host/agentstream"
	"rooda/host/process"
)

// Own is an agent of the user's own, checked: its command line starts a
// program that is there.
type Own struct {
	Agent
	// Path is the program its command line starts, as PATH finds it.
	Path string
}

// aliasName is what an alias of the user's may be called: a word, so
// that ai_cmd_alias names it alone (a comma makes a rotation).
var aliasName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`) })

// OwnAgent checks the command line of an agent of the user's own, to be
// written under alias ("" for none), and works out how rooda reads what
// it prints: a known CLI asked for its JSON stream, in that CLI's format.
func OwnAgent(line, alias string) (Own, error) {
	if alias != "" && !aliasName().MatchString(alias) {
		return Own{}, fmt.Errorf("--agent %q: the name of an alias of your own is one word of letters, digits, '.', '-' and '_'", alias)
	}
	if !utf8.ValidString(line) {
		// Written as YAML, an invalid byte would read back as another.
		return Own{}, errors.New("a command line that is not valid UTF-8")
	}
	argv, err := process.Split(line)
	if err != nil {
		return Own{}, err
	}
	if len(argv) == 0 {
		return Own{}, errors.New("an empty command line")
	}
	path, err := process.Find(argv[0])
	if err != nil {
		return Own{}, err
	}
	own := Own{Agent: Agent{Alias: alias, Command: line}, Path: path}
	if f := agentstream.FormatOfCommand(argv); f != agentstream.Text {
		own.Output = string(f)
	}
	return own, nil
}

// Said names the agent to the user: what it is, where its program is,
// and how its output is read.
func (o Own) Said() string {
	format := o.Output
	if format == "" {
		format = "text"
	}
	if o.Alias != "" {
		return fmt.Sprintf("your alias %s, %s (%s), read as %s", o.Alias, o.Command, o.Path, format)
	}
	return fmt.Sprintf("your command line, %s (%s), read as %s", o.Command, o.Path, format)
}
