package host

import (
	"fmt"
	"math"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"rooda/host/membudget"
)

// MaxNesting is how deep a value may nest for the builtins that walk it
// recursively (str, repr, print, json): go.starlark.net walks it on the
// Go stack, and a value a few million levels deep overflows that stack,
// a fatal error no script may cause; its cycle check also makes the walk
// quadratic in the depth, which hangs long before.
const MaxNesting = 1000

// Measure walks v without recursion and returns about how many bytes its
// JSON encoding takes, refusing a value nested deeper than MaxNesting.
// A container that holds itself is counted once, as str shows it.
func Measure(v starlark.Value) (int64, error) {
	type visit struct {
		v     starlark.Value
		depth int
		leave bool // the walk leaves v: it is no longer on the path
	}
	var size int64
	onPath := map[starlark.Value]bool{}
	stack := []visit{{v: v, depth: 1}}
	for len(stack) > 0 {
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if top.leave {
			delete(onPath, top.v)
			continue
		}
		children := elements(top.v)
		if children == nil {
			size += scalarSize(top.v)
			continue
		}
		if top.depth > MaxNesting {
			return size, fmt.Errorf("the value is nested more than %d levels deep, which rooda refuses to walk", MaxNesting)
		}
		if mutable(top.v) {
			if onPath[top.v] {
				size += 5 // [...]
				continue
			}
			onPath[top.v] = true
			stack = append(stack, visit{v: top.v, leave: true})
		}
		size += 2 + int64(len(children))
		for _, c := range children {
			stack = append(stack, visit{v: c, depth: top.depth + 1})
		}
	}
	return size, nil
}

// elements are what a container holds (a dict's keys and values, a
// struct's names and fields), or nil for a value that holds nothing. A
// range is no container: it holds no values until it is iterated.
func elements(v starlark.Value) []starlark.Value {
	switch x := v.(type) {
	case *starlark.List:
		return collect(x)
	case starlark.Tuple:
		return append([]starlark.Value{}, x...)
	case *starlark.Set:
		return collect(x)
	case *starlark.Dict:
		list := []starlark.Value{}
		for _, kv := range x.Items() {
			list = append(list, kv[0], kv[1])
		}
		return list
	case *starlarkstruct.Struct:
		list := []starlark.Value{}
		for _, name := range x.AttrNames() {
			if a, err := x.Attr(name); err == nil && a != nil {
				list = append(list, starlark.String(name), a)
			}
		}
		return list
	}
	return nil
}

func collect(x starlark.Iterable) []starlark.Value {
	list := []starlark.Value{}
	iter := x.Iterate()
	defer iter.Done()
	var e starlark.Value
	for iter.Next(&e) {
		list = append(list, e)
	}
	return list
}

// mutable values can hold themselves; they are compared by identity.
func mutable(v starlark.Value) bool {
	switch v.(type) {
	case *starlark.List, *starlark.Dict, *starlark.Set:
		return true
	}
	return false
}

func scalarSize(v starlark.Value) int64 {
	switch x := v.(type) {
	case starlark.String:
		return int64(len(x)) + 2
	case starlark.Bytes:
		return int64(len(x)) + 2
	case starlark.Float:
		return 24
	}
	return int64(len(v.String()))
}

// MemoryRoom is how many bytes the run may still take before its memory
// budget, or math.MaxInt64 without one.
func (r *Runtime) MemoryRoom() int64 {
	if r == nil || r.opts.MaxMemory <= 0 {
		return math.MaxInt64
	}
	return max(r.opts.MaxMemory-membudget.Used(), 0)
}

// CheckRoom refuses an allocation of about size bytes that the memory
// budget has no room for, before it is made, as the budget's error: what
// (the builtin and what it builds) says what was refused.
func (r *Runtime) CheckRoom(what string, size int64) error {
	room := r.MemoryRoom()
	if size <= room {
		return nil
	}
	limit := membudget.Human(r.opts.MaxMemory)
	return &BudgetError{Budget: "--max-memory", Limit: limit, Message: fmt.Sprintf("%s would take about %s, more than the %s left of the run's memory budget of %s (--max-memory)",
		what, membudget.Human(size), membudget.Human(room), limit)}
}

// JSONNesting refuses JSON text nested deeper than MaxNesting, before
// a recursive decoder walks it; brackets inside strings do not count.
func JSONNesting(text string) error {
	depth, inString, escaped := 0, false, false
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			if depth++; depth > MaxNesting {
				return fmt.Errorf("the JSON is nested more than %d levels deep, which rooda refuses to decode", MaxNesting)
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return nil
}
