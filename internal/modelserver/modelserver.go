// Package modelserver is a local stand-in for the model APIs that real agent
// CLIs call, so that tests can run claude, codex, gemini, opencode and copilot
// end to end without credentials or a network.
//
// It speaks, streaming (SSE) and not, enough of four APIs for the CLIs to
// work against it:
//
//   - Anthropic Messages: POST /v1/messages (also ?beta=true) and
//     /v1/messages/count_tokens (claude);
//   - OpenAI Responses: POST /v1/responses (codex);
//   - OpenAI Chat Completions: POST /v1/chat/completions (opencode, copilot);
//   - Gemini: …:streamGenerateContent?alt=sse and …:generateContent, the
//     CLI's router and other JSON side calls included (gemini).
//
// A [Script] is a list of replies taken in turn, one for each request in
// which the model has to answer the user: a final text, a shell command the
// CLI runs through the shell tool it offered, an HTTP error (401, 429, 529,
// a usage limit with its reset time in the form the CLI reads), after a delay
// or never. The server keeps no conversation: like the CLIs' real back ends it
// decides from the last turn of each request, so a request whose last turn is
// a tool result gets the final text of the reply that asked for the tool.
// Requests offering no tools (titles, routing, token counts) are side calls
// and take no reply.
//
// Every request is logged with the prompt it carried (the text the CLI read
// on its standard input), so a test can assert that what rooda sent arrived
// byte for byte.
package modelserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// An API is one of the wire protocols the server speaks.
type API string

// The APIs the server speaks.
const (
	Anthropic API = "anthropic"
	Responses API = "openai-responses"
	Chat      API = "openai-chat"
	Gemini    API = "gemini"
)

// Usage is the token count a reply reports.
type Usage struct {
	Input, Output, Cached int
}

// DefaultUsage is what a reply reports when its Usage is zero: distinct
// numbers, so that a record showing them came from the server.
var DefaultUsage = Usage{Input: 120, Output: 30, Cached: 40}

// A Reply is the model's answer to one request. Build one with [Text],
// [Shell], [Status], [RateLimited], [Overloaded], [UsageLimit] or [Hang].
type Reply struct {
	// Text is the final assistant text; for a Shell reply, the text
	// answered once the tool's result comes back.
	Text string
	// Command, if set, is a shell command the CLI is asked to run through
	// the first shell-like tool it offered.
	Command string
	// Status, if set, is an HTTP error status answered instead.
	Status int
	// RetryAfter is the retry-after a 429 or 529 carries.
	RetryAfter time.Duration
	// ResetAt, if set, makes a 429 a usage limit that resets then.
	ResetAt time.Time
	// Delay is waited before answering.
	Delay time.Duration
	// Hang answers nothing: the request is held until the client goes away
	// or the server closes.
	Hang bool
	// Usage is the token count reported; DefaultUsage when zero.
	Usage Usage
}

// Text is a reply with a final text, such as "done <promise>SUCCESS</promise>".
func Text(text string) Reply { return Reply{Text: text} }

// Shell asks the CLI to run command through its shell tool, then answers
// text once the tool's result comes back.
func Shell(command, text string) Reply { return Reply{Command: command, Text: text} }

// Status is an HTTP error in the API's own shape: 401 is an authentication
// error, 429 a rate limit that names no time to retry at (no retry-after,
// no reset in the body), 529 (503 for Gemini) an overload, others a
// server error.
func Status(code int) Reply { return Reply{Status: code} }

// RateLimited is a 429 whose retry-after is the given wait.
func RateLimited(retryAfter time.Duration) Reply {
	return Reply{Status: http.StatusTooManyRequests, RetryAfter: retryAfter}
}

// Overloaded is Anthropic's 529 (Gemini's 503, OpenAI's 503 server_is_overloaded).
func Overloaded() Reply { return Reply{Status: 529} }

// UsageLimit is a 429 saying the account's usage limit resets at reset, in
// the form each CLI reads: Anthropic's unified rate-limit headers, codex's
// usage_limit_reached error with resets_at, Gemini's QuotaFailure and
// RetryInfo, and a retry-after everywhere.
func UsageLimit(reset time.Time) Reply {
	return Reply{Status: http.StatusTooManyRequests, ResetAt: reset}
}

