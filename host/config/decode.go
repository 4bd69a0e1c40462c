package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"rooda/host/prompt"
	"rooda/host/suggest"
)

// Decode reads one configuration file. src names the file as messages show
// it; dir is the absolute directory relative paths in it resolve against.
// Every problem is reported, each with its line and column.
func Decode(data []byte, src Source, dir string) (cfg *Config, err error) {
	defer func() {
		// yaml.v3 has panicked on hostile input before; a bad file must
		// still be an error, never a crash.
		if r := recover(); r != nil {
			cfg, err = nil, fmt.Errorf("%s: cannot parse YAML: %v", src.Name, r)
		}
	}()
	d := &decoder{src: src, dir: dir}
	root, err := d.parse(data)
	if err != nil {
		return nil, err
	}
	return d.config(root)
}

// config decodes a document's top node, nil for an empty file.
func (d *decoder) config(root *yaml.Node) (*Config, error) {
	cfg := newConfig()
	if root != nil {
		d.document(root, cfg)
	}
	if len(d.problems) > 0 {
		return nil, d.problems
	}
	return cfg, nil
}

type decoder struct {
	src      Source
	dir      string
	problems prompt.Problems
	// procedureKeys are the keys a procedure may hold, the same for every
	// one: listed at the first (the table may grow, in tests).
	procedureKeys []string
}

// parse returns the top node of the only document in data, or nil for an
// empty file.
func (d *decoder) parse(data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
		return nil, nil
	} else if err != nil {
		return nil, d.syntaxError(err, data)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: a configuration file holds one YAML document; found a second (remove the extra ---)", d.label())
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	return doc.Content[0], nil
}

// label is the file's name in messages.
func (d *decoder) label() string {
	if d.src.Name == "" {
		return d.src.Tier.String()
	}
	return d.src.Name
}

func (d *decoder) errorf(n *yaml.Node, format string, args ...any) {
	d.problems = append(d.problems, fmt.Errorf("%s:%d:%d: %s", d.label(), n.Line, n.Column, fmt.Sprintf(format, args...)))
}

func (d *decoder) document(root *yaml.Node, cfg *Config) {
	d.mapping(root, "", []string{"loop", "ai_cmd_aliases", "model_prices", "procedures", "libraries"}, func(key string, v *yaml.Node) {
		switch key {
		case "model_prices":
			d.prices(v, cfg.Prices)
		case "libraries":
			d.libraries(v, cfg.Libraries)
		case "loop":
			d.withChecks(v, "loop", cfg.Loop.fields(true), &cfg.Loop.Checks)
		case "ai_cmd_aliases":
			d.aliases(v, cfg.Aliases)
		case "procedures":
			d.procedures(v, cfg.Procedures)
		}
	})
}

// mapping walks a mapping node, calling each for the value of every known
// key in the order written. path is the mapping's own dotted name, for
// messages. A null node is an empty mapping.
func (d *decoder) mapping(n *yaml.Node, path string, known []string, each func(key string, v *yaml.Node)) {
	n = deref(n)
	if isNull(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "%s must be a mapping of keys to values, got %s", orTop(path), describe(n))
		return
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key := k.Value
		if first, dup := seen[key]; dup {
			d.errorf(k, "duplicate key %s (first at line %d)", join(path, key), first)
			continue
		}
		seen[key] = k.Line
		if known != nil && !slices.Contains(known, key) {
			d.unknownKey(k, path, key, known)
			continue
		}
		each(key, deref(v))
	}
}

func (d *decoder) unknownKey(k *yaml.Node, path, key string, known []string) {
	msg := fmt.Sprintf("unknown key %s", join(path, key))
	if near := suggest.Closest(key, known); near != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", near)
	} else {
		msg += fmt.Sprintf(" (%s takes: %s)", orTop(path), strings.Join(known, ", "))
	}
	d.errorf(k, "%s", msg)
}

// withChecks decodes a section of fields that may also hold checks:.
func (d *decoder) withChecks(n *yaml.Node, path string, fs []field, checks *Value[[]Check]) {
	d.mapping(n, path, keysOf(fs, "checks"), func(key string, v *yaml.Node) {
		if key == "checks" {
			d.checks(v, join(path, key), checks)
			return
		}
		d.field(v, join(path, key), fieldNamed(fs, key))
	})
}

