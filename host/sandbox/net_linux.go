//go:build linux

package sandbox

import (
	"fmt"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"rooda/host/sandbox/confine"
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
	out, err := runProbe(attr, confine.ProbeNetArg)
	if err != nil {
		if out != "" {
			return fmt.Errorf("a network namespace: %s", out)
		}
		return fmt.Errorf("a network namespace: %w", err)
	}
	return nil
}

// OutsideNetNamespace names rooda's own network namespace, which the
// trampoline must not be in to run an agent under sandbox_hosts.
func OutsideNetNamespace() uint64 {
	ns, _ := confine.NetNamespace()
	return ns
}
