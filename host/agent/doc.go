// Package agent runs one AI CLI process: the prompt on its stdin, its
// stdout and stderr captured together in a bounded buffer, in a process
// group of its own so that a timeout, an interrupt or its own exit stops
// every process it started. Nothing else in rooda starts a process.
package agent
