// Package runpage shows the run records of host/runlog as web pages: the
// list of runs, a run's page with a timeline of its iterations and a
// chart of what it spent, each iteration's prompt, transcript, output
// and facts, and the diff of two prompts. A Handler serves them on a
// local address (rooda runs serve); WriteReport writes one run's page as
// a single file that needs no server (rooda runs report).
//
// The pages are html/template's, so everything a record holds is
// escaped; their CSS and their small scripts — one loads an iteration's
// prompt, transcript, output and prompt diff as it is shown, a piece at a
// time, so that a record of any size makes a small page; one reloads the
// page of a run going on — are inline, allowed by their hashes in the
// Content-Security-Policy, and nothing is fetched from anywhere else.
// Only requests meant for this server, from its own pages, are answered
// (onlyThisServer).
// Charts are SVG drawn here. Nothing is ever written or removed: a run
// id from a URL is used only when it is one of the recorded runs.
package runpage

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"rooda/host/files"
	"rooda/host/runlog"
	"rooda/host/units"
)

var (
	//go:embed page.html
	pageHTML string
	//go:embed style.css
	styleCSS string
	// liveJS reloads a page that changes (a run going on, the fleet's)
	// when its version does.
	//go:embed live.js
	liveJS string
	// piecesJS loads an iteration's texts and prompt diff when it is
	// shown.
	//go:embed pieces.js
	piecesJS string
)

// pages are parsed when first used, not as rooda starts: rooda starts
// too as each agent's trampoline (host/sandbox), where it costs.
var pages = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Funcs(unitFuncs).Parse(pageHTML))
})

// unitFuncs write durations and money in the page as everywhere else.
var unitFuncs = template.FuncMap{"duration": units.Duration, "dollars": units.Dollars}

// policy allows the page nothing but its own inline style and scripts,
// named by their hashes, the data: favicon, and asking the server for a
// run's version and its records' texts.
var policy = sync.OnceValue(func() string {
	return fmt.Sprintf("default-src 'none'; style-src '%s'; script-src '%s' '%s'; img-src data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
		hash(styleCSS), hash(piecesJS), hash(liveJS))
})

// reportPolicy is the policy a report file carries in a meta element:
// with no server, no script and no connection.
var reportPolicy = sync.OnceValue(func() string {
	return fmt.Sprintf("default-src 'none'; style-src '%s'; img-src data:; base-uri 'none'; form-action 'none'", hash(styleCSS))
})

func hash(text string) string {
	sum := sha256.Sum256([]byte(text))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// page is what every page's template is given.
type page struct {
	Title string
	// Dir is the runs directory the pages show.
	Dir string
	// Report is set for a report file: no script, no form, no link to
	// the server.
	Report bool
	// Policy is the CSP a report carries in a meta element.
	Policy string
	Style  template.CSS
	// Scripts are the inline scripts of a served run page.
	Scripts []template.JS
	Runs    []listRow
	Run     *runView
	Diff    *diffView
	Fleet   *fleetView
	Error   string
}

// diffView is the diff page of two records of a run.
type diffView struct {
	ID       string
	From, To int
	Lines    []diffLine
}

// Handler serves the records under dir, read anew on every request, to
// requests meant for addr (see onlyThisServer).
func Handler(dir, addr string) http.Handler {
	return handler(dir, addr, nil)
}

// FleetHandler is Handler with the fleet's runs, as status says them, as
// its first page (a run's record stays at runs/ID).
func FleetHandler(dir, addr string, status FleetStatus) http.Handler {
	return handler(dir, addr, status)
}

func handler(dir, addr string, fleet FleetStatus) http.Handler {
	s := &server{dir: dir, now: time.Now, diffing: make(chan struct{}, 1)}
	mux := http.NewServeMux()
	if fleet != nil {
		f := fleetServer{server: s, status: shared(fleet)}
		mux.HandleFunc("GET /{$}", f.fleet)
		mux.HandleFunc("GET /version", f.version)
	} else {
		mux.HandleFunc("GET /{$}", s.list)
	}
	mux.HandleFunc("GET /runs/{id}", s.run)
	mux.HandleFunc("GET /runs/{id}/diff", s.diff)
	mux.HandleFunc("GET /runs/{id}/version", s.version)
	mux.HandleFunc("GET /runs/{id}/iterations/{n}/{text}", s.text)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, http.StatusNotFound, "There is no page at "+r.URL.Path+".")
	})
	servedHost, _, _ := net.SplitHostPort(addr)
	return secured(onlyThisServer(servedHost, mux))
}

