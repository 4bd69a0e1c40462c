package modelserver

import (
	"encoding/json"
	"net/http"
	"slices"
)

// geminiRequest is the part of a generateContent request the server reads.
type geminiRequest struct {
	Contents []struct {
		Role  string `json:"role"`
		Parts []struct {
			Text             *string `json:"text"`
			FunctionResponse any     `json:"functionResponse"`
		} `json:"parts"`
	} `json:"contents"`
	Tools []struct {
		FunctionDeclarations []struct {
			Name                 string `json:"name"`
			Parameters           obj    `json:"parameters"`
			ParametersJSONSchema obj    `json:"parametersJsonSchema"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseMimeType   string `json:"responseMimeType"`
		ResponseJSONSchema obj    `json:"responseJsonSchema"`
		ResponseSchema     obj    `json:"responseSchema"`
	} `json:"generationConfig"`
}

func decodeGemini(body []byte) (incoming, error) {
	var r geminiRequest
	if err := json.Unmarshal(body, &r); err != nil {
		return incoming{}, err
	}
	in := incoming{json: r.GenerationConfig.ResponseMimeType == "application/json"}
	var texts []string
	for i, c := range r.Contents {
		if c.Role != "user" && c.Role != "" {
			continue
		}
		for _, p := range c.Parts {
			if p.Text != nil {
				texts = append(texts, *p.Text)
			}
			if p.FunctionResponse != nil && i == len(r.Contents)-1 {
				in.toolResult = true
			}
		}
	}
	in.prompt = promptOf(texts)
	for _, t := range r.Tools {
		for _, f := range t.FunctionDeclarations {
			in.tools = append(in.tools, tool{f.Name, cmpOr(f.ParametersJSONSchema, f.Parameters)})
		}
	}
	if in.json {
		in.schema = cmpOr(r.GenerationConfig.ResponseJSONSchema, r.GenerationConfig.ResponseSchema)
	}
	return in, nil
}

// cmpOr is the first schema that is not empty.
func cmpOr(schemas ...obj) obj {
	for _, s := range schemas {
		if len(s) > 0 {
			return s
		}
	}
	return nil
}

func encodeGemini(w http.ResponseWriter, a answer) {
	u := a.reply.usage()
	body := obj{
		"candidates": []obj{{
			"content":      obj{"role": "model", "parts": []obj{geminiPart(a)}},
			"finishReason": "STOP",
			"index":        0,
		}},
		"usageMetadata": obj{
			"promptTokenCount":        u.Input,
			"candidatesTokenCount":    u.Output,
			"cachedContentTokenCount": u.Cached,
			"totalTokenCount":         u.Input + u.Output,
		},
		"modelVersion": "modelserver",
	}
	if !a.stream {
		writeJSON(w, http.StatusOK, body)
		return
	}
	newSSE(w).event("", body)
}

// geminiPart is the answer's one part: a function call, the JSON a side
// call asked for, or the text.
func geminiPart(a answer) obj {
	if c, ok := a.toolCall(); ok {
		return obj{"functionCall": obj{"name": c.name, "args": c.args}}
	}
	if a.in.json {
		j, _ := json.Marshal(exampleOf(a.in.schema))
		return obj{"text": string(j)}
	}
	return obj{"text": a.reply.Text}
}

// exampleOf is a value that fits a JSON schema, for the side calls gemini
// makes with a schema of their own (its model router, its next-speaker
// check). Where an enum offers "user", it is chosen: the user, not the
// model, speaks next, so the CLI does not go on by itself.
func exampleOf(schema obj) any {
	if enum, ok := schema["enum"].([]any); ok && len(enum) > 0 {
		if slices.Contains(enum, any("user")) {
			return "user"
		}
		return enum[0]
	}
	switch typeOf(schema) {
	case "object":
		v := obj{}
		for k, p := range properties(schema) {
			ps, _ := p.(obj)
			v[k] = exampleOf(ps)
		}
		return v
	case "array":
		return []any{}
	case "integer", "number":
		return 1
	case "boolean":
		return false
	}
	return "scripted by the model server"
}
