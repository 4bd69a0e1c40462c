package host

import (
	"fmt"
	"strings"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// mutators are the methods that change a list, a dict or a set in place.
var mutators = map[string]bool{
	"append": true, "extend": true, "insert": true, "pop": true, "remove": true,
	"clear": true, "update": true, "setdefault": true, "popitem": true,
	"add": true, "discard": true,
}

// sharedChange is a statement of a function that changes, in place, a
// value the function does not make: a global of its module or a value of
// the function around it, which parallel() freezes before it starts.
type sharedChange struct {
	pos  syntax.Position
	name string // the value: results
	how  string // how the code changes it: results.append(…)
}

// sharedChanges finds where fn's own body (not the functions defined in
// it) changes a value it shares: x.append(…) and the other methods that
// change a value in place, x[k] = v, x[k] += v, where x is a global or a
// variable of an enclosing function.
func sharedChanges(fn *function) []sharedChange {
	var out []sharedChange
	shared := func(e syntax.Expr) (*syntax.Ident, bool) {
		id, ok := e.(*syntax.Ident)
		if !ok {
			return nil, false
		}
		b, ok := id.Binding.(*resolve.Binding)
		return id, ok && (b.Scope == resolve.Global || b.Scope == resolve.Free)
	}
	visit := func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.DefStmt, *syntax.LambdaExpr:
			return false
		case *syntax.CallExpr:
			if dot, ok := x.Fn.(*syntax.DotExpr); ok && mutators[dot.Name.Name] {
				if id, ok := shared(dot.X); ok {
					out = append(out, sharedChange{exprPos(x), id.Name, fmt.Sprintf("%s.%s(…)", id.Name, dot.Name.Name)})
				}
			}
		case *syntax.AssignStmt:
			if index, ok := x.LHS.(*syntax.IndexExpr); ok {
				if id, ok := shared(index.X); ok {
					out = append(out, sharedChange{exprPos(x.LHS), id.Name, fmt.Sprintf("%s[…] %s …", id.Name, x.Op)})
				}
			}
		}
		return true
	}
	for _, stmt := range fn.body {
		syntax.Walk(stmt, visit)
	}
	if fn.expr != nil {
		syntax.Walk(fn.expr, visit)
	}
	return out
}

// parallelCall checks the functions a parallel() call runs, as far as
// the source names them (parallel([task, (task, "b")]), a list built by
// a comprehension): one that changes a value it shares fails when it
// gets there, after its agents ran, so check tells it now.
func (c *checker) parallelCall(call *syntax.CallExpr) {
	fns := keywordArg(call, "fns")
	if fns == nil && len(call.Args) > 0 {
		if b, ok := call.Args[0].(*syntax.BinaryExpr); !ok || b.Op != syntax.EQ {
			fns = call.Args[0]
		}
	}
	var items []syntax.Expr
	switch x := fns.(type) {
	case *syntax.ListExpr:
		items = x.List
	case *syntax.Comprehension:
		items = []syntax.Expr{x.Body}
	}
	seen := map[syntax.Position]bool{}
	for _, item := range items {
		if p, ok := item.(*syntax.ParenExpr); ok {
			item = p.X
		}
		if t, ok := item.(*syntax.TupleExpr); ok && len(t.List) > 0 {
			item = t.List[0]
		}
		fn := c.functionOf(item)
		if fn == nil {
			continue
		}
		for _, ch := range sharedChanges(fn) {
			if seen[ch.pos] {
				continue
			}
			seen[ch.pos] = true
			c.add(ch.pos, "%s changes %s, which parallel() (line %d) shares with every function it runs and freezes before %s starts: it would fail there with \"frozen\", after the agents ran. Return what the function makes, and collect it from parallel()'s results",
				ch.how, ch.name, call.Lparen.Line, fn.name)
		}
	}
}

// SharedChanges is, for a function parallel() is to run, an error naming
// each value of its module or of an enclosing function that its own body
// changes in place: parallel() freezes them before it starts, and the
// change would fail there, after the function's agents ran. It is nil
// when the function changes none, or its source cannot be read.
func (r *Runtime) SharedChanges(fn starlark.Callable) error {
	f, ok := fn.(*starlark.Function)
	if !ok {
		return nil
	}
	pos := f.Position()
	loc, ok := r.files[pos.Filename()]
	if !ok {
		return nil
	}
	src, err := r.resolver.read(Context(r.thread), loc)
	if err != nil {
		return nil
	}
	file, _, err := starlark.SourceProgramOptions(FileOptions, loc.Display, src, r.predeclared(loc).Has)
	if err != nil {
		return nil
	}
	var found *function
	syntax.Walk(file, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.DefStmt:
			if samePlace(x.Def, pos) {
				found = &function{name: "def " + x.Name.Name, params: x.Params, body: x.Body}
			}
		case *syntax.LambdaExpr:
			if samePlace(x.Lambda, pos) {
				found = &function{name: "the lambda", params: x.Params, expr: x.Body}
			}
		}
		return found == nil
	})
	if found == nil {
		return nil
	}
	var where []string
	for _, ch := range sharedChanges(found) {
		where = append(where, fmt.Sprintf("%s (%s at %s)", ch.name, ch.how, ch.pos))
	}
	if len(where) == 0 {
		return nil
	}
	return fmt.Errorf("%s changes %s, which parallel() shares with every function it runs and freezes before they start: the change would fail there, after its agents ran. Return what the function makes, and collect it from parallel()'s results",
		found.name, strings.Join(where, " and "))
}

// samePlace compares positions by line and column: two parses of one file
// hold its name at two addresses.
func samePlace(a, b syntax.Position) bool { return a.Line == b.Line && a.Col == b.Col }
