package fleet

import (
	"context"
	"errors"
	"fmt"
	"net"
	neturl "net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Names of what the fleet keeps in JetStream.
const (
	streamName  = "ROODA_RUNS"
	queuedSubj  = "rooda.runs.queued"
	consumer    = "workers"
	statesName  = "rooda-run-states"
	recordsName = "rooda-run-records"
	dialTimeout = 2 * time.Second
)

// Fleet is a connection to the fleet's server, with its queue and its
// states made if they were not there.
type Fleet struct {
	nc     *nats.Conn
	js     jetstream.JetStream
	stream jetstream.Stream
	states jetstream.KeyValue
	// records keeps the runs' records as their workers write them
	// through (writethrough.go).
	records jetstream.ObjectStore
	// accounts is the accounts' ledger (accounts.go).
	accounts jetstream.KeyValue
	// server is the embedded server this connection started, if any.
	server *Server
}

// Connect connects to the server at url; with no url, to the server
// that listens for this machine's store (its URL in the store), or else
// to one it starts in this process on the store.
func Connect(ctx context.Context, url, store string) (*Fleet, error) {
	return ConnectWith(ctx, url, store, Credentials{})
}

// Credentials are what a client shows a NATS server of the user's own
// beside what its URL holds (a token, a user and password), by NATS's
// own means. The zero value shows nothing more.
type Credentials struct {
	// CredsFile is a NATS creds file: a user's JWT and its nkey seed.
	CredsFile string
	// CA is a PEM file of the authorities that sign the server's
	// certificate (without it, the system's); Cert and Key are a client
	// certificate and its key, for a server that asks for one.
	CA, Cert, Key string
}

// options are the client's options for c; an error when c is half
// given.
func (c Credentials) options() ([]nats.Option, error) {
	var opts []nats.Option
	if c.CredsFile != "" {
		if _, err := os.Stat(c.CredsFile); err != nil {
			return nil, fmt.Errorf("the creds file: %w", err)
		}
		opts = append(opts, nats.UserCredentials(c.CredsFile))
	}
	if c.CA != "" {
		opts = append(opts, nats.RootCAs(c.CA))
	}
	switch {
	case (c.Cert == "") != (c.Key == ""):
		return nil, errors.New("a client certificate needs both its file and its key's (--tls-cert and --tls-key)")
	case c.Cert != "":
		opts = append(opts, nats.ClientCert(c.Cert, c.Key))
	}
	return opts, nil
}

// ConnectWith is Connect showing creds to the server at url (or this
// machine's, found through the store); an embedded server started in this
// process is reached through no socket, and asks for none.
func ConnectWith(ctx context.Context, url, store string, creds Credentials) (*Fleet, error) {
	token, err := storeToken(store)
	if err != nil {
		return nil, err
	}
	credOpts, err := creds.options()
	if err != nil {
		return nil, err
	}
	given := url != ""
	if !given {
		url = listening(store, token)
	}
	if url != "" {
		opts := []nats.Option{nats.Name("rooda-fleet"), nats.Timeout(dialTimeout), nats.MaxReconnects(-1)}
		if given {
			// Credentials are for the server named: this machine's own,
			// found through its store, asks for its token alone.
			opts = append(opts, credOpts...)
		}
		if token != "" && (!given || onThisMachine(url) && !strings.Contains(url, "@") && creds.CredsFile == "") {
			// This machine's server: the store's token, which no
			// server elsewhere is shown (one here that asks none
			// ignores it).
			opts = append(opts, nats.Token(token))
		}
		nc, err := nats.Connect(url, opts...)
		if err != nil {
			return nil, err
		}
		return open(ctx, nc, nil)
	}
	s, err := StartServer(ServerConfig{Store: store})
	if err != nil {
		return nil, err
	}
	f, err := ConnectTo(ctx, s)
	if err != nil {
		s.Shutdown()
		return nil, err
	}
	f.server = s
	return f, nil
}

// ConnectTo connects to an embedded server in this process, through no
// socket.
func ConnectTo(ctx context.Context, s *Server) (*Fleet, error) {
	opts := []nats.Option{nats.InProcessServer(s.ns), nats.Name("rooda-fleet")}
	if s.token != "" {
		opts = append(opts, nats.Token(s.token))
	}
	nc, err := nats.Connect("", opts...)
	if err != nil {
		return nil, err
	}
	return open(ctx, nc, nil)
}

// listening is the URL a server of store left there, if one answers on
// it now to token; "" if none does.
// Served reports whether a server runs for this machine's store (rooda
// fleet serve), one a command reaches without starting its own.
func Served(store string) bool {
	token, err := storeToken(store)
	return err == nil && listening(store, token) != ""
}

func listening(store, token string) string {
	data, err := os.ReadFile(filepath.Join(store, urlFile))
	if err != nil {
		return ""
	}
	url := strings.TrimSpace(string(data))
	nc, err := nats.Connect(url, nats.Timeout(dialTimeout), nats.NoReconnect(), nats.Token(token))
	if err != nil {
		return ""
	}
	nc.Close()
	return url
}

// open makes the fleet's stream and bucket where they are not, and
// takes them as they are where they are: a client never changes what
// another made (an update from a client of other defaults would, say,
// take a cluster's replicas down to one).
func open(ctx context.Context, nc *nats.Conn, s *Server) (*Fleet, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, err
	}
	f := &Fleet{nc: nc, js: js, server: s}
	replicas := replicasFor(nc)
	f.stream, err = stream(ctx, js, jetstream.StreamConfig{
		Name:      streamName,
		Subjects:  []string{queuedSubj},
		Retention: jetstream.WorkQueuePolicy,
		Storage:   jetstream.FileStorage,
		Replicas:  replicas,
	})
	if err == nil {
		f.states, err = bucket(ctx, js, jetstream.KeyValueConfig{
			Bucket:   statesName,
			Storage:  jetstream.FileStorage,
			History:  8,
			Replicas: replicas,
		})
	}
	if err == nil {
		f.records, err = objectStore(ctx, js, jetstream.ObjectStoreConfig{
			Bucket:   recordsName,
			Storage:  jetstream.FileStorage,
			Replicas: replicas,
		})
	}
	if err == nil {
		f.accounts, err = bucket(ctx, js, jetstream.KeyValueConfig{
			Bucket:   accountsName,
			Storage:  jetstream.FileStorage,
			History:  1,
			Replicas: replicas,
			// An entry is a few hundred bytes: a run (or an agent
			// that reached a worker's socket) cannot fill the
			// server's store through it.
			MaxValueSize: maxEntryBytes,
			MaxBytes:     64 << 20,
		})
	}
	if err != nil {
		nc.Close()
		return nil, errors.Join(errors.New("making the fleet's queue, states, records and accounts"), err)
	}
	return f, nil
}

