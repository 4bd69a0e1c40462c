package host

import (
	"fmt"
	"math"
	"strconv"

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
// A container that holds itself is counted once, as str shows it. Only
// containers wait on the walk's stack; what they hold otherwise is
// counted as it is met, so a list of millions of numbers costs little.
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
		switch {
		case top.leave:
			delete(onPath, top.v)
			continue
		case !container(top.v):
			size += scalarSize(top.v)
			continue
		case top.depth > MaxNesting:
			return size, fmt.Errorf("the value is nested more than %d levels deep, which rooda refuses to walk", MaxNesting)
		case mutable(top.v) && onPath[top.v]:
			size += 5 // [...]
			continue
		case mutable(top.v):
			onPath[top.v] = true
			stack = append(stack, visit{v: top.v, leave: true})
		}
		size += 2
		eachElement(top.v, func(e starlark.Value) {
			size++ // its comma
			if container(e) {
				stack = append(stack, visit{v: e, depth: top.depth + 1})
			} else {
				size += scalarSize(e)
			}
		})
	}
	return size, nil
}

// container reports whether v holds other values: a list, tuple, set,
// dict or struct. A range holds none until it is iterated.
func container(v starlark.Value) bool {
	switch v.(type) {
	case *starlark.List, starlark.Tuple, *starlark.Set, *starlark.Dict, *starlarkstruct.Struct:
		return true
	}
	return false
}

// eachElement calls f with what a container holds: a dict's keys and
// values, a struct's names and fields.
func eachElement(v starlark.Value, f func(starlark.Value)) {
	switch x := v.(type) {
	case *starlark.Dict:
		for _, kv := range x.Items() {
			f(kv[0])
			f(kv[1])
		}
	case *starlarkstruct.Struct:
		for _, name := range x.AttrNames() {
			if a, err := x.Attr(name); err == nil && a != nil {
				f(starlark.String(name))
				f(a)
			}
		}
	case starlark.Iterable:
		iter := x.Iterate()
		defer iter.Done()
		var e starlark.Value
		for iter.Next(&e) {
			f(e)
		}
	}
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
	case starlark.Int:
		if n, ok := x.Int64(); ok {
			return int64(len(strconv.FormatInt(n, 10)))
		}
		return int64(x.BigInt().BitLen()/3 + 1) // about its decimal digits
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
func JSONNesting(name, text string) error {
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
				return fmt.Errorf("%s: the JSON is nested more than %d levels deep, which rooda refuses to decode", name, MaxNesting)
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return nil
}

// CheckWalk refuses, for the builtin name, an argument nested deeper than
// MaxNesting, which it would walk on the Go stack; with encoded, also one
// whose text the memory budget has no room for.
func (r *Runtime) CheckWalk(name string, args starlark.Tuple, encoded bool) error {
	for _, arg := range args {
		size, err := Measure(arg)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if encoded {
			if err := r.CheckRoom(name+"(): the text", size); err != nil {
				return err
			}
		}
	}
	return nil
}

// elementSize is what one element of a list or tuple takes: an interface
// value, two words.
const elementSize = 16

// CheckLength refuses, for the builtin name, a slot and perElement bytes
// for each element of the shortest of args (zip's length) that the
// memory budget has no room for: list(range(10**9)) asks for 16 GB at
// once, before it fills a slot. A length not known is no refusal.
func (r *Runtime) CheckLength(name string, args starlark.Tuple, perElement int64) error {
	n := -1
	for _, arg := range args {
		if l := starlark.Len(arg); n < 0 || l < n {
			n = l
		}
	}
	if n <= 0 {
		return nil
	}
	return r.CheckRoom(fmt.Sprintf("%s(): %d elements", name, n), int64(n)*(elementSize+perElement))
}
