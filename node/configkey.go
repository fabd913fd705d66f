package node

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/BurntSushi/toml"

	"github.com/swarmwage/swarmwage/internal/atomicfile"
)

// One key of config.toml at a time, as 'swarmwage config get KEY' and
// 'swarmwage config set KEY VALUE' read and write it (Kubo's 'ipfs config').
//
// A key is the dotted config.toml name of one value: "api", "listen",
// "market.max_price", "settlement.rpc". Set edits the one line of the key in
// the file (or adds it to its table), so comments and every other key stay
// as they were, and then checks that the edited file decodes to exactly the
// config it meant, else writes the whole config anew (comments lost, said
// so). Either way the new file is validated as the loader validates it,
// and written atomically; a bad key or value changes nothing.

// configKeyLock serializes config writers of one repo ('config set' and
// 'sell apply' run by two scripts at once would lose one change). It is not
// the repo's lock: a running daemon holds that, and a config change is
// allowed while it runs (it takes effect at its restart).
const configKeyLock = "config.lock"

// maxConfigFile bounds what Set and Get read of config.toml.
const maxConfigFile = 1 << 20

// maxValueLines bounds the lines one value of config.toml may span for the
// line editor (a listen list one address a line); past it the editor
// gives up on that value and the file is written anew if it must be.
const maxValueLines = 200

// ConfigKey describes one key 'config get' and 'config set' know.
type ConfigKey struct {
	// Key is the dotted name ("market.max_price").
	Key string `json:"key"`
	// Type is the value's kind: "string", "integer", "number", "boolean",
	// "list of strings", "table" or "list of tables".
	Type string `json:"type"`
	// Settable is false for tables and lists of tables ([[policy]]):
	// those are edited in config.toml itself.
	Settable bool `json:"settable"`
}

// ConfigKeys lists every key of config.toml, sorted, tables included.
func ConfigKeys() []ConfigKey {
	var out []ConfigKey
	walkConfigKeys(reflect.TypeOf(Config{}), "", &out)
	slices.SortFunc(out, func(a, b ConfigKey) int { return strings.Compare(a.Key, b.Key) })
	return out
}

func walkConfigKeys(t reflect.Type, prefix string, out *[]ConfigKey) {
	for i := range t.NumField() {
		f := t.Field(i)
		name := tomlName(f)
		if name == "" {
			continue
		}
		key := name
		if prefix != "" {
			key = prefix + "." + name
		}
		kind := typeName(f.Type)
		*out = append(*out, ConfigKey{Key: key, Type: kind, Settable: kind != "table" && kind != "list of tables"})
		if f.Type.Kind() == reflect.Struct {
			walkConfigKeys(f.Type, key, out)
		}
	}
}

// tomlName is the config.toml name of a struct field, "" for none.
func tomlName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
	if name == "-" {
		return ""
	}
	return name
}

func typeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Uint, reflect.Uint64, reflect.Uint32:
		return "integer"
	case reflect.Float64, reflect.Float32:
		return "number"
	case reflect.Bool:
		return "boolean"
	case reflect.Struct:
		return "table"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Struct {
			return "list of tables"
		}
		return "list of strings"
	}
	return t.Kind().String()
}

// lookupConfigKey finds key's field in the config c points to: its value
// (settable) and its description. The error is a *ConfigError naming the
// key and the keys there are.
func lookupConfigKey(c *Config, key string) (reflect.Value, ConfigKey, error) {
	if key == "" {
		return reflect.Value{}, ConfigKey{}, &ConfigError{Err: errors.New("config: no key given; keys are dotted config.toml names such as api, listen, market.max_price (see README, \"Config file\")")}
	}
	v := reflect.ValueOf(c).Elem()
	parts := strings.Split(key, ".")
	for i, p := range parts {
		if v.Kind() != reflect.Struct {
			return reflect.Value{}, ConfigKey{}, unknownKey(key, strings.Join(parts[:i], ".")+" is not a table")
		}
		found := false
		for j := range v.NumField() {
			if tomlName(v.Type().Field(j)) == p {
				v, found = v.Field(j), true
				break
			}
		}
		if !found {
			return reflect.Value{}, ConfigKey{}, unknownKey(key, "")
		}
	}
	kind := typeName(v.Type())
	return v, ConfigKey{Key: key, Type: kind, Settable: kind != "table" && kind != "list of tables"}, nil
}

