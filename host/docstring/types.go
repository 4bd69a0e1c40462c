package docstring

import (
	"fmt"
	"strings"
	"unicode"
)

// Type is a documented type, as the reference writes the types of the
// builtins' parameters and a library's docstring the types of its
// arguments:
//
//	type   = choice { "|" choice }
//	choice = ("list" | "tuple") "of" type
//	       | name [ "(" [ name { "," name } ] ")" ]
//
// A name is a word of letters, digits and _: str, int, float, bool,
// None, list, dict, any, a type of the API (iteration, loop_result) or
// one of the library's own. "list of" takes all that follows it: "list
// of int | str" is a list whose items are ints or strings. A name with
// parentheses is a function and the names of its parameters:
// "function(it)" is an on_iteration callback.
type Type struct {
	// Union are the choices of a type of more than one; nothing else is
	// set then.
	Union []Type
	// Name is a name, or "list" and "tuple" with Of.
	Name string
	// Of is what a "list of" or a "tuple of" holds.
	Of *Type
	// Params are a function's parameters; Call says it has them.
	Params []string
	Call   bool
}

// ParseType reads a type written in the grammar of Type.
func ParseType(text string) (Type, error) {
	p := typeParser{words: tokens(text)}
	t, err := p.union()
	if err != nil {
		return Type{}, fmt.Errorf("type %q: %w", text, err)
	}
	if word := p.peek(); word != "" {
		return Type{}, fmt.Errorf("type %q: %q after %s: write | between the choices of a type", text, word, t)
	}
	return t, nil
}

// String writes t back in the grammar, spaced as the reference spaces
// types.
func (t Type) String() string {
	switch {
	case len(t.Union) > 0:
		parts := make([]string, len(t.Union))
		for i, c := range t.Union {
			parts[i] = c.String()
		}
		return strings.Join(parts, " | ")
	case t.Of != nil:
		return t.Name + " of " + t.Of.String()
	case t.Call:
		return t.Name + "(" + strings.Join(t.Params, ", ") + ")"
	}
	return t.Name
}

// Choices are the types t may be: the choices of a union, else t.
func (t Type) Choices() []Type {
	if len(t.Union) > 0 {
		return t.Union
	}
	return []Type{t}
}

type typeParser struct {
	words []string
}

func (p *typeParser) peek() string {
	if len(p.words) == 0 {
		return ""
	}
	return p.words[0]
}

func (p *typeParser) next() string {
	word := p.peek()
	if word != "" {
		p.words = p.words[1:]
	}
	return word
}

func (p *typeParser) union() (Type, error) {
	var choices []Type
	for {
		c, err := p.choice()
		if err != nil {
			return Type{}, err
		}
		choices = append(choices, c)
		if p.peek() != "|" {
			break
		}
		p.next()
	}
	if len(choices) == 1 {
		return choices[0], nil
	}
	return Type{Union: choices}, nil
}

func (p *typeParser) choice() (Type, error) {
	word := p.next()
	if !isName(word) {
		return Type{}, wanted("a type", word)
	}
	if (word == "list" || word == "tuple") && p.peek() == "of" {
		p.next()
		of, err := p.union()
		if err != nil {
			return Type{}, err
		}
		return Type{Name: word, Of: &of}, nil
	}
	t := Type{Name: word}
	if p.peek() != "(" {
		return t, nil
	}
	p.next()
	t.Call = true
	for p.peek() != ")" {
		if len(t.Params) > 0 {
			if word := p.next(); word != "," {
				return Type{}, wanted(", or )", word)
			}
		}
		param := p.next()
		if !isName(param) {
			return Type{}, wanted("a parameter's name", param)
		}
		t.Params = append(t.Params, param)
	}
	p.next()
	return t, nil
}

// wanted is the error of a word where the grammar wants what.
func wanted(what, word string) error {
	if word == "" {
		return fmt.Errorf("%s is missing at the end", what)
	}
	return fmt.Errorf("%q where %s should be", word, what)
}

// tokens splits a type into its words and its punctuation, | ( ) and
// ",": anything else that is not a letter, a digit, _ or a space is a
// token of its own, which no rule takes.
func tokens(text string) []string {
	var out []string
	word := strings.Builder{}
	flush := func() {
		if word.Len() > 0 {
			out = append(out, word.String())
			word.Reset()
		}
	}
	for _, r := range text {
		switch {
		case r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			word.WriteRune(r)
		case unicode.IsSpace(r):
			flush()
		default:
			flush()
			out = append(out, string(r))
		}
	}
	flush()
	return out
}

func isName(word string) bool {
	if word == "" || unicode.IsDigit([]rune(word)[0]) {
		return false
	}
	for _, r := range word {
		if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}
