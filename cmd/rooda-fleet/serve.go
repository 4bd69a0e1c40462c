package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"rooda/host/fleet"
)

func serveCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "run the fleet's server (NATS with JetStream, embedded) in the foreground",
		Description: `Runs the embedded NATS server, its streams in files under --store, listening
on --listen, until Ctrl+C or SIGTERM. Workers and commands on this machine
that are given no --server find it through the store; those of other
machines name it with --server nats://TOKEN@HOST:PORT. Only one server at a
time holds a store.

It takes only clients that give the store's token (DIR/token, made at the
first start, readable by you alone): a run's command line is a program the
workers run as their user (its --ai-cmd), so whoever may queue a run may run
a program as you. The commands of this machine read the token from the
store.

Examples:
  rooda fleet serve                               on 127.0.0.1:4222
  rooda fleet serve --listen 0.0.0.0:4222         for workers of other machines too
  rooda fleet serve --listen 127.0.0.1:0          on any free port (it says which)`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "listen", Value: "127.0.0.1:4222", Usage: "take connections on `HOST:PORT` (port 0: any free one)"},
			storeFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return fmt.Errorf("fleet serve takes no argument, got %q", c.Args().First())
			}
			s, err := fleet.StartServer(fleet.ServerConfig{Store: c.String("store"), Listen: c.String("listen")})
			if err != nil {
				return err
			}
			defer s.Shutdown()
			fmt.Fprintf(c.App.Writer, "Fleet server on %s, store %s\n", s.URL(), c.String("store"))
			<-c.Context.Done()
			return nil
		},
	}
}
