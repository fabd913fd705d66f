package node

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// ConfigChange is one key of config.toml that differs between two configs,
// with both values as config.toml would spell them ("" when unset).
type ConfigChange struct {
	Key  string `json:"key"`
	From string `json:"from"`
	To   string `json:"to"`
}

// String reads as a note: `network: "amino" -> "local"`.
func (c ConfigChange) String() string {
	show := func(v string) string {
		if v == "" {
			return "(unset)"
		}
		return v
	}
	return fmt.Sprintf("%s: %s -> %s", c.Key, show(c.From), show(c.To))
}

// DiffConfig lists the keys whose values differ from a to b, by their
// dotted config.toml names (market.verification_window), sorted.
func DiffConfig(a, b Config) ([]ConfigChange, error) {
	fa, err := flatConfig(a)
	if err != nil {
		return nil, err
	}
	fb, err := flatConfig(b)
	if err != nil {
		return nil, err
	}
	var keys []string
	for k := range fa {
		keys = append(keys, k)
	}
	for k := range fb {
		if _, ok := fa[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	out := []ConfigChange{}
	for _, k := range keys {
		if fa[k] != fb[k] {
			out = append(out, ConfigChange{Key: k, From: fa[k], To: fb[k]})
		}
	}
	return out, nil
}

// flatConfig is c as config.toml holds it, one dotted key per value, each
// value written as TOML writes it (strings quoted, lists in brackets).
func flatConfig(c Config) (map[string]string, error) {
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(c); err != nil {
		return nil, fmt.Errorf("encode config: %w", err)
	}
	var m map[string]any
	if _, err := toml.NewDecoder(&buf).Decode(&m); err != nil {
		return nil, fmt.Errorf("decode config: %w", err)
	}
	out := map[string]string{}
	flatten("", m, out)
	return out, nil
}

func flatten(prefix string, m map[string]any, out map[string]string) {
	for k, v := range m {
		key := k
		if prefix != "" {
			key = prefix + "." + k
		}
		if sub, ok := v.(map[string]any); ok {
			flatten(key, sub, out)
			continue
		}
		switch val := tomlValue(v); val {
		case "[]", `""`, "0", "false":
			// A zero value is the same config as none: every key's zero
			// means its default.
		default:
			out[key] = val
		}
	}
}

// tomlValue writes one decoded TOML value the way config.toml spells it;
// tables inside arrays ([[policy]]) as inline tables.
func tomlValue(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("%q", x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = tomlValue(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case []map[string]any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = tomlValue(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + " = " + tomlValue(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return fmt.Sprint(x)
		}
		return string(b)
	}
}

// WriteConfig validates c and makes it the repo's config.toml, atomically
// (a crash leaves the old file or the new one, never half of one). The
// caller holds the repo (no daemon runs on it): a running daemon would not
// see the change until it restarts.
func (r *Repo) WriteConfig(c Config) error {
	if err := c.Validate(); err != nil {
		return err
	}
	unlock, err := lockConfig(r.Dir)
	if err != nil {
		return err
	}
	defer unlock()
	if err := c.write(r.configPath()); err != nil {
		return err
	}
	r.Config = c
	return nil
}

func (r *Repo) configPath() string { return filepath.Join(r.Dir, configFile) }