// checks decodes checks: [{name, run}]; each run must be a command line
// rooda can split.
func (d *decoder) checks(v *yaml.Node, path string, into *Value[[]Check]) {
	if v.Kind != yaml.SequenceNode {
		d.errorf(v, "%s must be a list of {name, run}, got %s", path, describe(v))
		return
	}
	list := []Check{}
	for i, item := range v.Content {
		item = deref(item)
		at := fmt.Sprintf("%s[%d]", path, i)
		var c Check
		d.mapping(item, at, []string{"name", "run"}, func(key string, value *yaml.Node) {
			if s, ok := d.scalar(value, join(at, key)); ok {
				*map[string]*string{"name": &c.Name, "run": &c.Run}[key] = s
			}
		})
		if _, err := Command.parse(c.Run); err != nil || c.Name == "" {
			d.errorf(item, "%s needs a name and a run command that rooda can split", at)
			continue
		}
		list = append(list, c)
	}
	*into = Value[[]Check]{V: list, Set: true, Source: d.src, Line: v.Line}
}

// fields decodes a mapping whose keys are all plain settings.
func (d *decoder) fields(n *yaml.Node, path string, fs []field) {
	d.mapping(n, path, keysOf(fs), func(key string, v *yaml.Node) {
		d.field(v, join(path, key), fieldNamed(fs, key))
	})
}

func (d *decoder) field(v *yaml.Node, path string, f field) {
	if isNull(v) && f.key != IterationTimeout.Key && f.key != IdleTimeout.Key && f.key != ModelTimeout.Key {
		d.errorf(v, "%s has no value (leave the key out to keep the default)", path)
		return
	}
	s, ok := "", false
	if sep := f.separator(); sep != "" && v.Kind == yaml.SequenceNode {
		s, ok = d.list(v, path, sep)
	} else {
		s, ok = d.scalar(v, path)
	}
	if !ok {
		return
	}
	if err := f.assign(s, d.src, v.Line); err != nil {
		d.errorf(v, "%s %v", path, err)
	}
}

// list returns the items of a sequence node joined by sep, each a
// scalar that holds no sep.
func (d *decoder) list(v *yaml.Node, path, sep string) (string, bool) {
	var items []string
	for i, item := range v.Content {
		at := fmt.Sprintf("%s[%d]", path, i)
		s, ok := d.scalar(item, at)
		if !ok {
			return "", false
		}
		if len(SplitList(s, sep)) > 1 || isNull(item) {
			d.errorf(item, "%s must be one item, without %q, got %q", at, sep, item.Value)
			return "", false
		}
		items = append(items, s)
	}
	return strings.Join(items, sep), true
}

// strings returns the items of a sequence of scalars, or a scalar as the
// one item.
func (d *decoder) strings(v *yaml.Node, path string) []string {
	if v.Kind != yaml.SequenceNode {
		s, ok := d.scalar(v, path)
		if !ok || isNull(v) {
			return nil
		}
		return []string{s}
	}
	var items []string
	for i, item := range v.Content {
		if s, ok := d.scalar(item, fmt.Sprintf("%s[%d]", path, i)); ok && !isNull(item) {
			items = append(items, s)
		}
	}
	return items
}

// scalar returns the text of a scalar node. An explicit null reads as
// "none", which only the timeouts accept.
func (d *decoder) scalar(v *yaml.Node, path string) (string, bool) {
	switch {
	case isNull(v):
		return "none", true
	case v.Kind != yaml.ScalarNode:
		d.errorf(v, "%s must be a single value, got %s", path, describe(v))
		return "", false
	}
	return v.Value, true
}

func (d *decoder) aliases(n *yaml.Node, into map[string]Value[Alias]) {
	d.mapping(n, "ai_cmd_aliases", nil, func(name string, v *yaml.Node) {
		path := join("ai_cmd_aliases", name)
		var cmd, output, account Value[string]
		var writes, hosts []string
		if deref(v).Kind == yaml.MappingNode {
			given := false
			d.mapping(v, path, []string{"cmd", "output", "account", "sandbox_write", "sandbox_hosts"}, func(key string, x *yaml.Node) {
				switch key {
				case "cmd":
					given = true
					d.field(x, join(path, key), bind(key, &cmd, Command))
				case "account":
					d.field(x, join(path, key), bind(key, &account, Name))
				case "output":
					d.field(x, join(path, key), bind(key, &output, OneOf(outputFormats()...)))
				case "sandbox_hosts":
					hosts = d.hosts(x, join(path, key))
				default:
					writes = d.strings(x, join(path, key))
				}
			})
			if !given {
				d.errorf(v, "%s needs cmd: the command line", path)
			}
		} else {
			d.field(v, path, bind(name, &cmd, Command))
		}
		if cmd.Set {
			into[name] = Value[Alias]{V: Alias{Line: cmd.V, Output: output.V, Account: account.V, Writes: writes, Hosts: hosts}, Set: true, Source: cmd.Source, Line: cmd.Line}
		}
	})
}