// replicasFor is how many copies the fleet's stream and bucket keep: one
// on a server alone, three on a cluster (which then goes on with one of
// three servers lost).
func replicasFor(nc *nats.Conn) int {
	if nc.ConnectedClusterName() != "" {
		return 3
	}
	return 1
}

// stream is the stream of cfg's name, made as cfg says if there is none.
func stream(ctx context.Context, js jetstream.JetStream, cfg jetstream.StreamConfig) (jetstream.Stream, error) {
	st, err := js.Stream(ctx, cfg.Name)
	if !errors.Is(err, jetstream.ErrStreamNotFound) {
		return st, err
	}
	st, err = js.CreateStream(ctx, cfg)
	if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
		return js.Stream(ctx, cfg.Name) // made meanwhile by another
	}
	return st, err
}

// bucket is the key-value bucket of cfg's name, made as cfg says if
// there is none.
func bucket(ctx context.Context, js jetstream.JetStream, cfg jetstream.KeyValueConfig) (jetstream.KeyValue, error) {
	kv, err := js.KeyValue(ctx, cfg.Bucket)
	if !errors.Is(err, jetstream.ErrBucketNotFound) {
		return kv, err
	}
	kv, err = js.CreateKeyValue(ctx, cfg)
	if errors.Is(err, jetstream.ErrBucketExists) {
		return js.KeyValue(ctx, cfg.Bucket)
	}
	return kv, err
}

// objectStore is the object store of cfg's name, made as cfg says if
// there is none.
func objectStore(ctx context.Context, js jetstream.JetStream, cfg jetstream.ObjectStoreConfig) (jetstream.ObjectStore, error) {
	obs, err := js.ObjectStore(ctx, cfg.Bucket)
	if !errors.Is(err, jetstream.ErrBucketNotFound) {
		return obs, err
	}
	obs, err = js.CreateObjectStore(ctx, cfg)
	if errors.Is(err, jetstream.ErrBucketExists) {
		return js.ObjectStore(ctx, cfg.Bucket)
	}
	return obs, err
}

// Close closes the connection, and stops the server it started.
func (f *Fleet) Close() {
	f.nc.Close()
	if f.server != nil {
		f.server.Shutdown()
	}
}

// onThisMachine reports whether the server URL names a loopback address:
// this machine's, to which its store's token may go.
func onThisMachine(url string) bool {
	u, err := neturl.Parse(url)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
