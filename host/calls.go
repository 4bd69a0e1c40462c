package host

import (
	"fmt"
	"strings"

	"go.starlark.net/resolve"
	"go.starlark.net/syntax"

	"rooda/host/docstring"
	"rooda/host/suggest"
)

// Param is one parameter of a predeclared function, as Check needs it.
type Param struct {
	Name string
	// Type is the documented type, in host/docstring's grammar: "int",
	// "int | float | str", "list of int | float | str" (a list),
	// "function(it)" for a callback called with one argument.
	Type string
	// Optional is set when the parameter has a default.
	Optional bool
	// Literal, when set, checks a string literal given for the parameter
	// (or an item of a list literal, or the agent of a role's pair) by
	// the run's own rule: an agent's alias, a procedure's name, a
	// duration. Its error is what the run would say.
	Literal func(s string) error
	// Returns, when set, checks a string literal that a function given
	// for the parameter returns: on_iteration's verdicts.
	Returns func(s string) error
}

// calls checks the calls of predeclared functions that Options.Signatures
// describes, as far as the source alone tells: keyword arguments the
// function does not have, literals of a type it does not take, and
// functions given as callbacks that cannot be called as the callback is.
// What only running can tell (a variable's value) is left to the run.
func (c *checker) calls(f *syntax.File) {
	c.defs = map[*syntax.Ident]*syntax.DefStmt{}
	syntax.Walk(f, func(n syntax.Node) bool {
		if def, ok := n.(*syntax.DefStmt); ok {
			c.defs[def.Name] = def
		}
		return true
	})
	syntax.Walk(f, func(n syntax.Node) bool {
		if call, ok := n.(*syntax.CallExpr); ok {
			if name := predeclaredCallee(call); name != "" {
				if params, ok := c.r.opts.Signatures[name]; ok {
					c.call(name, params, call)
				}
				if name == "parallel" {
					c.parallelCall(call)
				}
			}
		}
		return true
	})
}

// predeclaredCallee is "iterate" for iterate(…) and "assert.eq" for
// assert.eq(…) when iterate and assert are the predeclared names, not a
// script's own; else "".
func predeclaredCallee(call *syntax.CallExpr) string {
	switch fn := call.Fn.(type) {
	case *syntax.Ident:
		if isPredeclared(fn) {
			return fn.Name
		}
	case *syntax.DotExpr:
		if x, ok := fn.X.(*syntax.Ident); ok && isPredeclared(x) {
			return x.Name + "." + fn.Name.Name
		}
	}
	return ""
}

func isPredeclared(id *syntax.Ident) bool { return hasScope(id, resolve.Predeclared) }

func isUniversal(id *syntax.Ident) bool { return hasScope(id, resolve.Universal) }

// hasScope says whether the resolver bound id in scope.
func hasScope(id *syntax.Ident, scope resolve.Scope) bool {
	b, ok := id.Binding.(*resolve.Binding)
	return ok && b.Scope == scope
}

// call checks one call's arguments against the function's parameters.
func (c *checker) call(name string, params []Param, call *syntax.CallExpr) {
	byName := map[string]Param{}
	var names []string
	// rest takes any other keyword (flags(**defaults)); it is no
	// positional parameter.
	var rest *Param
	for _, p := range params {
		if strings.HasPrefix(p.Name, "**") {
			rest = &p
			continue
		}
		byName[p.Name], names = p, append(names, p.Name)
	}
	params = params[:len(names)]
	for i, arg := range call.Args {
		switch a := arg.(type) {
		case *syntax.UnaryExpr:
			// *args or **kwargs: what they hold is the run's to check.
			return
		case *syntax.BinaryExpr:
			if kw, ok := a.X.(*syntax.Ident); ok && a.Op == syntax.EQ {
				p, known := byName[kw.Name]
				if !known && rest != nil {
					p, known = *rest, true
					p.Name = kw.Name
				}
				if !known {
					c.unknownKeyword(name, kw, names)
					continue
				}
				c.argument(name, p, a.Y)
				continue
			}
		}
		if i >= len(params) {
			c.add(exprPos(arg), "%s: got %d positional arguments, want at most %d", name, positional(call), len(params))
			return
		}
		c.argument(name, params[i], arg)
	}
}

func (c *checker) unknownKeyword(name string, kw *syntax.Ident, names []string) {
	msg := fmt.Sprintf("%s: unexpected keyword argument %q", name, kw.Name)
	if near := suggest.Closest(kw.Name, names); near != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", near)
	} else {
		msg += fmt.Sprintf(" (%s takes %s)", name, strings.Join(names, ", "))
	}
	c.add(kw.NamePos, "%s", msg)
}

// positional counts a call's positional arguments.
func positional(call *syntax.CallExpr) int {
	n := 0
	for _, arg := range call.Args {
		if b, ok := arg.(*syntax.BinaryExpr); !ok || b.Op != syntax.EQ {
			n++
		}
	}
	return n
}