// Hang is a reply that never comes.
func Hang() Reply { return Reply{Hang: true} }

// After delays the reply by d.
func (r Reply) After(d time.Duration) Reply { r.Delay = d; return r }

// WithUsage sets the token count the reply reports.
func (r Reply) WithUsage(u Usage) Reply { r.Usage = u; return r }

func (r Reply) usage() Usage {
	if r.Usage == (Usage{}) {
		return DefaultUsage
	}
	return r.Usage
}

// A Script is the replies taken in turn. After the last one, the last one
// is answered again, so a 401 or a hang lasts however often the CLI retries.
// An empty script answers "OK".
type Script []Reply

// A Request is one request the server received.
type Request struct {
	API    API
	Method string
	Path   string // with its query
	Body   []byte
	// Prompt is the user's text: what the CLI read on its standard input,
	// found in the request without the CLI's own wrappers.
	Prompt string
	// Reply is the index in the script of the reply given, or -1 for a side
	// call (one offering no tools) or a request the server did not know.
	Reply int
	// ToolResult tells whether the last turn was a tool's result.
	ToolResult bool
	// Status is the HTTP status answered.
	Status int
}

// Server is a running model server.
type Server struct {
	// URL is the server's base, http://127.0.0.1:PORT, without a path.
	URL string

	script   Script
	http     *http.Server
	ln       net.Listener
	closing  chan struct{}
	mu       sync.Mutex
	next     int // the index of the next reply to take
	current  int // the index of the reply last taken, -1 before the first
	requests []Request
}

// Start starts a server answering script on a free local port and closes it
// when the test ends.
func Start(t testing.TB, script Script) *Server {
	t.Helper()
	s, err := Listen("127.0.0.1:0", script)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// Listen starts a server answering script on addr, such as "127.0.0.1:8080".
func Listen(addr string, script Script) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("model server: %w", err)
	}
	s := &Server{
		URL:     "http://" + ln.Addr().String(),
		script:  script,
		closing: make(chan struct{}),
		current: -1,
	}
	s.http, s.ln = &http.Server{Handler: s}, ln
	go s.http.Serve(ln)
	return s, nil
}

// Close stops the server, ending held requests.
func (s *Server) Close() {
	select {
	case <-s.closing:
		return
	default:
	}
	close(s.closing)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if s.http.Shutdown(ctx) != nil {
		s.http.Close()
	}
	// Shutdown closes the listener only once Serve has taken it: the
	// port is free when Close returns, whenever it is called.
	s.ln.Close()
}

// Requests returns a copy of the log of requests, in the order they came.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Turns returns the requests that took a reply of the script.
func (s *Server) Turns() []Request {
	var turns []Request
	for _, r := range s.Requests() {
		if r.Reply >= 0 {
			turns = append(turns, r)
		}
	}
	return turns
}

// ServeHTTP routes a request to its API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req := Request{Method: r.Method, Path: r.URL.RequestURI(), Body: body, Reply: -1}
	api, ok := route(r)
	if !ok {
		req.Status = http.StatusNotFound
		s.log(req)
		http.NotFound(w, r)
		return
	}
	req.API = api
	in, err := decoders[api](body)
	if err != nil {
		req.Status = http.StatusBadRequest
		s.log(req)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	in.countTokens = strings.HasSuffix(r.URL.Path, "/count_tokens")
	req.Prompt, req.ToolResult = in.prompt, in.toolResult
	a := answer{req: r, in: in, stream: in.stream || strings.Contains(r.URL.Path, ":streamGenerateContent")}
	if in.sideCall() {
		a.reply = Text("OK")
	} else {
		req.Reply, a.reply = s.take(in.toolResult)
	}
	req.Status = a.status()
	s.log(req)
	s.respond(w, api, a)
}

