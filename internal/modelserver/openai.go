package modelserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// responsesRequest is the part of a Responses request the server reads.
type responsesRequest struct {
	Model  string          `json:"model"`
	Stream bool            `json:"stream"`
	Input  json.RawMessage `json:"input"`
	Tools  []struct {
		Type       string `json:"type"`
		Name       string `json:"name"`
		Parameters obj    `json:"parameters"`
	} `json:"tools"`
}

// responsesItem is an item of a Responses input.
type responsesItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

func decodeResponses(body []byte) (incoming, error) {
	var r responsesRequest
	if err := json.Unmarshal(body, &r); err != nil {
		return incoming{}, err
	}
	in := incoming{stream: r.Stream, model: r.Model}
	var items []responsesItem
	var text string
	if json.Unmarshal(r.Input, &text) == nil {
		items = []responsesItem{{Type: "message", Role: "user", Content: r.Input}}
	} else if err := json.Unmarshal(r.Input, &items); err != nil {
		return incoming{}, err
	}
	var texts []string
	for _, it := range items {
		if it.Role == "user" {
			texts = append(texts, textsOf(it.Content, "input_text", "text")...)
		}
	}
	if len(items) > 0 {
		in.toolResult = strings.HasSuffix(items[len(items)-1].Type, "_output")
	}
	in.prompt = promptOf(texts)
	for _, t := range r.Tools {
		if t.Type == "function" {
			in.tools = append(in.tools, tool{t.Name, t.Parameters})
		}
	}
	return in, nil
}

func responsesUsage(u Usage) obj {
	return obj{
		"input_tokens":          u.Input,
		"input_tokens_details":  obj{"cached_tokens": u.Cached},
		"output_tokens":         u.Output,
		"output_tokens_details": obj{"reasoning_tokens": 0},
		"total_tokens":          u.Input + u.Output,
	}
}

func encodeResponses(w http.ResponseWriter, a answer) {
	item := responsesOutput(a)
	response := obj{
		"id": newID("resp"), "object": "response", "created_at": time.Now().Unix(),
		"model": a.in.model, "status": "completed", "output": []obj{item},
		"usage": responsesUsage(a.reply.usage()),
	}
	if !a.stream {
		writeJSON(w, http.StatusOK, response)
		return
	}
	e := newSSE(w)
	created := obj{"id": response["id"], "object": "response", "created_at": response["created_at"],
		"model": a.in.model, "status": "in_progress", "output": []obj{}}
	e.event("response.created", obj{"type": "response.created", "response": created})
	e.event("response.in_progress", obj{"type": "response.in_progress", "response": created})
	added := obj{}
	for k, v := range item {
		added[k] = v
	}
	added["status"] = "in_progress"
	if item["type"] == "message" {
		added["content"] = []obj{}
	} else {
		added["arguments"] = ""
	}
	e.event("response.output_item.added", obj{"type": "response.output_item.added", "output_index": 0, "item": added})
	if item["type"] == "message" {
		e.event("response.output_text.delta", obj{"type": "response.output_text.delta",
			"item_id": item["id"], "output_index": 0, "content_index": 0, "delta": a.reply.Text})
		e.event("response.output_text.done", obj{"type": "response.output_text.done",
			"item_id": item["id"], "output_index": 0, "content_index": 0, "text": a.reply.Text})
	} else {
		e.event("response.function_call_arguments.done", obj{"type": "response.function_call_arguments.done",
			"item_id": item["id"], "output_index": 0, "arguments": item["arguments"]})
	}
	e.event("response.output_item.done", obj{"type": "response.output_item.done", "output_index": 0, "item": item})
	e.event("response.completed", obj{"type": "response.completed", "response": response})
}

// responsesOutput is the answer's one output item: a message or a function call.
func responsesOutput(a answer) obj {
	if c, ok := a.toolCall(); ok {
		args, _ := json.Marshal(c.args)
		return obj{"type": "function_call", "id": newID("fc"), "call_id": newID("call"),
			"name": c.name, "arguments": string(args), "status": "completed"}
	}
	return obj{"type": "message", "id": newID("msg"), "role": "assistant", "status": "completed",
		"content": []obj{{"type": "output_text", "text": a.reply.Text, "annotations": []any{}}}}
}

// chatRequest is the part of a Chat Completions request the server reads.
type chatRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name       string `json:"name"`
			Parameters obj    `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
}

func decodeChat(body []byte) (incoming, error) {
	var r chatRequest
	if err := json.Unmarshal(body, &r); err != nil {
		return incoming{}, err
	}
	in := incoming{stream: r.Stream, model: r.Model}
	var texts []string
	for _, m := range r.Messages {
		if m.Role == "user" {
			texts = append(texts, textsOf(m.Content, "text")...)
		}
	}
	if n := len(r.Messages); n > 0 {
		in.toolResult = r.Messages[n-1].Role == "tool"
	}
	in.prompt = promptOf(texts)
	for _, t := range r.Tools {
		in.tools = append(in.tools, tool{t.Function.Name, t.Function.Parameters})
	}
	return in, nil
}

func chatUsage(u Usage) obj {
	return obj{
		"prompt_tokens":         u.Input,
		"completion_tokens":     u.Output,
		"total_tokens":          u.Input + u.Output,
		"prompt_tokens_details": obj{"cached_tokens": u.Cached},
	}
}

func encodeChat(w http.ResponseWriter, a answer) {
	message, finish := chatMessage(a)
	id, created := newID("chatcmpl"), time.Now().Unix()
	if !a.stream {
		writeJSON(w, http.StatusOK, obj{"id": id, "object": "chat.completion", "created": created,
			"model": a.in.model, "usage": chatUsage(a.reply.usage()),
			"choices": []obj{{"index": 0, "message": message, "finish_reason": finish}}})
		return
	}
	e := newSSE(w)
	chunk := func(delta obj, finish any, usage any) obj {
		c := obj{"id": id, "object": "chat.completion.chunk", "created": created, "model": a.in.model,
			"choices": []obj{{"index": 0, "delta": delta, "finish_reason": finish}}}
		if usage != nil {
			c["usage"] = usage
		}
		return c
	}
	if calls, ok := message["tool_calls"].([]obj); ok {
		calls[0]["index"] = 0
		e.event("", chunk(obj{"role": "assistant", "tool_calls": calls}, nil, nil))
	} else {
		e.event("", chunk(obj{"role": "assistant", "content": message["content"]}, nil, nil))
	}
	e.event("", chunk(obj{}, finish, chatUsage(a.reply.usage())))
	e.event("", "[DONE]")
}

// chatMessage is the answer's assistant message and its finish reason.
func chatMessage(a answer) (obj, string) {
	if c, ok := a.toolCall(); ok {
		args, _ := json.Marshal(c.args)
		return obj{"role": "assistant", "content": nil, "tool_calls": []obj{{
			"id": newID("call"), "type": "function",
			"function": obj{"name": c.name, "arguments": string(args)},
		}}}, "tool_calls"
	}
	return obj{"role": "assistant", "content": a.reply.Text}, "stop"
}
