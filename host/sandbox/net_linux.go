//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// A network namespace of the agent's own holds only a loopback
// interface: no route leads out of it, whatever the port, and the
// host's abstract unix sockets are not in it either. Its one way out is
// the iteration's proxy, on listeners made inside and served from
// outside (forward.go). The namespace is made with the same clone as the
// record hiding's mount namespace (and, for a user other than root, in
// its user namespace, which lends CAP_NET_ADMIN for the loopback and
// CAP_NET_BIND_SERVICE for loopback entries on ports below 1024, to the
// trampoline alone).

// netting is whether an agent can have a network namespace here, found
// once by a probe.
var netting struct {
	once sync.Once
	why  error
}

// CanIsolateNet is nil when this system can give the agent a network
// namespace of its own, else why it cannot. It asks once.
func CanIsolateNet() error {
	netting.once.Do(func() {
		if netting.why = CanHide(); netting.why != nil {
			return
		}
		netting.why = tryNet(netAttr(hiding.attr))
	})
	return netting.why
}

// IsolateNet has the agent started in a network namespace of its own,
// with what attr (the hiding's, or nil) already asks; n is the proxy it
// is given. It fails where there is no namespace to be had.
func (s *Spec) IsolateNet(attr func(*syscall.SysProcAttr), n *Net) (func(*syscall.SysProcAttr), error) {
	if err := CanIsolateNet(); err != nil {
		return attr, err
	}
	if attr == nil {
		// Nothing hidden: the namespaces are made the same way all the
		// same, and the trampoline then hides nothing.
		attr = hiding.attr
	}
	s.Net, s.OutsideNet = n, OutsideNetNamespace()
	return netAttr(attr), nil
}

// netAttr is attr with a network namespace, and for a user namespace
// the capabilities that bring its loopback up and listen there on a
// port below 1024 (127.0.0.1:80 in sandbox_hosts): root has them.
func netAttr(attr func(*syscall.SysProcAttr)) func(*syscall.SysProcAttr) {
	return func(a *syscall.SysProcAttr) {
		attr(a)
		a.Cloneflags |= syscall.CLONE_NEWNET
		if a.Cloneflags&syscall.CLONE_NEWUSER != 0 {
			a.AmbientCaps = append(a.AmbientCaps, unix.CAP_NET_ADMIN, unix.CAP_NET_BIND_SERVICE)
		}
	}
}

// tryNet starts the trampoline's probe of the network namespace.
func tryNet(attr func(*syscall.SysProcAttr)) error {
	cmd := exec.Command(trampoline, Arg, probeNetArg)
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	attr(cmd.SysProcAttr)
	out, err := cmd.CombinedOutput()
	if err != nil {
		if len(out) > 0 {
			return fmt.Errorf("a network namespace: %s", out)
		}
		return fmt.Errorf("a network namespace: %w", err)
	}
	return nil
}

// probeNetArg is the trampoline's hidden argument that brings its
// namespace's loopback up and listens on it, as an agent's would.
const probeNetArg = "--probe-net"

// probeNetMain is the probe: it says why the namespace cannot serve.
func probeNetMain() {
	if err := loopbackUp(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ln.Close()
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
	if ns, err := netNamespace(); err != nil || ns == spec.OutsideNet {
		return errors.New("not in a network namespace of its own: refusing to run the agent with sandbox_hosts")
	}
	if err := loopbackUp(); err != nil {
		return err
	}
	targets := append([]string{proxyTarget}, n.Loopback...)
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
	if err := handOver(n.Handoff, targets, files); err != nil {
		return fmt.Errorf("handing the listeners to rooda: %w", err)
	}
	for _, kv := range ProxyEnv(net.JoinHostPort("127.0.0.1", strconv.Itoa(proxyPort))) {
		name, value, _ := strings.Cut(kv, "=")
		os.Setenv(name, value)
	}
	return nil
}

// listenInside listens on each of targets (proxyTarget on a port of the
// kernel's choice on 127.0.0.1); the listeners, as files the caller
// closes, and the proxy's port.
func listenInside(spec *Spec, targets []string) (files []*os.File, proxyPort int, err error) {
	for _, target := range targets {
		addr := "127.0.0.1:0"
		if target != proxyTarget {
			addr = loopbackAddr(target)
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return files, 0, fmt.Errorf("listening on %s: %w", target, err)
		}
		f, err := ln.(*net.TCPListener).File()
		ln.Close()
		if err != nil {
			return files, 0, err
		}
		files = append(files, f)
		port := ln.Addr().(*net.TCPAddr).Port
		if target == proxyTarget {
			proxyPort = port
		}
		if len(spec.Ports) > 0 {
			spec.Ports = append(spec.Ports, port)
		}
	}
	return files, proxyPort, nil
}

// handOver sends files, the listeners of targets, over the descriptor
// handoff in one message: the targets, then the rights.
func handOver(handoff int, targets []string, files []*os.File) error {
	var fds []int
	for _, f := range files {
		fds = append(fds, int(f.Fd()))
	}
	return unix.Sendmsg(handoff, []byte(strings.Join(targets, "\n")), unix.UnixRights(fds...), nil, 0)
}

// loopbackAddr is where a loopback entry is listened on inside:
// localhost is 127.0.0.1, as most clients resolve it first.
func loopbackAddr(hostport string) string {
	host, port, _ := net.SplitHostPort(hostport)
	if host == "localhost" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}

// netNamespace names the network namespace this process is in.
func netNamespace() (uint64, error) {
	var st unix.Stat_t
	if err := unix.Stat("/proc/self/ns/net", &st); err != nil {
		return 0, err
	}
	return st.Ino, nil
}

// OutsideNetNamespace names rooda's own network namespace, which the
// trampoline must not be in to run an agent under sandbox_hosts.
func OutsideNetNamespace() uint64 {
	ns, _ := netNamespace()
	return ns
}
