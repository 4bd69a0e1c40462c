//go:build linux

package confine

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// The agent's network namespace (made by rooda's clone: host/sandbox's
// IsolateNet) holds only a loopback interface; its one way out is the
// iteration's proxy, on listeners the trampoline makes inside and hands
// to rooda, outside (host/sandbox's forward.go).

// probeNetMain is the probe of the network namespace: it brings the
// loopback up and listens on it, as an agent's would, and says why the
// namespace cannot serve.
func probeNetMain() {
	if err := loopbackUp(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	f, _, err := listen("127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	f.Close()
	os.Exit(0)
}

// loopbackUp brings up lo, the one interface of a new namespace, which
// starts down.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("the loopback: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("the loopback's flags: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bringing the loopback up: %w", err)
	}
	return nil
}

// enterNet, in the trampoline, makes the namespace the agent's way to
// the proxy: lo up, a listener on 127.0.0.1 for the proxy and one on
// each loopback entry, all handed to rooda over the descriptor
// spec.Net.Handoff, which it then closes (a socket keeps the namespace
// it was made in: rooda, outside, accepts the agent's connections on
// them, so no process of rooda's stays inside to outlive the agent), and
// the proxy's variables set for the agent. Under sandbox_net the
// listeners' ports are added to those the agent may connect to.
func enterNet(spec *Spec) error {
	n := spec.Net
	// Whatever happens, the agent must not inherit the way to the proxy.
	defer unix.Close(n.Handoff)
	unix.CloseOnExec(n.Handoff)
	if ns, err := NetNamespace(); err != nil || ns == spec.OutsideNet {
		return errors.New("not in a network namespace of its own: refusing to run the agent with sandbox_hosts")
	}
	if err := loopbackUp(); err != nil {
		return err
	}
	targets := append([]string{ProxyTarget}, n.Loopback...)
	files, proxyPort, err := listenInside(spec, targets)
	for _, f := range files {
		defer f.Close()
	}
	if err != nil {
		return err
	}
	// The capabilities served the loopback and the listeners: the agent
	// does not keep them.
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return err
	}
	if err := HandOver(n.Handoff, targets, files); err != nil {
		return fmt.Errorf("handing the listeners to rooda: %w", err)
	}
	for _, kv := range ProxyEnv("127.0.0.1:" + strconv.Itoa(proxyPort)) {
		name, value, _ := strings.Cut(kv, "=")
		os.Setenv(name, value)
	}
	return nil
}

// listenInside listens on each of targets (ProxyTarget on a port of the
// kernel's choice on 127.0.0.1); the listeners, as files the caller
// closes, and the proxy's port.
func listenInside(spec *Spec, targets []string) (files []*os.File, proxyPort int, err error) {
	for _, target := range targets {
		addr := "127.0.0.1:0"
		if target != ProxyTarget {
			addr = loopbackAddr(target)
		}
		f, port, err := listen(addr)
		if err != nil {
			return files, 0, fmt.Errorf("listening on %s: %w", target, err)
		}
		files = append(files, f)
		if target == ProxyTarget {
			proxyPort = port
		}
		if len(spec.Ports) > 0 {
			spec.Ports = append(spec.Ports, port)
		}
	}
	return files, proxyPort, nil
}

// listen makes a TCP listener on addr (ip:port, [ip]:port), as the
// package net's Listen would (SO_REUSEADDR, the system's backlog), with
// the system calls alone: net links cgo, which this program must not
// (landlock_linux.go). It returns the listener as a file and its port.
func listen(addr string) (*os.File, int, error) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return nil, 0, err
	}
	ip := ap.Addr().Unmap()
	var sa unix.Sockaddr
	family := unix.AF_INET
	if ip.Is4() {
		sa = &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ip.As4()}
	} else {
		sa, family = &unix.SockaddrInet6{Port: int(ap.Port()), Addr: ip.As16()}, unix.AF_INET6
	}
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, 0, err
	}
	f := os.NewFile(uintptr(fd), "listener "+addr)
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
		f.Close()
		return nil, 0, err
	}
	if err := unix.Bind(fd, sa); err != nil {
		f.Close()
		return nil, 0, err
	}
	if err := unix.Listen(fd, unix.SOMAXCONN); err != nil {
		f.Close()
		return nil, 0, err
	}
	bound, err := unix.Getsockname(fd)
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	switch b := bound.(type) {
	case *unix.SockaddrInet4:
		return f, b.Port, nil
	case *unix.SockaddrInet6:
		return f, b.Port, nil
	}
	f.Close()
	return nil, 0, errors.New("listening on " + addr + ": no port")
}

// HandOver sends files, the listeners of targets, over the descriptor
// handoff in one message: the targets, then the rights.
func HandOver(handoff int, targets []string, files []*os.File) error {
	var fds []int
	for _, f := range files {
		fds = append(fds, int(f.Fd()))
	}
	return unix.Sendmsg(handoff, []byte(strings.Join(targets, "\n")), unix.UnixRights(fds...), nil, 0)
}

// loopbackAddr is where a loopback entry is listened on inside:
// localhost is 127.0.0.1, as most clients resolve it first.
func loopbackAddr(hostport string) string {
	if port, ok := strings.CutPrefix(hostport, "localhost:"); ok {
		return "127.0.0.1:" + port
	}
	return hostport
}

// NetNamespace names the network namespace this process is in.
func NetNamespace() (uint64, error) {
	var st unix.Stat_t
	if err := unix.Stat("/proc/self/ns/net", &st); err != nil {
		return 0, err
	}
	return st.Ino, nil
}
