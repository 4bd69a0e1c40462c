package process

import (
	"errors"
	"strings"
)

// Split breaks a command line into words as a POSIX shell would, without
// running one: blanks separate words, 'single quotes' keep everything,
// "double quotes" keep all but \" \\ \$ \`, and a backslash outside quotes
// keeps the next character. Nothing is expanded.
func Split(line string) ([]string, error) {
	var words []string
	var word strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words, inWord = append(words, word.String()), false
				word.Reset()
			}
			continue
		case c == '\\':
			if i+1 == len(line) {
				return nil, errors.New("command ends with a lone backslash")
			}
			i++
			word.WriteByte(line[i])
		case c == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, errors.New("command has an unterminated ' quote")
			}
			word.WriteString(line[i+1 : i+1+end])
			i += end + 1
		case c == '"':
			n, err := doubleQuoted(line[i+1:], &word)
			if err != nil {
				return nil, err
			}
			i += n
		default:
			word.WriteByte(c)
		}
		inWord = true
	}
	if inWord {
		words = append(words, word.String())
	}
	if len(words) == 0 {
		return nil, errors.New("command is empty")
	}
	return words, nil
}

// doubleQuoted copies the inside of a "…" string that starts s into word
// and returns how many bytes of s it used, the closing quote included.
func doubleQuoted(s string, word *strings.Builder) (int, error) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			return i + 1, nil
		case c == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0:
			i++
			word.WriteByte(s[i])
		default:
			word.WriteByte(c)
		}
	}
	return 0, errors.New(`command has an unterminated " quote`)
}

// Join writes argv as a POSIX shell's command line that Split turns back
// into argv: a word is quoted when it needs to be.
func Join(argv []string) string {
	words := make([]string, len(argv))
	for i, a := range argv {
		words[i] = quote(a)
	}
	return strings.Join(words, " ")
}

// quote quotes a word for a POSIX shell when it needs it.
func quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@,+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