// unknownKey is the error of a key config.toml does not have, with the
// nearest keys to help.
func unknownKey(key, why string) error {
	msg := fmt.Sprintf("config: unknown key %q", key)
	if why != "" {
		msg += " (" + why + ")"
	}
	var near []string
	head, _, _ := strings.Cut(key, ".")
	last := key[strings.LastIndex(key, ".")+1:]
	for _, k := range ConfigKeys() {
		if strings.HasPrefix(k.Key, head+".") || strings.HasSuffix(k.Key, "."+last) || k.Key == last {
			near = append(near, k.Key)
		}
	}
	if len(near) > 0 && len(near) <= 12 {
		msg += "; did you mean " + strings.Join(near, ", ") + "?"
	} else {
		msg += "; 'swarmwage config keys' lists them"
	}
	return &ConfigError{Err: errors.New(msg)}
}

// ConfigValue is one key of a repo's config.toml ('config get --json').
type ConfigValue struct {
	Key string `json:"key"`
	// Value is the key's value as config.toml holds it: a string, number,
	// boolean, list or table; the type's zero ("", 0, false, []) when the
	// key is not in the file.
	Value any `json:"value"`
	// Set says whether config.toml has the key; when not, the node uses
	// the key's default (README, "Config file").
	Set bool `json:"set"`
}

// GetConfigKey reads key from the config.toml of the repo at dir. It reads
// the file as it is, also one the loader would refuse (so that 'config
// get' helps fixing it). A bad key is a *ConfigError.
func GetConfigKey(dir, key string) (ConfigValue, error) {
	path := filepath.Join(dir, configFile)
	src, err := readConfigFile(dir)
	if err != nil {
		return ConfigValue{}, err
	}
	var c Config
	if _, _, err := lookupConfigKey(&c, key); err != nil {
		return ConfigValue{}, err
	}
	var raw map[string]any
	if _, err := toml.Decode(string(src), &raw); err != nil {
		return ConfigValue{}, &ConfigError{Path: path, Err: fmt.Errorf("read: %w", err)}
	}
	if _, err := toml.Decode(string(src), &c); err != nil {
		return ConfigValue{}, &ConfigError{Path: path, Err: fmt.Errorf("read: %w", err)}
	}
	if v, ok := rawLookup(raw, key); ok {
		return ConfigValue{Key: key, Value: v, Set: true}, nil
	}
	f, _, _ := lookupConfigKey(&c, key)
	return ConfigValue{Key: key, Value: zeroJSON(f), Set: false}, nil
}