// route tells which API a request speaks from its path.
func route(r *http.Request) (API, bool) {
	p := r.URL.Path
	switch {
	case r.Method != http.MethodPost:
		return "", false
	case p == "/v1/messages" || p == "/v1/messages/count_tokens":
		return Anthropic, true
	case p == "/v1/responses":
		return Responses, true
	case p == "/v1/chat/completions" || p == "/chat/completions":
		return Chat, true
	case strings.HasSuffix(p, ":streamGenerateContent") || strings.HasSuffix(p, ":generateContent"):
		return Gemini, true
	}
	return "", false
}

// take returns the reply for a turn: the next one of the script, or, when
// the last turn is a tool's result, the one that asked for the tool.
func (s *Server) take(toolResult bool) (int, Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.script) == 0 {
		return 0, Text("OK")
	}
	if toolResult && s.current >= 0 {
		return s.current, s.script[s.current] // answered with its Text
	}
	s.current = min(s.next, len(s.script)-1)
	s.next++
	return s.current, s.script[s.current]
}

func (s *Server) log(r Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, r)
}

// respond waits out the reply's delay or hang, then writes it in the API's shape.
func (s *Server) respond(w http.ResponseWriter, api API, a answer) {
	if a.reply.Hang {
		select {
		case <-a.req.Context().Done():
		case <-s.closing:
		}
		return
	}
	if a.reply.Delay > 0 {
		select {
		case <-time.After(a.reply.Delay):
		case <-a.req.Context().Done():
			return
		case <-s.closing:
			return
		}
	}
	if a.reply.Status != 0 {
		writeError(w, api, a.reply)
		return
	}
	encoders[api](w, a)
}

// incoming is what the server needs to know of a request.
type incoming struct {
	stream     bool
	prompt     string
	toolResult bool
	tools      []tool
	// json tells a Gemini side call that wants JSON, such as the router's.
	json        bool
	schema      obj
	countTokens bool
	model       string
}

// sideCall tells a request that takes no reply of the script: one offering
// no tools, such as a title, a route or a token count.
func (in incoming) sideCall() bool { return in.countTokens || len(in.tools) == 0 }

// answer is a reply to one request.
type answer struct {
	req    *http.Request
	in     incoming
	reply  Reply
	stream bool
}

// status is the HTTP status the answer is written with.
func (a answer) status() int {
	if a.reply.Status != 0 {
		return a.reply.Status
	}
	return http.StatusOK
}

// toolCall tells whether the answer asks for a tool, and which.
func (a answer) toolCall() (call, bool) {
	if a.reply.Command == "" || a.in.toolResult {
		return call{}, false
	}
	t, ok := shellTool(a.in.tools)
	if !ok {
		return call{}, false
	}
	return call{name: t.name, args: shellArguments(t, a.reply.Command)}, true
}

// decoders read each API's request.
var decoders = map[API]func([]byte) (incoming, error){
	Anthropic: decodeAnthropic,
	Responses: decodeResponses,
	Chat:      decodeChat,
	Gemini:    decodeGemini,
}

// encoders write each API's successful answer.
var encoders = map[API]func(http.ResponseWriter, answer){
	Anthropic: encodeAnthropic,
	Responses: encodeResponses,
	Chat:      encodeChat,
	Gemini:    encodeGemini,
}

// sse writes server-sent events and flushes each.
type sse struct {
	w http.ResponseWriter
}

func newSSE(w http.ResponseWriter) sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return sse{w}
}

// event writes one event; an empty name writes a bare data line.
func (e sse) event(name string, data any) {
	var b bytes.Buffer
	if name != "" {
		fmt.Fprintf(&b, "event: %s\n", name)
	}
	b.WriteString("data: ")
	if s, ok := data.(string); ok {
		b.WriteString(s)
	} else {
		j, _ := json.Marshal(data)
		b.Write(j)
	}
	b.WriteString("\n\n")
	e.w.Write(b.Bytes())
	if f, ok := e.w.(http.Flusher); ok {
		f.Flush()
	}
}

// writeJSON writes a JSON body with a status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// obj is a JSON object under construction.
type obj = map[string]any

