// Package engine prepares and carries out one run of a procedure: it
// turns the resolved settings into a prompt, an agent command and a loop,
// checks all of them before the first iteration, prints the dry run, and
// runs the loop with host/process as its agent. YAML procedures and the
// built-in ones come through here; Starlark scripts reach the same loop
// and agent through the host.
package engine