// secured sends the headers every response carries.
func secured(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", policy())
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

type server struct {
	dir string
	now func() time.Time
	// diffing is held while a prompt diff is made: the one request
	// whose memory grows with the record (up to diffLimit twice, and
	// the diff's table), made one at a time.
	diffing chan struct{}
}

// diffLimit bounds each prompt a served diff reads whole; rooda runs
// diff diffs larger ones.
const diffLimit = 8 << 20

func (s *server) list(w http.ResponseWriter, r *http.Request) {
	rows, err := listRows(s.dir, s.now())
	if err != nil {
		s.fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	s.render(w, http.StatusOK, "list", page{Title: "rooda runs", Runs: rows})
}

func (s *server) run(w http.ResponseWriter, r *http.Request) {
	id, ok := s.recorded(w, r)
	if !ok {
		return
	}
	v, err := readRun(s.dir, id, s.now(), false)
	if err != nil {
		s.fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	p := page{Title: "rooda run " + id, Run: &v, Scripts: []template.JS{template.JS(piecesJS)}}
	if v.Going {
		p.Scripts = append(p.Scripts, template.JS(liveJS))
	}
	s.render(w, http.StatusOK, "run", p)
}

func (s *server) diff(w http.ResponseWriter, r *http.Request) {
	id, ok := s.recorded(w, r)
	if !ok {
		return
	}
	from, errFrom := iterationNumber(r, "from")
	to, errTo := iterationNumber(r, "to")
	if err := errors.Join(errFrom, errTo); err != nil {
		s.fail(w, http.StatusBadRequest, err.Error())
		return
	}
	select {
	case s.diffing <- struct{}{}:
	case <-r.Context().Done():
		return
	}
	html, err := s.diffPage(id, from, to)
	// Written once the slot is free: a client that reads slowly, or not
	// at all, holds no other diff up.
	<-s.diffing
	var tooLarge *files.TooLargeError
	switch {
	case errors.As(err, &tooLarge):
		s.fail(w, http.StatusNotFound, fmt.Sprintf("%v: too large to diff here; rooda runs diff %s %d %d shows it.", err, id, from, to))
	case err != nil:
		s.fail(w, http.StatusNotFound, err.Error())
	default:
		writePage(w, http.StatusOK, html)
	}
}

// diffPage is the page of the diff of prompts from and to of run id.
func (s *server) diffPage(id string, from, to int) (string, error) {
	diff, err := runlog.DiffPrompts(filepath.Join(s.dir, id), from, to, diffLimit)
	if err != nil {
		return "", err
	}
	title := fmt.Sprintf("rooda run %s: prompt %d → %d", id, from, to)
	return s.page("diff", page{Title: title, Diff: &diffView{ID: id, From: from, To: to, Lines: diffLines(diff)}})
}

// version answers the page of a run going on, which reloads when it
// changes.
func (s *server) version(w http.ResponseWriter, r *http.Request) {
	id, ok := s.recorded(w, r)
	if !ok {
		return
	}
	v, err := version(s.dir, id)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(w, v)
}

// text serves a text file of an iteration's record, prompt, transcript
// or output, as plain text, streamed: whole, or the piece a Range asks
// for, as the run page's script does.
func (s *server) text(w http.ResponseWriter, r *http.Request) {
	id, ok := s.recorded(w, r)
	if !ok {
		return
	}
	i := slices.IndexFunc(texts, func(t textFile) bool { return t.class == r.PathValue("text") })
	n, err := strconv.Atoi(r.PathValue("n"))
	if i < 0 || err != nil || n < 1 {
		http.Error(w, "There is no such file of an iteration: the URL ends in iterations/N/prompt, transcript or output.", http.StatusNotFound)
		return
	}
	f, err := runlog.OpenFile(filepath.Join(s.dir, id), n, texts[i].name)
	if err != nil {
		http.Error(w, cannotRead(texts[i].name, err), http.StatusNotFound)
		return
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		http.Error(w, cannotRead(texts[i].name, err), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	http.ServeContent(w, r, "", info.ModTime(), f)
}

// recorded is the run id of the URL when it is exactly one of the
// recorded runs; anything else, a path of dots included, is a 404 and
// never reaches the file system as a path.
func (s *server) recorded(w http.ResponseWriter, r *http.Request) (string, bool) {
	id := r.PathValue("id")
	ids, err := runlog.IDs(s.dir)
	if err != nil {
		s.fail(w, http.StatusInternalServerError, err.Error())
		return "", false
	}
	if !slices.Contains(ids, id) {
		s.fail(w, http.StatusNotFound, fmt.Sprintf("No run %q is recorded in %s.", id, s.dir))
		return "", false
	}
	return id, true
}

// iterationNumber reads the query parameter name as an iteration number.
func iterationNumber(r *http.Request, name string) (int, error) {
	value := r.URL.Query().Get(name)
	n, err := strconv.Atoi(strings.TrimSpace(value))
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%s=%q is not an iteration number: give a whole number from 1", name, value)
	}
	return n, nil
}

func (s *server) fail(w http.ResponseWriter, status int, message string) {
	s.render(w, status, "error", page{Title: http.StatusText(status), Error: message})
}

// render writes a page whole, or a plain error should its template fail
// (a page half written would hide the error).
func (s *server) render(w http.ResponseWriter, status int, name string, p page) {
	html, err := s.page(name, p)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writePage(w, status, html)
}

// page is the HTML of page p, made with template name.
func (s *server) page(name string, p page) (string, error) {
	p.Dir, p.Style = s.dir, template.CSS(styleCSS)
	var b strings.Builder
	err := pages().ExecuteTemplate(&b, name, p)
	return b.String(), err
}

// writePage answers with html.
func writePage(w http.ResponseWriter, status int, html string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	io.WriteString(w, html)
}

// WriteReport writes the page of run id under dir as one file that
// needs no server: its style inline, no script, no link but to its own
// sections.
func WriteReport(w io.Writer, dir, id string) error {
	v, err := readRun(dir, id, time.Now(), true)
	if err != nil {
		return err
	}
	p := page{Title: "rooda run " + id, Dir: dir, Report: true, Policy: reportPolicy(), Style: template.CSS(styleCSS), Run: &v}
	return pages().ExecuteTemplate(w, "run", p)
}

// WriteReportFile writes the report of run id to path. The page is made
// first: a record that cannot be read leaves no file, nor an old one
// emptied.
func WriteReportFile(path, dir, id string) error {
	var b bytes.Buffer
	if err := WriteReport(&b, dir, id); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}
