package modelserver

import (
	"slices"
	"strings"
)

// tool is a function a CLI offers the model: its name and the JSON schema
// of its arguments.
type tool struct {
	name   string
	schema obj
}

// call is a tool call the server answers with.
type call struct {
	name string
	args obj
}

// shellNames are the names the CLIs give their shell tools, best first.
var shellNames = []string{"bash", "shell", "run_shell_command", "exec_command", "shell_command"}

// shellTool finds the shell-like tool among those offered: one with a known
// name, else the first whose arguments include a command.
func shellTool(tools []tool) (tool, bool) {
	for _, name := range shellNames {
		if i := slices.IndexFunc(tools, func(t tool) bool { return strings.EqualFold(t.name, name) }); i >= 0 {
			return tools[i], true
		}
	}
	for _, t := range tools {
		props := properties(t.schema)
		if props["command"] != nil || props["cmd"] != nil {
			return t, true
		}
	}
	return tool{}, false
}

// shellArguments shapes the arguments of a call running command from the
// tool's schema: the command goes where the schema wants it (a string, or an
// argument list for sh -c), and every other required argument gets a plain
// value of its type.
func shellArguments(t tool, command string) obj {
	props := properties(t.schema)
	args := obj{}
	for _, key := range []string{"command", "cmd"} {
		p, ok := props[key].(obj)
		if !ok {
			continue
		}
		if typeOf(p) == "array" {
			args[key] = []string{"sh", "-c", command}
		} else {
			args[key] = command
		}
		break
	}
	if _, ok := props["description"]; ok {
		args["description"] = "Run the scripted command"
	}
	for _, key := range required(t.schema) {
		if _, done := args[key]; !done {
			args[key] = plainValue(key, props[key])
		}
	}
	return args
}

// plainValue is a harmless value for a required argument of a schema.
func plainValue(key string, schema any) any {
	p, _ := schema.(obj)
	if enum, ok := p["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	if def, ok := p["default"]; ok {
		return def
	}
	switch typeOf(p) {
	case "boolean":
		return false
	case "integer", "number":
		if strings.Contains(strings.ToLower(key), "timeout") {
			return 60000
		}
		return 0
	case "array":
		return []any{}
	case "object":
		return obj{}
	}
	return ""
}

// properties are a schema's properties, whichever case the API spells the
// schema in.
func properties(schema obj) obj {
	p, _ := schema["properties"].(obj)
	return p
}

func required(schema obj) []string {
	var keys []string
	list, _ := schema["required"].([]any)
	for _, k := range list {
		if s, ok := k.(string); ok {
			keys = append(keys, s)
		}
	}
	return keys
}

// typeOf is a schema's type in lower case (Gemini writes STRING, ARRAY),
// the first one when it lists several.
func typeOf(schema obj) string {
	switch t := schema["type"].(type) {
	case string:
		return strings.ToLower(t)
	case []any:
		for _, v := range t {
			if s, ok := v.(string); ok && s != "null" {
				return strings.ToLower(s)
			}
		}
	}
	return ""
}
