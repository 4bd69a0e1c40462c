// Package scripts embeds rooda's own Starlark: the @rooda standard library
// (termination.star) that scripts load as @rooda//termination.star, and
// the documented examples under examples/.
package scripts

import "embed"

// FS holds the standard library and the examples.
//
//go:embed *.star examples/*.star
var FS embed.FS
