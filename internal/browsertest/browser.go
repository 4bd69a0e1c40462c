// Package browsertest drives a real headless Chromium for the tests of
// rooda's web pages (rooda runs serve, rooda runs report): the pages are
// loaded, clicked and photographed by the browser people use, and every
// message the page writes to its console is kept, so that a test can
// require none of them to be an error.
//
// Chromium is Debian's package (internal/testdeps/install.sh installs it
// when it is missing); where there is none the test is skipped with a
// loud NOT TESTED.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Timeout bounds a whole browser test: a guard against a hang, not a
// measure of speed.
const Timeout = 90 * time.Second

// Browser is one headless Chromium with one tab, ended with its test.
type Browser struct {
	// Ctx runs chromedp actions in the tab.
	Ctx context.Context

	mu      sync.Mutex
	console []chromedp.ConsoleMessage
}

// executable is the Chromium to drive: $ROODA_CHROMIUM, else the first
// of Debian's and others' names found on PATH.
func executable() (string, bool) {
	if path := os.Getenv("ROODA_CHROMIUM"); path != "" {
		return path, true
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if path, err := exec.LookPath(name); err == nil {
			return path, true
		}
	}
	return "", false
}

// Start starts Chromium for t, or skips t loudly where there is none. The
// browser is stopped, and its process ended, when t ends.
func Start(t *testing.T) *Browser {
	t.Helper()
	path, ok := executable()
	if !ok {
		t.Skip("NOT TESTED: no Chromium (chromium, chromium-browser or google-chrome on PATH, or ROODA_CHROMIUM); internal/testdeps/install.sh installs Debian's")
	}
	ctx, cancelTimeout := context.WithTimeout(context.Background(), Timeout)
	// Without the background-networking flags Chromium dials Google's
	// hosts at start, which a closed network refuses noisily; as root it
	// needs --no-sandbox.
	options := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.UserDataDir(filepath.Join(t.TempDir(), "chromium")),
		chromedp.WindowSize(1280, 900),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, options...)
	tabCtx, cancelTab := chromedp.NewContext(allocCtx)
	b := &Browser{Ctx: tabCtx}
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
		cancelTimeout()
	})
	// Starting the browser before subscribing to its console, so that no
	// message of the first page is lost.
	if err := chromedp.Do(tabCtx); err != nil {
		t.Fatalf("starting Chromium (%s): %v", path, err)
	}
	messages := chromedp.Console(tabCtx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			b.mu.Lock()
			b.console = append(b.console, m)
			b.mu.Unlock()
		}
	}()
	return b
}

// Errors are the console messages so far that are errors: a call of
// console.error, an exception nothing caught, a resource that failed to
// load, a violated Content-Security-Policy.
func (b *Browser) Errors() []chromedp.ConsoleMessage {
	b.mu.Lock()
	defer b.mu.Unlock()
	var errs []chromedp.ConsoleMessage
	for _, m := range b.console {
		if m.Type == chromedp.ConsoleError || m.IsException() {
			errs = append(errs, m)
		}
	}
	return errs
}

// Screenshot keeps a picture of the whole page as name (a .png) in t's
// artifact directory (go test -artifacts keeps it under -outputdir) and
// returns its path.
func (b *Browser) Screenshot(t *testing.T, name string) string {
	t.Helper()
	png, err := chromedp.Run(b.Ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(t.ArtifactDir(), name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
	return path
}
