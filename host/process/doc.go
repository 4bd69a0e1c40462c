// Package process runs every process rooda starts — an agent, a check, a
// script's run(), git — one at a time: the input on its stdin, its stdout
// and stderr captured together in a bounded buffer, in a session and
// process group of its own so that a timeout, an interrupt or its own
// exit stops every process it started, and that no terminal can stop it.
// What leaves the group (setsid, a daemon) is found in the process's
// cgroup, or by the tag in its environment, and stopped as well; adopted
// orphans are reaped. Ctrl+Z stops them all with rooda (Suspend), their
// timeouts' clocks too. Nothing else in rooda starts a process.
package process
