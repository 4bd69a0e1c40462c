// Package scripts will embed rooda's own .star files: the built-in
// procedures and the @rooda standard library. It is empty until the
// Starlark host exists.
package scripts