func exprPos(e syntax.Expr) syntax.Position {
	start, _ := e.Span()
	return start
}

// argument checks one argument: a literal's type, a callback's arity.
func (c *checker) argument(name string, p Param, arg syntax.Expr) {
	// A type the grammar does not read tells nothing; the reference's
	// types are all in it (TestTypesAreInTheGrammar).
	t, err := docstring.ParseType(p.Type)
	if got, shown := literalType(arg); err == nil && got != "" && !accepts(p, t, got) {
		c.add(exprPos(arg), "%s: %s must be %s, got %s%s", name, p.Name, typeText(t), got, shown)
		return
	}
	if p.Literal != nil {
		for _, lit := range literalStrings(arg) {
			if err := p.Literal(lit.Value.(string)); err != nil {
				c.add(lit.TokenPos, "%s: %v", name, err)
			}
		}
	}
	if calls := callbackArgs(t); len(calls) > 0 {
		if fn := c.functionOf(arg); fn != nil {
			c.callback(name, p.Name, arg, fn, calls)
		}
	}
	if p.Returns != nil {
		for _, fn := range c.functionsIn(arg) {
			for _, lit := range fn.returnedStrings() {
				if err := p.Returns(lit.Value.(string)); err != nil {
					c.add(lit.TokenPos, "%s: %s (%s) %v", name, p.Name, fn.name, err)
				}
			}
		}
	}
}

// literalStrings are the string literals an argument gives: itself, the
// items of a list literal, and the first of a pair, alone or in the list
// (a role's agent).
func literalStrings(e syntax.Expr) []*syntax.Literal {
	var items []syntax.Expr
	switch x := e.(type) {
	case *syntax.ListExpr:
		items = x.List
	case *syntax.ParenExpr:
		return literalStrings(x.X)
	default:
		items = []syntax.Expr{e}
	}
	var out []*syntax.Literal
	for _, item := range items {
		if p, ok := item.(*syntax.ParenExpr); ok {
			item = p.X
		}
		if pair, ok := item.(*syntax.TupleExpr); ok && len(pair.List) > 0 {
			item = pair.List[0]
		}
		if lit, ok := item.(*syntax.Literal); ok && lit.Token == syntax.STRING {
			out = append(out, lit)
		}
	}
	return out
}

// functionsIn are the functions the source shows an argument to be: a
// lambda or a def, or those given to a call that combines them
// (combine(min_iterations(3), judge)).
func (c *checker) functionsIn(e syntax.Expr) []*function {
	if fn := c.functionOf(e); fn != nil {
		return []*function{fn}
	}
	var out []*function
	if call, ok := e.(*syntax.CallExpr); ok {
		for _, arg := range call.Args {
			if fn := c.functionOf(arg); fn != nil {
				out = append(out, fn)
			}
		}
	}
	return out
}

// callback reports a function that fits none of the ways its parameter
// calls it: context is called as f(number) or f(number, previous).
func (c *checker) callback(name, param string, arg syntax.Expr, fn *function, calls [][]string) {
	var why string
	var shapes []string
	for _, args := range calls {
		w := fn.cannotTake(len(args))
		if w == "" {
			return
		}
		if why == "" {
			why = w
		}
		shapes = append(shapes, "f("+strings.Join(args, ", ")+")")
	}
	c.add(exprPos(arg), "%s: %s is called as %s, but %s", name, param, strings.Join(shapes, " or "), why)
}

// literalType is the type of a literal argument, as Starlark names it
// ("string", "int", "list", "function" for a lambda), and how to show its
// value (` "3"`); "" when the source does not tell. A tuple is not told:
// where the documented type says "list", some builtins take any sequence.
func literalType(e syntax.Expr) (string, string) {
	switch x := e.(type) {
	case *syntax.Literal:
		shown := x.Raw
		if len(shown) > 40 {
			shown = shown[:37] + "..."
		}
		switch x.Token {
		case syntax.STRING:
			return "string", " " + shown
		case syntax.INT:
			return "int", " " + shown
		case syntax.FLOAT:
			return "float", " " + shown
		}
	case *syntax.Ident:
		if isPredeclared(x) || isUniversal(x) {
			switch x.Name {
			case "True", "False":
				return "bool", " " + x.Name
			case "None":
				return "NoneType", ""
			}
		}
	case *syntax.ListExpr, *syntax.Comprehension:
		if comp, ok := x.(*syntax.Comprehension); ok && comp.Curly {
			return "dict", ""
		}
		return "list", ""
	case *syntax.DictExpr:
		return "dict", ""
	case *syntax.LambdaExpr:
		return "function", ""
	}
	return "", ""
}

