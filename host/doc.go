// Package host is rooda's Starlark runtime: the one dialect scripts are
// written in, one thread per run that every load() and callback shares
// (one step budget, one cancellation), the module loader with its cache
// and cycle detection, the run-wide budgets, and the formatter that turns
// every kind of Starlark error into file:line:col and a backtrace.
//
// What a script asks of the loop goes through Iterate, which runs the
// same engine as a YAML procedure: the preamble, the signal scanning, the
// output limits, the timeouts and the process handling stay the host's.
package host
