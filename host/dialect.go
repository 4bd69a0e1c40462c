package host

import "go.starlark.net/syntax"

// FileOptions is the dialect of every rooda script, stated once: sets,
// if/for at top level (a procedure is a top-level program: r = iterate(…)),
// and reassignable globals. There is no while and no recursion, so every
// script ends, except inside iterate(), whose loop the host bounds.
var FileOptions = &syntax.FileOptions{
	Set:             true,
	TopLevelControl: true,
	GlobalReassign:  true,
}
