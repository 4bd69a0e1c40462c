package modelserver

import (
	"encoding/json"
	"net/http"
	"slices"
)

// anthropicRequest is the part of a Messages request the server reads.
type anthropicRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name        string `json:"name"`
		InputSchema obj    `json:"input_schema"`
	} `json:"tools"`
}

// block is a content block of Anthropic's (and, with other names, of the
// other APIs' message parts).
type block struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

func decodeAnthropic(body []byte) (incoming, error) {
	var r anthropicRequest
	if err := json.Unmarshal(body, &r); err != nil {
		return incoming{}, err
	}
	in := incoming{stream: r.Stream, model: r.Model}
	var texts []string
	for i, m := range r.Messages {
		if m.Role != "user" {
			continue
		}
		texts = append(texts, textsOf(m.Content, "text")...)
		if i == len(r.Messages)-1 {
			in.toolResult = hasBlock(contentBlocks(m.Content), "tool_result")
		}
	}
	in.prompt = promptOf(texts)
	for _, t := range r.Tools {
		in.tools = append(in.tools, tool{t.Name, t.InputSchema})
	}
	return in, nil
}

// contentBlocks reads a content that is a string or a list of blocks.
func contentBlocks(raw json.RawMessage) []block {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return []block{{Type: "text", Text: text}}
	}
	var blocks []block
	json.Unmarshal(raw, &blocks)
	return blocks
}

// textsOf are the texts of a content's blocks of the given types.
func textsOf(content json.RawMessage, types ...string) []string {
	var texts []string
	for _, b := range contentBlocks(content) {
		if slices.Contains(types, b.Type) {
			texts = append(texts, b.Text)
		}
	}
	return texts
}

func hasBlock(blocks []block, kind string) bool {
	for _, b := range blocks {
		if b.Type == kind {
			return true
		}
	}
	return false
}

func anthropicUsage(u Usage) obj {
	return obj{
		"input_tokens":                u.Input,
		"output_tokens":               u.Output,
		"cache_read_input_tokens":     u.Cached,
		"cache_creation_input_tokens": 0,
	}
}

func encodeAnthropic(w http.ResponseWriter, a answer) {
	if a.in.countTokens {
		writeJSON(w, http.StatusOK, obj{"input_tokens": a.reply.usage().Input})
		return
	}
	content, stop := anthropicContent(a)
	message := obj{
		"id": newID("msg"), "type": "message", "role": "assistant", "model": a.in.model,
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": anthropicUsage(a.reply.usage()),
	}
	if !a.stream {
		writeJSON(w, http.StatusOK, message)
		return
	}
	e := newSSE(w)
	start := obj{}
	for k, v := range message {
		start[k] = v
	}
	start["content"], start["stop_reason"] = []any{}, nil
	e.event("message_start", obj{"type": "message_start", "message": start})
	for i, c := range content {
		streamAnthropicBlock(e, i, c)
	}
	e.event("message_delta", obj{
		"type":  "message_delta",
		"delta": obj{"stop_reason": stop, "stop_sequence": nil},
		"usage": obj{"output_tokens": a.reply.usage().Output},
	})
	e.event("message_stop", obj{"type": "message_stop"})
}

// anthropicContent is the answer's content blocks and its stop reason.
func anthropicContent(a answer) ([]obj, string) {
	if c, ok := a.toolCall(); ok {
		return []obj{{"type": "tool_use", "id": newID("toolu"), "name": c.name, "input": c.args}}, "tool_use"
	}
	return []obj{{"type": "text", "text": a.reply.Text}}, "end_turn"
}

// streamAnthropicBlock streams one block: its start with an empty body, the
// body as one delta, its stop.
func streamAnthropicBlock(e sse, index int, c obj) {
	empty, delta := obj{}, obj{}
	for k, v := range c {
		empty[k] = v
	}
	if c["type"] == "tool_use" {
		input, _ := json.Marshal(c["input"])
		empty["input"] = obj{}
		delta = obj{"type": "input_json_delta", "partial_json": string(input)}
	} else {
		empty["text"] = ""
		delta = obj{"type": "text_delta", "text": c["text"]}
	}
	e.event("content_block_start", obj{"type": "content_block_start", "index": index, "content_block": empty})
	e.event("content_block_delta", obj{"type": "content_block_delta", "index": index, "delta": delta})
	e.event("content_block_stop", obj{"type": "content_block_stop", "index": index})
}
