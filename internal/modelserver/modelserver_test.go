package modelserver

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// prompt is what the tests send as the user's text: its trailing newline
// and inner blank line must arrive as they are.
const prompt = "Build it.\n\n<promise>?</promise>\n"

// post sends a JSON body and returns the status, the headers and the body.
func post(t *testing.T, s *Server, path, body string) (int, http.Header, string) {
	t.Helper()
	resp, err := http.Post(s.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

// event is one server-sent event, its data decoded.
type event struct {
	name string
	data map[string]any
}

// events reads a stream of server-sent events; "[DONE]" is an event named so.
func events(t *testing.T, stream string) []event {
	t.Helper()
	var list []event
	for _, chunk := range strings.Split(strings.TrimSpace(stream), "\n\n") {
		var e event
		for _, line := range strings.Split(chunk, "\n") {
			if name, ok := strings.CutPrefix(line, "event: "); ok {
				e.name = name
			} else if data, ok := strings.CutPrefix(line, "data: "); ok {
				if data == "[DONE]" {
					e.name = "[DONE]"
				} else if err := json.Unmarshal([]byte(data), &e.data); err != nil {
					t.Fatalf("event %q: %v", chunk, err)
				}
			}
		}
		list = append(list, e)
	}
	return list
}

func names(list []event) []string {
	var n []string
	for _, e := range list {
		n = append(n, e.name)
	}
	return n
}

// get follows a path of keys and indexes into decoded JSON.
func get(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	return v
}

func quoted(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// checkLog checks the server's log: each request's API, reply, tool result
// and the prompt, byte for byte.
func checkLog(t *testing.T, s *Server, api API, replies []int, toolResults []bool) {
	t.Helper()
	log := s.Requests()
	if len(log) != len(replies) {
		t.Fatalf("%d requests logged, want %d: %+v", len(log), len(replies), log)
	}
	for i, r := range log {
		if r.API != api || r.Reply != replies[i] || r.ToolResult != toolResults[i] || r.Prompt != prompt {
			t.Errorf("request %d: API %s, reply %d, tool result %v, prompt %q; want %s, %d, %v, %q",
				i, r.API, r.Reply, r.ToolResult, r.Prompt, api, replies[i], toolResults[i], prompt)
		}
	}
}

var bashTool = `{"name":"Bash","input_schema":{"type":"object","properties":{"command":{"type":"string"},"description":{"type":"string"},"timeout":{"type":"number"}},"required":["command"]}}`

func TestAnthropicStreamsAToolCallThenTheFinalText(t *testing.T) {
	s := Start(t, Script{Shell("echo hi > f", "done <promise>SUCCESS</promise>").WithUsage(Usage{Input: 7, Output: 5, Cached: 3})})
	first := `{"model":"claude-x","stream":true,"tools":[` + bashTool + `],"messages":[{"role":"user","content":[` +
		`{"type":"text","text":"<system-reminder>\nskills\n</system-reminder>"},{"type":"text","text":` + quoted(prompt) + `}]}]}`
	status, header, body := post(t, s, "/v1/messages?beta=true", first)
	if status != 200 || header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, %v", status, header)
	}
	list := events(t, body)
	want := []string{"message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"}
	if !reflect.DeepEqual(names(list), want) {
		t.Fatalf("events %v, want %v", names(list), want)
	}
	if get(list[1].data, "content_block", "type") != "tool_use" || get(list[1].data, "content_block", "name") != "Bash" {
		t.Errorf("block start %v", list[1].data)
	}
	args := decode(t, get(list[2].data, "delta", "partial_json").(string))
	if args["command"] != "echo hi > f" || args["description"] == nil || args["timeout"] != nil {
		t.Errorf("arguments %v", args)
	}
	if get(list[4].data, "delta", "stop_reason") != "tool_use" || get(list[4].data, "usage", "output_tokens") != 5.0 {
		t.Errorf("message_delta %v", list[4].data)
	}
	if get(list[0].data, "message", "usage", "input_tokens") != 7.0 || get(list[0].data, "message", "usage", "cache_read_input_tokens") != 3.0 {
		t.Errorf("message_start %v", list[0].data)
	}

	second := `{"model":"claude-x","stream":true,"tools":[` + bashTool + `],"messages":[{"role":"user","content":[{"type":"text","text":` + quoted(prompt) + `}]},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"},{"type":"text","text":"<system-reminder>\nlater\n</system-reminder>"}]}]}`
	_, _, body = post(t, s, "/v1/messages?beta=true", second)
	list = events(t, body)
	if get(list[2].data, "delta", "text") != "done <promise>SUCCESS</promise>" || get(list[4].data, "delta", "stop_reason") != "end_turn" {
		t.Errorf("final events %v", list)
	}
	checkLog(t, s, Anthropic, []int{0, 0}, []bool{false, true})
}

func TestAnthropicWithoutStreamingAndCountTokens(t *testing.T) {
	s := Start(t, Script{Text("plain")})
	_, _, body := post(t, s, "/v1/messages/count_tokens", `{"model":"m","tools":[`+bashTool+`],"messages":[{"role":"user","content":`+quoted(prompt)+`}]}`)
	if decode(t, body)["input_tokens"] != float64(DefaultUsage.Input) {
		t.Errorf("count_tokens %s", body)
	}
	_, _, body = post(t, s, "/v1/messages", `{"model":"m","tools":[`+bashTool+`],"messages":[{"role":"user","content":`+quoted(prompt)+`}]}`)
	m := decode(t, body)
	if get(m, "content", 0, "text") != "plain" || m["stop_reason"] != "end_turn" || get(m, "usage", "output_tokens") != float64(DefaultUsage.Output) {
		t.Errorf("message %s", body)
	}
	checkLog(t, s, Anthropic, []int{-1, 0}, []bool{false, false})
}

func TestResponsesStreamsAFunctionCallThenTheFinalText(t *testing.T) {
	s := Start(t, Script{Shell("echo hi > f", "done")})
	tools := `"tools":[{"type":"function","name":"exec_command","parameters":{"type":"object","properties":{"cmd":{"type":"string"},"yield_time_ms":{"type":"number"}},"required":["cmd"]}}]`
	input := `{"type":"message","role":"developer","content":[{"type":"input_text","text":"rules"}]},` +
		`{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n</environment_context>"}]},` +
		`{"type":"message","role":"user","content":[{"type":"input_text","text":` + quoted(prompt) + `}]}`
	_, _, body := post(t, s, "/v1/responses", `{"model":"gpt","stream":true,`+tools+`,"input":[`+input+`]}`)
	list := events(t, body)
	want := []string{"response.created", "response.in_progress", "response.output_item.added",
		"response.function_call_arguments.done", "response.output_item.done", "response.completed"}
	if !reflect.DeepEqual(names(list), want) {
		t.Fatalf("events %v, want %v", names(list), want)
	}
	item := list[4].data["item"]
	if get(item, "type") != "function_call" || get(item, "name") != "exec_command" || get(item, "call_id") == nil {
		t.Errorf("item %v", item)
	}
	if args := decode(t, get(item, "arguments").(string)); args["cmd"] != "echo hi > f" {
		t.Errorf("arguments %v", args)
	}
	usage := get(list[5].data, "response", "usage")
	if get(usage, "input_tokens") != float64(DefaultUsage.Input) || get(usage, "input_tokens_details", "cached_tokens") != float64(DefaultUsage.Cached) {
		t.Errorf("usage %v", usage)
	}

	input += `,{"type":"function_call","call_id":"c1","name":"exec_command","arguments":"{}"},{"type":"function_call_output","call_id":"c1","output":"ok"}`
	_, _, body = post(t, s, "/v1/responses", `{"model":"gpt","stream":true,`+tools+`,"input":[`+input+`]}`)
	list = events(t, body)
	if get(list[3].data, "delta") != "done" || get(list[len(list)-1].data, "response", "output", 0, "content", 0, "text") != "done" {
		t.Errorf("final events %v", list)
	}
	checkLog(t, s, Responses, []int{0, 0}, []bool{false, true})
}

func TestChatStreamsToolCallsThenTheFinalText(t *testing.T) {
	s := Start(t, Script{Shell("echo hi > f", "done")})
	tools := `"tools":[{"type":"function","function":{"name":"bash","parameters":{"type":"object","properties":{"command":{"type":"string"},"description":{"type":"string"}},"required":["command","description"]}}}]`
	messages := `{"role":"system","content":"rules"},{"role":"user","content":[{"type":"text","text":"<current_datetime>2026-11-23T12:00:00Z</current_datetime>\n\n` + strings.Trim(quoted(prompt), `"`) + `"}]}`
	_, _, body := post(t, s, "/v1/chat/completions", `{"model":"m","stream":true,`+tools+`,"messages":[`+messages+`]}`)
	list := events(t, body)
	if len(list) != 3 || list[2].name != "[DONE]" {
		t.Fatalf("events %v", list)
	}
	call := get(list[0].data, "choices", 0, "delta", "tool_calls", 0)
	if get(call, "function", "name") != "bash" || get(call, "index") != 0.0 || get(call, "id") == nil {
		t.Errorf("tool call %v", call)
	}
	if args := decode(t, get(call, "function", "arguments").(string)); args["command"] != "echo hi > f" || args["description"] == "" {
		t.Errorf("arguments %v", args)
	}
	if get(list[1].data, "choices", 0, "finish_reason") != "tool_calls" || get(list[1].data, "usage", "prompt_tokens_details", "cached_tokens") != float64(DefaultUsage.Cached) {
		t.Errorf("last chunk %v", list[1].data)
	}

	messages += `,{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"ok"}`
	_, _, body = post(t, s, "/v1/chat/completions", `{"model":"m","stream":true,`+tools+`,"messages":[`+messages+`]}`)
	list = events(t, body)
	if get(list[0].data, "choices", 0, "delta", "content") != "done" || get(list[1].data, "choices", 0, "finish_reason") != "stop" {
		t.Errorf("final events %v", list)
	}
	_, _, body = post(t, s, "/v1/chat/completions", `{"model":"m","messages":[`+messages+`]}`)
	if m := decode(t, body); get(m, "choices", 0, "message", "content") != "OK" {
		t.Errorf("a title request without tools: %s", body)
	}
	checkLog(t, s, Chat, []int{0, 0, -1}, []bool{false, true, true})
}

func TestGeminiStreamsAFunctionCallAndAnswersTheRouter(t *testing.T) {
	s := Start(t, Script{Shell("echo hi > f", "done")})
	tools := `"tools":[{"functionDeclarations":[{"name":"run_shell_command","parametersJsonSchema":{"type":"object","properties":{"command":{"type":"string"},"dir_path":{"type":"string"}},"required":["command"]}}]}]`
	contents := `{"role":"user","parts":[{"text":"This is the Gemini CLI. We are setting up the context."}]},{"role":"model","parts":[{"text":"Got it."}]},{"role":"user","parts":[{"text":` + quoted(prompt) + `}]}`
	router := `{"contents":[` + contents + `],"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"object","properties":{"complexity_reasoning":{"type":"string"},"complexity_score":{"type":"integer"}}}}}`
	_, _, body := post(t, s, "/v1beta/models/flash-lite:generateContent", router)
	routed := decode(t, get(decode(t, body), "candidates", 0, "content", "parts", 0, "text").(string))
	if routed["complexity_score"] != 1.0 || routed["complexity_reasoning"] == nil {
		t.Errorf("router answer %s", body)
	}
	_, header, body := post(t, s, "/v1beta/models/flash:streamGenerateContent?alt=sse", `{"contents":[`+contents+`],`+tools+`}`)
	list := events(t, body)
	if header.Get("Content-Type") != "text/event-stream" || len(list) != 1 {
		t.Fatalf("stream %v: %s", header, body)
	}
	fc := get(list[0].data, "candidates", 0, "content", "parts", 0, "functionCall")
	if get(fc, "name") != "run_shell_command" || get(fc, "args", "command") != "echo hi > f" || get(fc, "args", "dir_path") != nil {
		t.Errorf("function call %v", fc)
	}
	if get(list[0].data, "usageMetadata", "cachedContentTokenCount") != float64(DefaultUsage.Cached) {
		t.Errorf("usage %v", list[0].data)
	}
	contents += `,{"role":"model","parts":[{"functionCall":{"name":"run_shell_command","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"run_shell_command","response":{"output":"ok"}}}]}`
	_, _, body = post(t, s, "/v1beta/models/flash:generateContent", `{"contents":[`+contents+`],`+tools+`}`)
	if get(decode(t, body), "candidates", 0, "content", "parts", 0, "text") != "done" {
		t.Errorf("final answer %s", body)
	}
	checkLog(t, s, Gemini, []int{-1, 0, 0}, []bool{false, false, true})
}

// chatTurn is a Chat Completions request offering a shell tool.
const chatTurn = `{"model":"m","tools":[{"type":"function","function":{"name":"bash","parameters":{"type":"object","properties":{"command":{"type":"string"}}}}}],"messages":[{"role":"user","content":"go"}]}`

func TestScriptIsTakenInTurnAndItsLastReplyRepeats(t *testing.T) {
	s := Start(t, Script{Status(401), Text("one"), Text("two")})
	var got []string
	for range 4 {
		status, _, body := post(t, s, "/v1/chat/completions", chatTurn)
		text, _ := get(decode(t, body), "choices", 0, "message", "content").(string)
		got = append(got, strconv.Itoa(status)+" "+text)
	}
	if want := []string{"401 ", "200 one", "200 two", "200 two"}; !reflect.DeepEqual(got, want) {
		t.Errorf("answers %v, want %v", got, want)
	}
	if turns := s.Turns(); len(turns) != 4 || turns[3].Reply != 2 || turns[0].Status != 401 {
		t.Errorf("turns %+v", turns)
	}
}

func TestErrorsInEachAPIsShape(t *testing.T) {
	reset := time.Now().Add(90 * time.Second).Truncate(time.Second)
	turns := map[API]struct{ path, body string }{
		Anthropic: {"/v1/messages", `{"tools":[` + bashTool + `],"messages":[{"role":"user","content":"go"}]}`},
		Responses: {"/v1/responses", `{"tools":[{"type":"function","name":"shell"}],"input":"go"}`},
		Chat:      {"/v1/chat/completions", chatTurn},
		Gemini:    {"/v1beta/models/m:generateContent", `{"tools":[{"functionDeclarations":[{"name":"run_shell_command"}]}],"contents":[{"role":"user","parts":[{"text":"go"}]}]}`},
	}
	cases := []struct {
		reply       Reply
		api         API
		status      int
		retryAfter  string
		field, want string // a dotted path in the body and its value
	}{
		{Status(401), Anthropic, 401, "", "error.type", "authentication_error"},
		{Status(401), Responses, 401, "", "error.code", "invalid_api_key"},
		{Status(401), Gemini, 401, "", "error.status", "UNAUTHENTICATED"},
		{RateLimited(3 * time.Second), Anthropic, 429, "3", "error.type", "rate_limit_error"},
		{RateLimited(3 * time.Second), Chat, 429, "3", "error.code", "rate_limit_exceeded"},
		{RateLimited(3 * time.Second), Gemini, 429, "3", "error.details.0.retryDelay", "3s"},
		{Status(429), Anthropic, 429, "", "error.message", "Number of requests has exceeded your rate limit"},
		{Status(429), Responses, 429, "", "error.message", "Rate limit reached. Please try again later."},
		{Status(429), Gemini, 429, "", "error.message", "Resource has been exhausted (e.g. check quota)."},
		{Overloaded(), Anthropic, 529, "", "error.type", "overloaded_error"},
		{Overloaded(), Responses, 503, "", "error.code", "server_is_overloaded"},
		{Overloaded(), Gemini, 503, "", "error.status", "UNAVAILABLE"},
		{UsageLimit(reset), Anthropic, 429, "", "error.type", "rate_limit_error"},
		{UsageLimit(reset), Responses, 429, "", "error.resets_at", strconv.FormatInt(reset.Unix(), 10)},
		{UsageLimit(reset), Gemini, 429, "", "error.details.0.@type", "type.googleapis.com/google.rpc.QuotaFailure"},
	}
	for _, c := range cases {
		s := Start(t, Script{c.reply})
		status, header, body := post(t, s, turns[c.api].path, turns[c.api].body)
		named := header.Get("retry-after") != "" // a limit that names no time has none
		if status != c.status || (c.retryAfter != "" && header.Get("retry-after") != c.retryAfter) || (c.reply.wait() == 0 && named) {
			t.Errorf("%s %+v: status %d, retry-after %q", c.api, c.reply, status, header.Get("retry-after"))
		}
		var v any = decode(t, body)
		for _, k := range strings.Split(c.field, ".") {
			if i, err := strconv.Atoi(k); err == nil {
				v = get(v, i)
			} else {
				v = get(v, k)
			}
		}
		if got := strings.Trim(jsonText(v), `"`); got != c.want {
			t.Errorf("%s %+v: %s is %s, want %s in %s", c.api, c.reply, c.field, got, c.want, body)
		}
		if !c.reply.ResetAt.IsZero() {
			wait, _ := strconv.Atoi(header.Get("retry-after"))
			if wait < 80 || wait > 91 {
				t.Errorf("%s usage limit: retry-after %q", c.api, header.Get("retry-after"))
			}
			if c.api == Anthropic && (header.Get("anthropic-ratelimit-unified-status") != "rejected" ||
				header.Get("anthropic-ratelimit-unified-reset") != strconv.FormatInt(reset.Unix(), 10)) {
				t.Errorf("claude's usage limit headers: %v", header)
			}
		}
	}
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestDelayAndHang(t *testing.T) {
	s := Start(t, Script{Text("late").After(300 * time.Millisecond), Hang()})
	start := time.Now()
	if status, _, _ := post(t, s, "/v1/chat/completions", chatTurn); status != 200 || time.Since(start) < 300*time.Millisecond {
		t.Errorf("delayed reply: status %d after %s", status, time.Since(start))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/v1/chat/completions", strings.NewReader(chatTurn))
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Errorf("a hang answered %d", resp.StatusCode)
	}
	// A request still held must not hold up Close.
	go http.Post(s.URL+"/v1/chat/completions", "application/json", strings.NewReader(chatTurn))
	time.Sleep(100 * time.Millisecond)
	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close waited for a hung request")
	}
}

func TestUnknownPathsAreLoggedAndNotFound(t *testing.T) {
	s := Start(t, nil)
	if status, _, _ := post(t, s, "/v1/models", "{}"); status != 404 {
		t.Errorf("status %d", status)
	}
	if log := s.Requests(); len(log) != 1 || log[0].Path != "/v1/models" || log[0].Status != 404 || log[0].Reply != -1 {
		t.Errorf("log %+v", log)
	}
}

func TestShellArgumentsFollowTheSchema(t *testing.T) {
	schema := func(s string) obj { return decode(t, s) }
	cases := []struct {
		schema string
		want   string
	}{
		{`{"properties":{"command":{"type":"string"}}}`, `{"command":"x"}`},
		{`{"properties":{"command":{"type":"array","items":{"type":"string"}},"workdir":{"type":"string"}}}`, `{"command":["sh","-c","x"]}`},
		{`{"properties":{"cmd":{"type":"STRING"}}}`, `{"cmd":"x"}`},
		{`{"properties":{"command":{"type":"string"},"mode":{"enum":["sync","async"]},"async":{"type":"boolean"},"timeout_ms":{"type":"integer"}},"required":["command","mode","async","timeout_ms"]}`,
			`{"async":false,"command":"x","mode":"sync","timeout_ms":60000}`},
	}
	for _, c := range cases {
		if got := jsonText(shellArguments(tool{"t", schema(c.schema)}, "x")); got != c.want {
			t.Errorf("%s: %s, want %s", c.schema, got, c.want)
		}
	}
	offered := []tool{{"view", schema(`{"properties":{"path":{}}}`)}, {"runner", schema(`{"properties":{"cmd":{}}}`)}, {"Bash", nil}}
	if got, _ := shellTool(offered); got.name != "Bash" {
		t.Errorf("picked %s, want Bash by name", got.name)
	}
	if got, _ := shellTool(offered[:2]); got.name != "runner" {
		t.Errorf("picked %s, want runner by its cmd argument", got.name)
	}
	if _, ok := shellTool(offered[:1]); ok {
		t.Error("picked a tool that runs nothing")
	}
}

func TestParseReply(t *testing.T) {
	cases := map[string]Reply{
		"text:a:b":        Text("a:b"),
		"shell:touch f":   Shell("touch f", "Done."),
		"status:401":      Status(401),
		"ratelimit:2s@1s": RateLimited(2 * time.Second).After(time.Second),
		"overloaded":      Overloaded(),
		"hang":            Hang(),
		"text:mail a@b":   Text("mail a@b"),
	}
	for in, want := range cases {
		if got, err := ParseReply(in); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %+v, %v; want %+v", in, got, err, want)
		}
	}
	if r, err := ParseReply("limit:1h"); err != nil || time.Until(r.ResetAt) < 59*time.Minute {
		t.Errorf("limit: %+v, %v", r, err)
	}
	for _, bad := range []string{"nothing", "status:x", "limit:soon"} {
		if _, err := ParseReply(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
