package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The ledger over HTTP, with JSON: a fleet's worker serves its store
// (Handler) on a unix socket to the runs it starts, which reach it
// through Dial, the address in their environment.
//
//	GET /accounts/NAME               → {"entry": {…}, "revision": N}
//	PUT /accounts/NAME?revision=N {…} → {"revision": N+1}, or 409 when
//	                                    another wrote it since N

// Env names, in a run's environment, the ledger its worker serves it
// (unix:PATH, Dial's address). rooda takes it out of its own environment
// as it starts (host/session), so that its agents never inherit it.
const Env = "ROODA_LEDGER"

type wireEntry struct {
	Entry    Entry  `json:"entry"`
	Revision uint64 `json:"revision"`
}

// Handler serves s.
func Handler(s Store) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /accounts/{name}", func(w http.ResponseWriter, r *http.Request) {
		e, rev, err := s.Get(r.Context(), r.PathValue("name"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		json.NewEncoder(w).Encode(wireEntry{Entry: e, Revision: rev})
	})
	mux.HandleFunc("PUT /accounts/{name}", func(w http.ResponseWriter, r *http.Request) {
		rev, err := strconv.ParseUint(r.URL.Query().Get("revision"), 10, 64)
		var e Entry
		if err == nil {
			err = json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&e)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		next, err := s.Put(r.Context(), r.PathValue("name"), e, rev)
		switch {
		case errors.Is(err, ErrRevisionMoved):
			http.Error(w, err.Error(), http.StatusConflict)
		case err != nil:
			http.Error(w, err.Error(), http.StatusInternalServerError)
		default:
			json.NewEncoder(w).Encode(wireEntry{Revision: next})
		}
	})
	return mux
}

// Client is the ledger a worker serves, reached on its socket.
type Client struct {
	http *http.Client
}

// Dial is the ledger at addr, "unix:PATH": the worker's socket.
func Dial(addr string) *Client {
	path := strings.TrimPrefix(addr, "unix:")
	dial := func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", path)
	}
	return &Client{http: &http.Client{Transport: &http.Transport{DialContext: dial}, Timeout: 30 * time.Second}}
}

func (c *Client) Get(ctx context.Context, account string) (Entry, uint64, error) {
	var got wireEntry
	err := c.do(ctx, http.MethodGet, account, "", nil, &got)
	return got.Entry, got.Revision, err
}

func (c *Client) Put(ctx context.Context, account string, e Entry, rev uint64) (uint64, error) {
	body, err := json.Marshal(e)
	if err != nil {
		return 0, err
	}
	var got wireEntry
	err = c.do(ctx, http.MethodPut, account, "?revision="+strconv.FormatUint(rev, 10), body, &got)
	return got.Revision, err
}

func (c *Client) do(ctx context.Context, method, account, query string, body []byte, into *wireEntry) error {
	req, err := http.NewRequestWithContext(ctx, method, "http://ledger/accounts/"+url.PathEscape(account)+query, strings.NewReader(string(body)))
	if err != nil {
		return err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("the worker's ledger: %w", err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
		return json.NewDecoder(resp.Body).Decode(into)
	case http.StatusConflict:
		return ErrRevisionMoved
	}
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
	return fmt.Errorf("the worker's ledger: %s: %s", resp.Status, strings.TrimSpace(string(msg)))
}
