package sandbox

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
)

// forwardArg is the trampoline's hidden argument that makes it the
// forwarder inside the agent's network namespace: "rooda __sandbox
// --forward SOCKET TARGET…", one listener per target from fd 3 on. A
// target of "-" is the proxy's own port: each connection is carried to
// the proxy as it is. Any other is a loopback host:port that the agent
// may reach: each connection becomes a CONNECT to it through the proxy.
const forwardArg = "--forward"

// forwardMain is the forwarder: it serves each listener until it is
// killed, with the agent (its parent death signal) or its group.
func forwardMain(args []string) {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: rooda "+Arg+" "+forwardArg+" SOCKET TARGET…")
		os.Exit(2)
	}
	socket, targets := args[0], args[1:]
	for i, target := range targets {
		ln, err := net.FileListener(os.NewFile(uintptr(3+i), target))
		if err != nil {
			fmt.Fprintf(os.Stderr, "rooda sandbox forwarder: %s: %v\n", target, err)
			os.Exit(1)
		}
		go serveForward(ln, socket, target)
	}
	select {}
}

// serveForward carries each connection ln accepts to the proxy.
func serveForward(ln net.Listener, socket, target string) {
	for {
		c, err := ln.Accept()
		if err != nil {
			os.Exit(1)
		}
		go forwardConn(c, socket, target)
	}
}

// forwardConn carries c to the proxy at socket: as it is for "-", else
// through a CONNECT to target, whose refusal closes c.
func forwardConn(c net.Conn, socket, target string) {
	defer c.Close()
	up, err := net.Dial("unix", socket)
	if err != nil {
		return
	}
	defer up.Close()
	r := bufio.NewReader(up)
	if target != "-" {
		fmt.Fprintf(up, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
		res, err := http.ReadResponse(r, nil)
		if err != nil || res.StatusCode != http.StatusOK {
			return
		}
	}
	pipe(up, r, c)
}

// netMain runs the trampoline's network modes, the forwarder and the
// probe, when args ask for one; else it returns.
func netMain(args []string) {
	switch {
	case len(args) > 0 && args[0] == forwardArg:
		forwardMain(args[1:])
	case len(args) == 1 && args[0] == probeNetArg:
		probeNetMain()
	}
}
