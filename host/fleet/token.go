package fleet

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// tokenFile, in the store, is the token a listening server asks of its
// clients. A run's command line is a command the worker runs (its
// --ai-cmd): whoever may queue a run may run a program as the workers'
// user, so a server that takes connections takes them only from those
// who can read the store, or were given the token.
const tokenFile = "token"

// serverToken is the store's token, made the first time a server of the
// store listens, readable by its owner only.
func serverToken(store string) (string, error) {
	if token, err := storeToken(store); err != nil || token != "" {
		return token, err
	}
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	token := hex.EncodeToString(b)
	return token, os.WriteFile(filepath.Join(store, tokenFile), []byte(token+"\n"), 0o600)
}

// storeToken is the token of store's server, "" if it has none.
func storeToken(store string) (string, error) {
	if store == "" {
		return "", nil
	}
	data, err := os.ReadFile(filepath.Join(store, tokenFile))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	return strings.TrimSpace(string(data)), err
}
