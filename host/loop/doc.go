// Package loop runs a procedure's iterations (seed 002): it composes each
// prompt, hands it to the agent, reads the promise signals in what the
// agent printed, applies the outcome matrix, and stops on SUCCESS, on the
// failure threshold, at the iteration limit or when its context is
// cancelled. It reports progress through a logging.Logger and publishes
// each iteration to its Observers; it knows nothing of what they do.
//
// The loop starts no process itself: Config.Agent does, and the host
// passes host/process's Run there (or a recorder, in a dry run).
package loop