// wrappers are the starts of user texts the CLIs add themselves, which are
// not the prompt they read: claude's reminders (also after a tool's result),
// codex's environment and AGENTS.md, gemini's session context.
var wrappers = []string{
	"<system-reminder>",
	"<environment_context>",
	"# AGENTS.md instructions",
	"<user_instructions>",
	"<session_context>",
}

// promptOf picks the prompt among a request's user texts: the last that is
// not a wrapper of the CLI's own, without the time copilot puts before it.
func promptOf(texts []string) string {
	for i := len(texts) - 1; i >= 0; i-- {
		if !isWrapper(texts[i]) {
			return withoutDatetime(texts[i])
		}
	}
	return ""
}

// withoutDatetime removes the "<current_datetime>…</current_datetime>" and
// blank line that copilot writes before the user's text.
func withoutDatetime(text string) string {
	const open, end = "<current_datetime>", "</current_datetime>\n\n"
	if !strings.HasPrefix(text, open) {
		return text
	}
	if _, rest, ok := strings.Cut(text, end); ok {
		return rest
	}
	return text
}

func isWrapper(text string) bool {
	trimmed := strings.TrimSpace(text)
	for _, w := range wrappers {
		if strings.HasPrefix(trimmed, w) {
			return true
		}
	}
	return false
}

// ids makes the identifiers an answer needs, distinct per request.
var ids struct {
	sync.Mutex
	n int
}

func newID(prefix string) string {
	ids.Lock()
	defer ids.Unlock()
	ids.n++
	return fmt.Sprintf("%s_%06d", prefix, ids.n)
}

// ParseReply reads a reply written as on the command line of the
// modelserver command: text:TEXT, shell:COMMAND (answered "Done." after the
// tool runs), status:CODE, ratelimit:DURATION, limit:DURATION (a usage limit
// resetting that long from now), overloaded or hang; any of them may end in
// @DURATION, a delay.
func ParseReply(s string) (Reply, error) {
	var delay time.Duration
	if i := strings.LastIndex(s, "@"); i >= 0 {
		if d, err := time.ParseDuration(s[i+1:]); err == nil {
			s, delay = s[:i], d
		}
	}
	kind, arg, _ := strings.Cut(s, ":")
	var r Reply
	var err error
	switch kind {
	case "text":
		r = Text(arg)
	case "shell":
		r = Shell(arg, "Done.")
	case "status":
		var code int
		code, err = strconv.Atoi(arg)
		r = Status(code)
	case "ratelimit", "limit":
		var d time.Duration
		d, err = time.ParseDuration(arg)
		r = RateLimited(d)
		if kind == "limit" {
			r = UsageLimit(time.Now().Add(d))
		}
	case "overloaded":
		r = Overloaded()
	case "hang":
		r = Hang()
	default:
		err = fmt.Errorf("unknown kind %q", kind)
	}
	if err != nil {
		return Reply{}, fmt.Errorf("reply %q: %w", s, err)
	}
	return r.After(delay), nil
}

// Down closes the server and holds its port while it is down: a socket
// bound to the address and not listening, so that a client's connection
// is refused, as by a server that is down, and no other server started
// meanwhile on a free port (tests run at once) is given this one. Up
// releases the port and starts a server answering script there.
func (s *Server) Down() (up func(Script) (*Server, error), err error) {
	addr := strings.TrimPrefix(s.URL, "http://")
	s.Close()
	hold, err := holdPort(addr)
	if err != nil {
		return nil, err
	}
	return func(script Script) (*Server, error) {
		syscall.Close(hold)
		return Listen(addr, script)
	}, nil
}

// holdPort binds a TCP socket to addr without listening on it.
func holdPort(addr string) (int, error) {
	tcp, err := net.ResolveTCPAddr("tcp4", addr)
	if err != nil {
		return -1, err
	}
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	// As the listener had it: the connections it closed wait out TIME_WAIT
	// on this port.
	syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1)
	sa := &syscall.SockaddrInet4{Port: tcp.Port}
	copy(sa.Addr[:], tcp.IP.To4())
	if err := syscall.Bind(fd, sa); err != nil {
		syscall.Close(fd)
		return -1, fmt.Errorf("holding %s: %w", addr, err)
	}
	return fd, nil
}