// accepts says whether a value of type got may be given for a parameter
// of type t, read by the docstring grammar: "list of int | float | str"
// is a list, whatever its items. A type that names no literal
// ("procedure", "agent") takes none but None.
func accepts(p Param, t docstring.Type, got string) bool {
	if got == "NoneType" {
		// A default is what None means; a required parameter has none,
		// unless it takes any value, None included (assert.eq(x, None)).
		return p.Optional || hasChoice(t, "any") || hasChoice(t, "None")
	}
	for _, c := range t.Choices() {
		switch {
		case c.Name == "any",
			c.Name == "str" && got == "string",
			c.Name == "float" && got == "int",
			c.Name == got:
			return true
		}
	}
	return false
}

// hasChoice says whether t may be the plain type name ("any", "None").
func hasChoice(t docstring.Type, name string) bool {
	for _, c := range t.Choices() {
		if c.Name == name && c.Of == nil && !c.Call {
			return true
		}
	}
	return false
}

// typeText is a documented type as a message says it: "an int", "an
// int, a float or a str", "a list of int, float or str".
func typeText(t docstring.Type) string {
	var words []string
	for _, c := range t.Choices() {
		text := c.String()
		if c.Of != nil {
			text = c.Name + " of " + suggest.OneOf(typeNames(*c.Of))
		}
		article := "a "
		if strings.ContainsRune("aeiou", rune(text[0])) {
			article = "an "
		}
		words = append(words, article+text)
	}
	return suggest.OneOf(words)
}

// typeNames are the choices of t as the grammar writes them.
func typeNames(t docstring.Type) []string {
	var names []string
	for _, c := range t.Choices() {
		names = append(names, c.String())
	}
	return names
}

// callbackArgs are the ways a parameter of type t may call its
// callback, each the arguments it is given: [["it"]] for
// "function(it)"; none when the type names no callback.
func callbackArgs(t docstring.Type) [][]string {
	var calls [][]string
	for _, c := range t.Choices() {
		if c.Name == "function" && c.Call {
			calls = append(calls, c.Params)
		}
	}
	return calls
}

// function is a function the source defines: a lambda or a def.
type function struct {
	name   string // "the lambda", "def two(a, b)"
	params []syntax.Expr
	// body is the def's statements, or the lambda's expression.
	body []syntax.Stmt
	expr syntax.Expr
}

// returnedStrings are the string literals the function returns: those of
// its return statements (not of functions defined inside it), or its
// lambda's body, either branch of a conditional expression included.
func (f *function) returnedStrings() []*syntax.Literal {
	var out []*syntax.Literal
	var results func(e syntax.Expr)
	results = func(e syntax.Expr) {
		switch x := e.(type) {
		case *syntax.Literal:
			if x.Token == syntax.STRING {
				out = append(out, x)
			}
		case *syntax.CondExpr:
			results(x.True)
			results(x.False)
		case *syntax.ParenExpr:
			results(x.X)
		}
	}
	if f.expr != nil {
		results(f.expr)
	}
	for _, stmt := range f.body {
		syntax.Walk(stmt, func(n syntax.Node) bool {
			switch x := n.(type) {
			case *syntax.DefStmt, *syntax.LambdaExpr:
				return false
			case *syntax.ReturnStmt:
				if x.Result != nil {
					results(x.Result)
				}
			}
			return true
		})
	}
	return out
}

// functionOf is the function an argument is, when the source says: a
// lambda, or the name of a def of the module.
func (c *checker) functionOf(e syntax.Expr) *function {
	switch x := e.(type) {
	case *syntax.LambdaExpr:
		return &function{name: "the lambda", params: x.Params, expr: x.Body}
	case *syntax.Ident:
		b, ok := x.Binding.(*resolve.Binding)
		if !ok || b.First == nil {
			return nil
		}
		if def, ok := c.defs[b.First]; ok {
			return &function{name: "def " + def.Name.Name, params: def.Params, body: def.Body}
		}
	}
	return nil
}

// cannotTake says why the function cannot be called with n positional
// arguments, or "" when it can.
func (f *function) cannotTake(n int) string {
	required, most, variadic := 0, 0, false
	var keywordOnly []string
	star := false
	for _, p := range f.params {
		switch x := p.(type) {
		case *syntax.Ident:
			if star {
				keywordOnly = append(keywordOnly, x.Name)
				continue
			}
			required++
			most++
		case *syntax.BinaryExpr:
			if !star {
				most++
			}
		case *syntax.UnaryExpr:
			if x.Op == syntax.STAR {
				star = true
				variadic = variadic || x.X != nil
			}
		}
	}
	switch {
	case len(keywordOnly) > 0:
		return fmt.Sprintf("%s also needs %s by name", f.name, strings.Join(keywordOnly, ", "))
	case required > n:
		return fmt.Sprintf("%s needs %s", f.name, arguments(required))
	case most < n && !variadic:
		if most == 0 {
			return fmt.Sprintf("%s takes no arguments", f.name)
		}
		return fmt.Sprintf("%s takes at most %s", f.name, arguments(most))
	}
	return ""
}

func arguments(n int) string {
	if n == 1 {
		return "1 argument"
	}
	return fmt.Sprintf("%d arguments", n)
}
