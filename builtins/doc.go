// Package builtins is rooda's Starlark API: fragment(), compose(),
// procedure(), agent(), iterate(), run(), getenv() and the values args,
// dry_run, json and struct. Each builtin converts Starlark values to the
// host's types and calls host/; none holds logic of its own. They are
// declared once, in the registry, from which the predeclared names (and
// later the reference docs and editor stubs) are made.
package builtins
