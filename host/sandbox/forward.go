package sandbox

import (
	"net"
	"os"
	"strings"
	"syscall"

	"rooda/host/sandbox/confine"
)

// The agent's namespace has no process of rooda's in it: the trampoline
// makes the listeners there (127.0.0.1 for the proxy, and each loopback
// entry of sandbox_hosts) and hands them to the proxy before it execs
// the agent, over a socket pair whose one end only it inherits and
// closes (no pathname socket: any process could connect to one, Landlock
// or not, and another loop's agent would use this proxy or hand it its
// own listeners). A socket keeps the namespace it was made in, so the
// proxy, outside, accepts the agent's connections on them; and when the
// iteration ends it closes them, with nothing left to outlive the agent.

// proxyTarget names, among the listeners handed over, the one the proxy
// serves as itself.
const proxyTarget = confine.ProxyTarget

// socketPair is a connected pair of unix sockets, each close-on-exec: a
// child inherits one only where given it (ExtraFiles), and ForkLock
// keeps a fork from catching them before they are marked.
func socketPair() (*net.UnixConn, *os.File, error) {
	syscall.ForkLock.RLock()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fds[0])
		syscall.CloseOnExec(fds[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, nil, os.NewSyscallError("socketpair", err)
	}
	mine := os.NewFile(uintptr(fds[0]), "proxy handoff")
	defer mine.Close()
	c, err := net.FileConn(mine)
	if err != nil {
		syscall.Close(fds[1])
		return nil, nil, err
	}
	return c.(*net.UnixConn), os.NewFile(uintptr(fds[1]), "trampoline handoff"), nil
}

// takeListeners reads the trampoline's one message on c and serves the
// listeners it carries, closing those it has no target for; c is then
// closed.
func (p *Proxy) takeListeners(c *net.UnixConn) {
	defer c.Close()
	buf, oob := make([]byte, 64<<10), make([]byte, syscall.CmsgSpace(4*256))
	n, oobn, _, _, err := c.ReadMsgUnix(buf, oob)
	if err != nil {
		return
	}
	fds := receivedFDs(oob[:oobn])
	targets := strings.Split(string(buf[:n]), "\n")
	for i, fd := range fds {
		f := os.NewFile(uintptr(fd), "listener")
		ln, err := net.FileListener(f)
		f.Close()
		if err != nil {
			continue
		}
		if i >= len(targets) {
			ln.Close()
			continue
		}
		p.serveListener(ln, targets[i])
	}
}

// receivedFDs are the descriptors a control message carries.
func receivedFDs(oob []byte) []int {
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var fds []int
	for _, m := range msgs {
		if rights, err := syscall.ParseUnixRights(&m); err == nil {
			fds = append(fds, rights...)
		}
	}
	return fds
}

// serveListener serves ln as the proxy, or as a tunnel to target.
func (p *Proxy) serveListener(ln net.Listener, target string) {
	if !p.track(ln) {
		return
	}
	if target == proxyTarget {
		go p.srv.Serve(ln)
		return
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.loopback(c, target)
		}
	}()
}

// loopback tunnels c, accepted on a loopback entry's address inside the
// namespace, to that address outside, as a CONNECT to it would.
func (p *Proxy) loopback(c net.Conn, target string) {
	host, port := splitHostPort(target, 0)
	if !p.allows(host, port) {
		p.refuse(host, port)
		c.Close()
		return
	}
	up, err := net.DialTimeout("tcp", target, dialTimeout)
	if err != nil {
		c.Close()
		return
	}
	if p.track(c, up) {
		defer p.untrack(c, up)
		pipe(c, c, up)
	}
}
