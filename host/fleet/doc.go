// Package fleet queues runs of rooda and hands them to workers on NATS
// JetStream: a work-queue stream of queued runs, one durable consumer
// whose ack wait is a worker's lease on the run it took (renewed while the
// run goes on, so that a dead worker's run goes to another once the lease
// lapses), and a key-value bucket of each run's state, written by
// compare-and-set on its revision so that a worker that lost its lease
// cannot write over the one that took the run from it.
//
// The server is embedded (server.go) or a NATS cluster a URL names
// (connect.go). This package links nats-server and nats.go, whose
// initialisation rooda's every start would pay for: only the program
// rooda-fleet (cmd/rooda-fleet) imports it (docs/design.md, "The fleet").
package fleet
