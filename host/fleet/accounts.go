package fleet

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"rooda/host/ledger"
)

// accountsName is the bucket of the accounts' ledger: one entry per
// account, shared by every loop of every worker of the fleet.
const accountsName = "rooda-accounts"

// Accounts is the fleet's accounts' ledger (host/ledger), an entry a key
// of its bucket written by compare-and-set on the key's revision, as the
// runs' states are.
type Accounts struct {
	kv jetstream.KeyValue
}

// Accounts is the fleet's ledger.
func (f *Fleet) Accounts() *Accounts { return &Accounts{kv: f.accounts} }

// key is an account's key: a bucket's keys are words of [-_=./A-Za-z0-9],
// and an account's name may be any text.
func key(account string) string { return base64.RawURLEncoding.EncodeToString([]byte(account)) }

func (a *Accounts) Get(ctx context.Context, account string) (ledger.Entry, uint64, error) {
	var e ledger.Entry
	got, err := a.kv.Get(ctx, key(account))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return e, 0, nil
	}
	if err != nil {
		return e, 0, err
	}
	if err := json.Unmarshal(got.Value(), &e); err != nil {
		return e, 0, fmt.Errorf("account %s: its entry is not readable: %w", account, err)
	}
	return e, got.Revision(), nil
}

func (a *Accounts) Put(ctx context.Context, account string, e ledger.Entry, rev uint64) (uint64, error) {
	data, err := json.Marshal(e)
	if err != nil {
		return 0, err
	}
	var next uint64
	if rev == 0 {
		next, err = a.kv.Create(ctx, key(account), data)
	} else {
		next, err = a.kv.Update(ctx, key(account), data, rev)
	}
	if errors.Is(err, jetstream.ErrKeyExists) || errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
		return 0, ledger.ErrRevisionMoved
	}
	return next, err
}

// All are the entries of every account, by name.
func (a *Accounts) All(ctx context.Context) (map[string]ledger.Entry, error) {
	out := map[string]ledger.Entry{}
	keys, err := a.kv.Keys(ctx)
	if errors.Is(err, jetstream.ErrNoKeysFound) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		name, err := base64.RawURLEncoding.DecodeString(k)
		if err != nil {
			continue // not an account's
		}
		e, _, err := a.Get(ctx, string(name))
		if err != nil {
			return nil, err
		}
		out[string(name)] = e
	}
	return out, nil
}

// maxEntryBytes bounds an account's entry in the fleet's bucket.
const maxEntryBytes = 256 << 10

// serveLedger serves store to the runs the worker starts, on a unix
// socket in a directory of its own that only the worker's user may
// enter, and returns its address (ROODA_LEDGER's value) and how to stop
// serving it.
func serveLedger(store ledger.Store) (addr string, stop func(), err error) {
	dir, err := os.MkdirTemp("", "rooda-ledger-")
	if err != nil {
		return "", nil, err
	}
	sock := filepath.Join(dir, "ledger.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	srv := &http.Server{Handler: ledger.Handler(store), ReadHeaderTimeout: 5 * time.Second, IdleTimeout: time.Minute}
	go srv.Serve(ln)
	return "unix:" + sock, func() { srv.Close(); os.RemoveAll(dir) }, nil
}
