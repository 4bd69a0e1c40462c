package fleet

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Server is a NATS server with JetStream embedded in this process, its
// streams in files under a store directory.
type Server struct {
	ns   *server.Server
	lock *os.File
	url  string
	// token is what a client must give, when the server listens.
	token string
}

// ServerConfig is how to start the embedded server.
type ServerConfig struct {
	// Store is the directory of its files (JetStream's, and the lock that
	// keeps a second server off them).
	Store string
	// Listen is HOST:PORT to take connections on, from clients that give
	// the store's token; "" takes none: only this process reaches the
	// server, through ConnectTo.
	Listen string
}

// urlFile, in the store, names the URL of a server that listens, for the
// commands on this machine that are given none.
const urlFile = "server.url"

// StartServer starts the embedded server, once its store is its own: a
// second server on the same files would corrupt them.
func StartServer(cfg ServerConfig) (*Server, error) {
	if err := os.MkdirAll(cfg.Store, 0o700); err != nil {
		return nil, err
	}
	lock, err := lockStore(cfg.Store)
	if err != nil {
		return nil, err
	}
	opts := &server.Options{
		ServerName: "rooda-fleet",
		JetStream:  true,
		StoreDir:   filepath.Join(cfg.Store, "jetstream"),
		DontListen: cfg.Listen == "",
		NoSigs:     true,
	}
	if cfg.Listen != "" {
		opts.Host, opts.Port, err = hostPort(cfg.Listen)
		if err == nil {
			opts.Authorization, err = serverToken(cfg.Store)
		}
		if err != nil {
			lock.Close()
			return nil, err
		}
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		lock.Close()
		return nil, err
	}
	log := newStartLog()
	ns.SetLoggerV2(log, false, false, false)
	ns.Start()
	if err := ready(ns, log); err != nil {
		ns.Shutdown()
		lock.Close()
		return nil, err
	}
	s := &Server{ns: ns, lock: lock, token: opts.Authorization}
	if cfg.Listen != "" {
		s.url = ns.ClientURL()
		if err := os.WriteFile(filepath.Join(cfg.Store, urlFile), []byte(s.url+"\n"), 0o600); err != nil {
			s.Shutdown()
			return nil, err
		}
	}
	return s, nil
}

// ready waits until ns takes connections, or says why it cannot.
func ready(ns *server.Server, log *startLog) error {
	deadline := time.Now().Add(30 * time.Second)
	for !ns.ReadyForConnections(50 * time.Millisecond) {
		select {
		case why := <-log.fatal:
			return fmt.Errorf("the embedded NATS server could not start: %s", why)
		default:
		}
		if time.Now().After(deadline) {
			return errors.New("the embedded NATS server did not start within 30 s")
		}
	}
	return nil
}

// URL is where the server listens, "" if it takes no connections.
func (s *Server) URL() string { return s.url }

// Shutdown stops the server and lets its store go.
func (s *Server) Shutdown() {
	if s.url != "" {
		os.Remove(filepath.Join(filepath.Dir(s.ns.StoreDir()), urlFile))
	}
	s.ns.Shutdown()
	s.ns.WaitForShutdown()
	s.lock.Close()
}

// lockStore holds the store's lock file for as long as the file stays
// open; the kernel lets it go when the process dies, however it dies.
func lockStore(store string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(store, "lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: %s is the store of a fleet server that another process runs; to share it, run `rooda fleet serve --listen 127.0.0.1:4222` and give every command --server nats://127.0.0.1:4222", ErrStoreInUse, store)
	}
	return f, nil
}

// ErrStoreInUse is a store another process's server holds.
var ErrStoreInUse = errors.New("store in use")

func hostPort(listen string) (string, int, error) {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return "", 0, fmt.Errorf("--listen %q: %w", listen, err)
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 0 || n > 65535 {
		return "", 0, fmt.Errorf("--listen %q: the port is a number from 0 (any free one) to 65535", listen)
	}
	if n == 0 {
		n = server.RANDOM_PORT // NATS takes 0 for its default port, 4222
	}
	return host, n, nil
}