// libraries decodes libraries: {name: directory | {git, ref, path}},
// each directory taken from the file that names it.
func (d *decoder) libraries(n *yaml.Node, into map[string]Value[Library]) {
	d.mapping(n, "libraries", nil, func(name string, v *yaml.Node) {
		path := join("libraries", name)
		if err := CheckLibraryName(name); err != nil {
			d.errorf(v, "%v", err)
			return
		}
		lib, ok := d.library(v, path)
		if ok {
			lib.LockDir = d.dir
			into[name] = Value[Library]{V: lib, Set: true, Source: d.src, Line: v.Line}
		}
	})
}

// library decodes one library: a directory, or a git source.
func (d *decoder) library(v *yaml.Node, path string) (Library, bool) {
	if v.Kind == yaml.MappingNode {
		return d.gitLibrary(v, path)
	}
	dir, ok := d.scalar(v, path)
	if !ok {
		return Library{}, false
	}
	if isNull(v) || strings.TrimSpace(dir) == "" {
		d.errorf(v, "%s must name a directory, or be {git: URL, ref: REF, path: DIR}", path)
		return Library{}, false
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(d.dir, dir)
	}
	return Library{Dir: dir}, true
}

func (d *decoder) gitLibrary(v *yaml.Node, path string) (Library, bool) {
	lib := Library{Ref: "HEAD"}
	fields := map[string]*string{"git": &lib.Git, "ref": &lib.Ref, "path": &lib.Path}
	d.mapping(v, path, []string{"git", "ref", "path"}, func(key string, value *yaml.Node) {
		if s, ok := d.scalar(value, join(path, key)); ok && strings.TrimSpace(s) != "" {
			*fields[key] = s
		} else if ok {
			d.errorf(value, "%s must not be empty", join(path, key))
		}
	})
	clean := filepath.ToSlash(filepath.Clean(lib.Path))
	switch {
	case lib.Git == "":
		d.errorf(v, "%s needs git: the repository's URL", path)
		return Library{}, false
	case lib.Path != "" && (filepath.IsAbs(lib.Path) || clean == ".." || strings.HasPrefix(clean, "../")):
		d.errorf(v, "%s.path must be a directory inside the repository, got %q", path, lib.Path)
		return Library{}, false
	}
	if lib.Path != "" {
		lib.Path = clean
	}
	if isLocalPath(lib.Git) && !filepath.IsAbs(lib.Git) {
		// A repository on disk is named from the file that names it, as
		// every other path in the configuration is.
		lib.Git = filepath.Join(d.dir, lib.Git)
	}
	return lib, true
}

// isLocalPath reports whether a git source is a path on disk rather than
// a URL ("https://…", "file://…") or an scp-style "host:path".
func isLocalPath(source string) bool {
	if strings.Contains(source, "://") {
		return false
	}
	colon, slash := strings.Index(source, ":"), strings.Index(source, "/")
	return colon < 0 || (slash >= 0 && slash < colon)
}

