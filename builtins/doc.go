// Package builtins will hold rooda's Starlark API (fragment(), compose(),
// iterate(), …): Go builtins that convert Starlark values to host types and
// call host/. It is empty until the Starlark host exists.
package builtins