// rawLookup finds a dotted key in a decoded TOML document.
func rawLookup(m map[string]any, key string) (any, bool) {
	var cur any = m
	for _, p := range strings.Split(key, ".") {
		t, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = t[p]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// zeroJSON is the JSON value of an unset field: its zero, an empty list or
// table rather than null.
func zeroJSON(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Slice:
		return []any{}
	case reflect.Struct:
		return map[string]any{}
	}
	return reflect.Zero(v.Type()).Interface()
}

// ConfigSetResult is what 'config set' (and 'config unset') did.
type ConfigSetResult struct {
	Key string `json:"key"`
	// Value is the new value (the type's zero after an unset: the default
	// applies), Previous the old one (ConfigValue.Value's rules).
	Value    any `json:"value"`
	Previous any `json:"previous"`
	// WasSet says whether config.toml had the key before.
	WasSet bool `json:"was_set"`
	// Changed is false when the file already held the value (it is not
	// rewritten).
	Changed bool `json:"changed"`
	// Unset is true for 'config unset': the key left the file.
	Unset bool `json:"unset,omitempty"`
	// Rewritten is true when the file could not be edited in place (a
	// layout such as an inline table) and was written anew from the
	// config: its comments are gone.
	Rewritten bool `json:"rewritten,omitempty"`
	// DaemonRunning is true when a daemon runs on the repo: it read its
	// config at start and uses the new value once restarted ('swarmwage
	// shutdown', then 'swarmwage daemon'); nothing is reloaded live.
	DaemonRunning bool `json:"daemon_running"`
	// RestartNeeded is Changed && DaemonRunning.
	RestartNeeded bool `json:"restart_needed"`
}

// SetConfigKey sets key in the config.toml of the repo at dir to value,
// parsed by the key's type: a string as it is; an integer, number or
// boolean ("true", "false") as written; a list as a JSON array
// (`["/ip4/127.0.0.1/tcp/4001"]`) or comma-separated items ("" is the
// empty list). The new config is validated as the loader does; a bad key
// or value is a *ConfigError naming the key, and the file is unchanged.
func SetConfigKey(dir, key, value string) (ConfigSetResult, error) {
	return editConfigKey(dir, key, func(f reflect.Value, k ConfigKey) error {
		return parseConfigValue(f, k, value)
	}, false)
}

// UnsetConfigKey removes key from the config.toml of the repo at dir, so
// the node uses its default. Keys the config cannot lack (network, listen,
// api) are refused by validation.
func UnsetConfigKey(dir, key string) (ConfigSetResult, error) {
	return editConfigKey(dir, key, func(f reflect.Value, _ ConfigKey) error {
		f.Set(reflect.Zero(f.Type()))
		return nil
	}, true)
}

func editConfigKey(dir, key string, change func(reflect.Value, ConfigKey) error, unset bool) (res ConfigSetResult, err error) {
	path := filepath.Join(dir, configFile)
	var probe Config
	_, k, err := lookupConfigKey(&probe, key)
	if err != nil {
		return res, err
	}
	if !k.Settable {
		return res, &ConfigError{Err: fmt.Errorf("config %s is a %s: set its keys one by one (%s.KEY), or edit config.toml", key, k.Type, key)}
	}
	unlock, err := lockConfig(dir)
	if err != nil {
		return res, err
	}
	defer unlock()
	src, err := readConfigFile(dir)
	if err != nil {
		return res, err
	}
	old, err := GetConfigKey(dir, key)
	if err != nil {
		return res, err
	}
	// The file as it is, decoded without validation: a set may be what
	// fixes a bad value.
	var cur Config
	md, err := toml.Decode(string(src), &cur)
	if err != nil {
		return res, &ConfigError{Path: path, Err: fmt.Errorf("read: %w", err)}
	}
	if und := md.Undecoded(); len(und) > 0 {
		return res, &ConfigError{Path: path, Err: fmt.Errorf("unknown key %q (remove it from the file first)", und[0].String())}
	}
	want := cur
	field, _, _ := lookupConfigKey(&want, key)
	if err := change(field, k); err != nil {
		return res, err
	}
	if err := want.Validate(); err != nil {
		return res, err
	}
	res = ConfigSetResult{Key: key, Previous: old.Value, WasSet: old.Set, Unset: unset, DaemonRunning: DaemonRunning(dir)}
	res.Value = jsonValue(field)
	if unset {
		res.Value = zeroJSON(field)
	}
	var out []byte
	if unset {
		if !old.Set {
			return res, nil
		}
		out, err = removeTOMLKey(src, key)
	} else {
		var enc string
		if enc, err = encodeTOMLValue(field.Interface()); err == nil {
			out, err = setTOMLKey(src, key, enc)
		}
		if err == nil && old.Set && bytes.Equal(out, src) {
			return res, nil
		}
	}
	if err != nil || !decodesTo(out, want) {
		// A layout the line editor does not handle: write the config anew.
		res.Rewritten = true
		var buf bytes.Buffer
		buf.WriteString("# swarmwage node config. See README.md, \"Config file\".\n")
		if err := toml.NewEncoder(&buf).Encode(want); err != nil {
			return res, fmt.Errorf("encode config: %w", err)
		}
		out = buf.Bytes()
		if !decodesTo(out, want) {
			return res, fmt.Errorf("config %s: the encoded config does not read back as the one set", key)
		}
	}
	if err := atomicfile.Write(path, out, 0o600); err != nil {
		return res, err
	}
	res.Changed = true
	res.RestartNeeded = res.DaemonRunning
	return res, nil
}

// jsonValue is a field's value for JSON, lists never null.
func jsonValue(v reflect.Value) any {
	if v.Kind() == reflect.Slice && v.Len() == 0 {
		return []any{}
	}
	return v.Interface()
}

// parseConfigValue sets field f of key k from the command line's value.
func parseConfigValue(f reflect.Value, k ConfigKey, value string) error {
	bad := func(want string) error {
		return &ConfigError{Err: fmt.Errorf("config %s = %q: want %s", k.Key, value, want)}
	}
	switch f.Kind() {
	case reflect.String:
		f.SetString(value)
	case reflect.Int, reflect.Int64, reflect.Int32:
		n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		if err != nil || f.OverflowInt(n) {
			return bad("an integer")
		}
		f.SetInt(n)
	case reflect.Float64, reflect.Float32:
		n, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil {
			return bad("a number")
		}
		f.SetFloat(n)
	case reflect.Bool:
		b, err := strconv.ParseBool(strings.TrimSpace(value))
		if err != nil {
			return bad("true or false")
		}
		f.SetBool(b)
	case reflect.Slice:
		var items []string
		s := strings.TrimSpace(value)
		switch {
		case strings.HasPrefix(s, "["):
			if err := json.Unmarshal([]byte(s), &items); err != nil {
				return bad(`a JSON array of strings (["a", "b"]) or comma-separated items`)
			}
		case s != "":
			for _, it := range strings.Split(s, ",") {
				if it = strings.TrimSpace(it); it != "" {
					items = append(items, it)
				}
			}
		}
		f.Set(reflect.ValueOf(items))
	default:
		return bad("a value config set can write (edit config.toml for this key)")
	}
	return nil
}

// decodesTo reports whether src is a config.toml the loader reads (no
// unknown key) whose every value is want's.
func decodesTo(src []byte, want Config) bool {
	var got Config
	md, err := toml.Decode(string(src), &got)
	if err != nil || len(md.Undecoded()) > 0 {
		return false
	}
	a, err1 := flatConfig(got)
	b, err2 := flatConfig(want)
	return err1 == nil && err2 == nil && maps.Equal(a, b)
}

// encodeTOMLValue is v written as the value of a TOML key/value line.
func encodeTOMLValue(v any) (string, error) {
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(map[string]any{"k": v}); err != nil {
		return "", fmt.Errorf("encode value: %w", err)
	}
	line := strings.TrimSpace(buf.String())
	enc, ok := strings.CutPrefix(line, "k = ")
	if !ok || strings.Contains(enc, "\n") {
		return "", fmt.Errorf("encode value: unexpected %q", line)
	}
	return enc, nil
}

var (
	tableHeader = regexp.MustCompile(`^\s*\[\s*([A-Za-z0-9_.\- ]+?)\s*\]\s*(#.*)?$`)
	arrayHeader = regexp.MustCompile(`^\s*\[\[`)
	keyLine     = regexp.MustCompile(`^(\s*)([A-Za-z0-9_\-.]+)(\s*=\s*)`)
)

// tomlLine is one key/value of a config.toml text: the lines it spans and
// the full dotted key it sets.
type tomlLine struct {
	start, end int // lines[start:end]
	key        string
}

// scanTOML finds every key/value of src outside arrays of tables, and for
// each table header its line. Values spanning lines (multi-line arrays and
// strings) are measured by decoding: a value ends at the first line after
// which the key/value alone is valid TOML.
func scanTOML(lines []string) (kvs []tomlLine, headers map[string]int, firstHeader int) {
	headers = map[string]int{}
	firstHeader = len(lines)
	table, inArray := "", false
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if arrayHeader.MatchString(l) {
			inArray = true
			firstHeader = min(firstHeader, i)
			continue
		}
		if m := tableHeader.FindStringSubmatch(l); m != nil {
			table, inArray = strings.ReplaceAll(m[1], " ", ""), false
			headers[table] = i
			firstHeader = min(firstHeader, i)
			continue
		}
		m := keyLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		end := i + 1
		for ; end <= len(lines) && end-i <= maxValueLines; end++ {
			var probe map[string]any
			if _, err := toml.Decode(strings.Join(lines[i:end], "\n"), &probe); err == nil {
				break
			}
		}
		if end > len(lines) {
			end = i + 1
		}
		if !inArray {
			full := m[2]
			if table != "" {
				full = table + "." + m[2]
			}
			kvs = append(kvs, tomlLine{start: i, end: end, key: full})
		}
		i = end - 1
	}
	return kvs, headers, firstHeader
}