var libraryName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]+$`) })

// CheckLibraryName accepts a name a library can be loaded by (@name//):
// a word, and not rooda, the standard library's.
func CheckLibraryName(name string) error {
	if !libraryName().MatchString(name) || name == "rooda" {
		return fmt.Errorf("library name %q must be a word of letters, digits, - and _, and not rooda (the standard library)", name)
	}
	return nil
}

func (d *decoder) procedures(n *yaml.Node, into map[string]*Procedure) {
	d.mapping(n, "procedures", nil, func(name string, v *yaml.Node) {
		if strings.TrimSpace(name) == "" || strings.ContainsAny(name, " \t\n/") {
			d.errorf(v, "procedure name %q must be a word without spaces or slashes", name)
			return
		}
		p := &Procedure{Name: name}
		d.procedure(v, p)
		into[name] = p
	})
}

func (d *decoder) procedure(n *yaml.Node, p *Procedure) {
	path := join("procedures", p.Name)
	if d.procedureKeys == nil {
		d.procedureKeys = keysOf(p.fields(), append([]string{"script", "checks"}, prompt.PhaseNames()...)...)
	}
	var scriptNode *yaml.Node
	d.mapping(n, path, d.procedureKeys, func(key string, v *yaml.Node) {
		if key == "checks" {
			d.checks(v, join(path, key), &p.Checks)
			return
		}
		if ph, ok := prompt.ParsePhase(key); ok {
			d.phase(v, join(path, key), &p.Phases[ph])
			return
		}
		if key == "script" {
			scriptNode = v
			d.script(v, join(path, key), &p.Script)
			return
		}
		d.field(v, join(path, key), p.field(key))
	})
	if scriptNode != nil && p.HasPhases() {
		d.errorf(scriptNode, "%s has both a script and phase fragments; a procedure is one or the other", path)
	}
	if isNull(n) || (n.Kind == yaml.MappingNode && len(n.Content) == 0) {
		d.errorf(n, "%s is empty: give it fragments for its phases (observe, orient, decide, act) or a script", path)
	}
}

func (d *decoder) script(v *yaml.Node, path string, into *Value[string]) {
	s, ok := d.scalar(v, path)
	if !ok {
		return
	}
	if isNull(v) || strings.TrimSpace(s) == "" {
		d.errorf(v, "%s must name a .star file", path)
		return
	}
	if filepath.Ext(s) != ".star" {
		d.errorf(v, "%s must name a .star file, got %q", path, s)
		return
	}
	if !filepath.IsAbs(s) {
		s = filepath.Join(d.dir, s)
	}
	*into = Value[string]{V: s, Set: true, Source: d.src, Line: v.Line}
}

// phase decodes a phase: a list of fragments, or (as rooda 0.1 wrote it)
// a single path.
func (d *decoder) phase(v *yaml.Node, path string, into *Value[[]prompt.Fragment]) {
	frags := []prompt.Fragment{}
	switch {
	case isNull(v):
	case v.Kind == yaml.ScalarNode:
		frags = append(frags, d.fragmentAt(v, prompt.Fragment{Path: v.Value}))
	case v.Kind == yaml.SequenceNode:
		frags = make([]prompt.Fragment, 0, len(v.Content))
		for i, item := range v.Content {
			if f, ok := d.fragment(deref(item), path+"["+strconv.Itoa(i)+"]"); ok {
				frags = append(frags, f)
			}
		}
	default:
		d.errorf(v, "%s must be a list of fragments, got %s", path, describe(v))
		return
	}
	*into = Value[[]prompt.Fragment]{V: frags, Set: true, Source: d.src, Line: v.Line}
}

// fragment decodes one list item: {path|content, parameters}, or a bare
// string as shorthand for {path: …}.
func (d *decoder) fragment(n *yaml.Node, path string) (prompt.Fragment, bool) {
	if n.Kind == yaml.ScalarNode && !isNull(n) {
		return d.fragmentAt(n, prompt.Fragment{Path: n.Value}), true
	}
	var f prompt.Fragment
	ok := n.Kind == yaml.MappingNode
	if !ok {
		d.errorf(n, "%s must be a fragment ({path: …}, {content: …}) or a path, got %s", path, describe(n))
		return f, false
	}
	before := len(d.problems)
	d.mapping(n, path, []string{"path", "content", "parameters"}, func(key string, v *yaml.Node) {
		switch key {
		case "path", "content":
			s, isText := d.scalar(v, join(path, key))
			if isText && isNull(v) {
				s = ""
			}
			if key == "path" {
				f.Path = s
			} else {
				f.Content = s
			}
		case "parameters":
			f.Parameters = d.parameters(v, join(path, key))
		}
	})
	return d.fragmentAt(n, f), len(d.problems) == before
}

func (d *decoder) fragmentAt(n *yaml.Node, f prompt.Fragment) prompt.Fragment {
	f.Dir = d.dir
	if d.src.Name != "" {
		f.Origin = d.src.Name + ":" + strconv.Itoa(n.Line)
	}
	return f
}

func (d *decoder) parameters(v *yaml.Node, path string) map[string]any {
	params := map[string]any{}
	if isNull(v) {
		return params
	}
	if v.Kind != yaml.MappingNode {
		d.errorf(v, "%s must be a mapping of names to values, got %s", path, describe(v))
		return params
	}
	if err := v.Decode(&params); err != nil {
		d.errorf(v, "%s: %s", path, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	return params
}

func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null")
}

// describe names what a node is, for "must be …, got …" messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("%q", n.Value)
	}
	return "something else"
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func orTop(path string) string {
	if path == "" {
		return "the configuration file"
	}
	return path
}

// keysOf is the keys of fs, then more.
func keysOf(fs []field, more ...string) []string {
	keys := make([]string, len(fs), len(fs)+len(more))
	for i, f := range fs {
		keys[i] = f.key
	}
	return append(keys, more...)
}

func fieldNamed(fs []field, key string) field {
	for _, f := range fs {
		if f.key == key {
			return f
		}
	}
	panic("config: no field " + key)
}