// setTOMLKey gives key the encoded value enc in the config.toml text src:
// it replaces the key's line (keeping its indentation and a trailing
// comment), or adds the line at the end of the key's table, or adds the
// table at the end of the file.
func setTOMLKey(src []byte, key, enc string) ([]byte, error) {
	lines := strings.Split(strings.TrimSuffix(string(src), "\n"), "\n")
	kvs, headers, firstHeader := scanTOML(lines)
	table, name := "", key
	if i := strings.LastIndex(key, "."); i >= 0 {
		table, name = key[:i], key[i+1:]
	}
	for _, kv := range kvs {
		if kv.key != key {
			continue
		}
		m := keyLine.FindStringSubmatch(lines[kv.start])
		line := m[1] + m[2] + m[3] + enc
		if kv.end == kv.start+1 {
			line += trailingComment(lines[kv.start])
		}
		out := slices.Concat(lines[:kv.start], []string{line}, lines[kv.end:])
		return joinLines(out), nil
	}
	line := name + " = " + enc
	if table == "" {
		// After the last key before the first table, else before it.
		at := 0
		for _, kv := range kvs {
			if kv.start < firstHeader {
				at = kv.end
			}
		}
		if at == 0 {
			for at < firstHeader && strings.HasPrefix(strings.TrimSpace(lines[at]), "#") {
				at++
			}
		}
		return joinLines(slices.Insert(lines, at, line)), nil
	}
	if h, ok := headers[table]; ok {
		at := h + 1
		for _, kv := range kvs {
			if kv.start > h && strings.HasPrefix(kv.key, table+".") && !strings.Contains(kv.key[len(table)+1:], ".") {
				// A key of this table (not of a deeper one defined by a
				// dotted key).
				at = max(at, kv.end)
			}
		}
		return joinLines(slices.Insert(lines, at, line)), nil
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return joinLines(append(lines, "", "["+table+"]", line)), nil
}

// removeTOMLKey removes key's line(s) from the config.toml text src.
func removeTOMLKey(src []byte, key string) ([]byte, error) {
	lines := strings.Split(strings.TrimSuffix(string(src), "\n"), "\n")
	kvs, _, _ := scanTOML(lines)
	for _, kv := range kvs {
		if kv.key == key {
			return joinLines(slices.Concat(lines[:kv.start], lines[kv.end:])), nil
		}
	}
	return nil, fmt.Errorf("config %s: not found in the file's lines", key)
}

// trailingComment is the " # ..." a one-line key/value ends with, found as
// the first '#' from which the rest of the line is not part of the value.
func trailingComment(line string) string {
	var whole map[string]any
	if _, err := toml.Decode(line, &whole); err != nil {
		return ""
	}
	for i := strings.IndexByte(line, '#'); i >= 0; {
		var probe map[string]any
		if _, err := toml.Decode(line[:i], &probe); err == nil && reflect.DeepEqual(probe, whole) {
			return " " + strings.TrimSpace(line[i:])
		}
		j := strings.IndexByte(line[i+1:], '#')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return ""
}

func joinLines(lines []string) []byte { return []byte(strings.Join(lines, "\n") + "\n") }

// readConfigFile reads the repo's config.toml, at most maxConfigFile bytes.
func readConfigFile(dir string) ([]byte, error) {
	path := filepath.Join(dir, configFile)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		if !exists(filepath.Join(dir, keyFile)) {
			return nil, NoRepoError{Path: dir}
		}
		return nil, &ConfigError{Path: path, Err: errors.New("missing (run 'swarmwage init' on a new directory, or restore the file)")}
	}
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	defer f.Close()
	buf, err := io.ReadAll(io.LimitReader(f, maxConfigFile+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(buf) > maxConfigFile {
		return nil, &ConfigError{Path: path, Err: fmt.Errorf("larger than %d bytes", maxConfigFile)}
	}
	return buf, nil
}

// lockConfig takes the repo's config lock (configKeyLock), waiting for
// another writer; the returned function releases it.
func lockConfig(dir string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, configKeyLock), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock config: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock config: %w", err)
	}
	return func() { f.Close() }, nil
}
