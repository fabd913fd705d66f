package node_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/node"
)

// A hand-written config.toml with comments, as a user keeps one.
const commentedConfig = `# my node
network = "cfgtest" # the lab network
listen = [
  "/ip4/127.0.0.1/tcp/0",
]
bootstrap = []
api = "127.0.0.1:0"

# buyer side
[market]
# never more than this
max_price = "0.5"

[p2p]
reachability = "auto"
`

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "config.toml"), []byte(text), 0o600))
	return dir
}

func readConfig(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "config.toml"))
	require.NoError(t, err)
	return string(b)
}

// config set edits the key's line in place: every comment and every other
// key stays, and the file reads back as the loader reads it.
func TestSetConfigKeyKeepsComments(t *testing.T) {
	testCases := []struct {
		name, key, value string
		want             string // the whole file after the set
	}{
		{"a key of a table", "market.max_price", "0.25", `# my node
network = "cfgtest" # the lab network
listen = [
  "/ip4/127.0.0.1/tcp/0",
]
bootstrap = []
api = "127.0.0.1:0"

# buyer side
[market]
# never more than this
max_price = "0.25"

[p2p]
reachability = "auto"
`},
		{"a top-level key with a trailing comment", "network", "lab2", `# my node
network = "lab2" # the lab network
listen = [
  "/ip4/127.0.0.1/tcp/0",
]
bootstrap = []
api = "127.0.0.1:0"

# buyer side
[market]
# never more than this
max_price = "0.5"

[p2p]
reachability = "auto"
`},
		{"a list over several lines", "listen", "/ip4/127.0.0.1/tcp/4001, /ip4/127.0.0.1/udp/4001/quic-v1", `# my node
network = "cfgtest" # the lab network
listen = ["/ip4/127.0.0.1/tcp/4001", "/ip4/127.0.0.1/udp/4001/quic-v1"]
bootstrap = []
api = "127.0.0.1:0"

# buyer side
[market]
# never more than this
max_price = "0.5"

[p2p]
reachability = "auto"
`},
		{"a new key of an existing table", "market.concurrency", "8", `# my node
network = "cfgtest" # the lab network
listen = [
  "/ip4/127.0.0.1/tcp/0",
]
bootstrap = []
api = "127.0.0.1:0"

# buyer side
[market]
# never more than this
max_price = "0.5"
concurrency = 8

[p2p]
reachability = "auto"
`},
		{"a new top-level key", "agent_http", "127.0.0.1:8080", `# my node
network = "cfgtest" # the lab network
listen = [
  "/ip4/127.0.0.1/tcp/0",
]
bootstrap = []
api = "127.0.0.1:0"
agent_http = "127.0.0.1:8080"

# buyer side
[market]
# never more than this
max_price = "0.5"

[p2p]
reachability = "auto"
`},
		{"a new table", "storage.min_free", "2GB", commentedConfig + `
[storage]
min_free = "2GB"
`},
		{"a boolean", "p2p.relay_service", "true", `# my node
network = "cfgtest" # the lab network
listen = [
  "/ip4/127.0.0.1/tcp/0",
]
bootstrap = []
api = "127.0.0.1:0"

# buyer side
[market]
# never more than this
max_price = "0.5"

[p2p]
reachability = "auto"
relay_service = true
`},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeConfig(t, commentedConfig)
			res, err := node.SetConfigKey(dir, tc.key, tc.value)
			require.NoError(t, err)
			require.True(t, res.Changed)
			require.False(t, res.Rewritten)
			require.False(t, res.RestartNeeded, "no daemon runs on the repo")
			require.Equal(t, tc.want, readConfig(t, dir))
			got, err := node.GetConfigKey(dir, tc.key)
			require.NoError(t, err)
			require.True(t, got.Set)
			require.Equal(t, res.Value, normalize(got.Value))
		})
	}
}

// normalize turns the TOML decoder's values into the typed ones Set
// reports (int64 to int, []any of strings to []string).
func normalize(v any) any {
	switch x := v.(type) {
	case int64:
		return int(x)
	case []any:
		out := make([]string, len(x))
		for i, e := range x {
			out[i] = e.(string)
		}
		return out
	}
	return v
}

// A bad key or value is refused with an error naming the key and what is
// wrong, and the file is left as it was.
func TestSetConfigKeyRefusesBadKeysAndValues(t *testing.T) {
	testCases := []struct {
		name, key, value, message string
	}{
		{"unknown key", "market.max_prize", "1", `config: unknown key "market.max_prize"; did you mean`},
		{"unknown table", "nosuch.key", "1", `config: unknown key "nosuch.key"`},
		{"a key below a value", "api.port", "1", `config: unknown key "api.port" (api is not a table)`},
		{"a table", "market", "1", "config market is a table"},
		{"a list of tables", "policy", "x", "config policy is a list of tables"},
		{"not an amount", "market.max_price", "cheap", `config market.max_price = "cheap": want a positive amount`},
		{"a negative amount", "market.max_price", "-1", `config market.max_price = "-1": want a positive amount`},
		{"not an integer", "market.concurrency", "many", `config market.concurrency = "many": want an integer`},
		{"not a boolean", "p2p.relay_service", "yes please", `config p2p.relay_service = "yes please": want true or false`},
		{"an api off loopback", "api", "0.0.0.0:5001", "config api: \"0.0.0.0:5001\": the control API listens on loopback only"},
		{"no listen address", "listen", "", "config listen: at least one address is needed"},
		{"a bad multiaddr", "listen", "/ip4/nope", "config listen: bad multiaddr"},
		{"a bad network", "network", "Bad!", "config network: "},
		{"a bad list", "bootstrap", `["unclosed`, `config bootstrap = "[\"unclosed": want a JSON array`},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeConfig(t, commentedConfig)
			_, err := node.SetConfigKey(dir, tc.key, tc.value)
			var ce *node.ConfigError
			require.ErrorAs(t, err, &ce)
			require.Contains(t, err.Error(), tc.message)
			require.Equal(t, commentedConfig, readConfig(t, dir), "a refused set changes nothing")
		})
	}
}

// Setting a value the file holds already writes nothing.
func TestSetConfigKeySameValueIsNoChange(t *testing.T) {
	dir := writeConfig(t, commentedConfig)
	res, err := node.SetConfigKey(dir, "market.max_price", "0.5")
	require.NoError(t, err)
	require.False(t, res.Changed)
	require.Equal(t, "0.5", res.Previous)
	require.Equal(t, commentedConfig, readConfig(t, dir))
}

// A layout the line editor does not handle (an inline table) is written
// anew from the config, said so; the values are all kept.
func TestSetConfigKeyRewritesAnInlineTable(t *testing.T) {
	text := "network = \"cfgtest\"\nlisten = [\"/ip4/127.0.0.1/tcp/0\"]\napi = \"127.0.0.1:0\"\nmarket = {max_price = \"0.5\", queue = 9}\n"
	dir := writeConfig(t, text)
	res, err := node.SetConfigKey(dir, "market.max_price", "0.75")
	require.NoError(t, err)
	require.True(t, res.Rewritten)
	for key, want := range map[string]any{"market.max_price": "0.75", "market.queue": int64(9), "network": "cfgtest"} {
		v, err := node.GetConfigKey(dir, key)
		require.NoError(t, err)
		require.Equal(t, want, v.Value, key)
	}
}

// get reports a known key the file lacks as unset, with its type's zero.
func TestGetConfigKeyUnsetAndUnset(t *testing.T) {
	dir := writeConfig(t, commentedConfig)
	v, err := node.GetConfigKey(dir, "market.queue")
	require.NoError(t, err)
	require.Equal(t, node.ConfigValue{Key: "market.queue", Value: 0, Set: false}, v)
	v, err = node.GetConfigKey(dir, "p2p.relays")
	require.NoError(t, err)
	require.Equal(t, []any{}, v.Value)

	res, err := node.UnsetConfigKey(dir, "market.max_price")
	require.NoError(t, err)
	require.True(t, res.Changed)
	require.NotContains(t, readConfig(t, dir), "max_price")
	require.Contains(t, readConfig(t, dir), "# never more than this", "comments stay")
	v, err = node.GetConfigKey(dir, "market.max_price")
	require.NoError(t, err)
	require.False(t, v.Set)

	_, err = node.UnsetConfigKey(dir, "api")
	require.ErrorContains(t, err, "config api: ")
}

// Every key ConfigKeys lists is one get can read.
func TestConfigKeysAreReadable(t *testing.T) {
	dir := writeConfig(t, commentedConfig)
	keys := node.ConfigKeys()
	require.NotEmpty(t, keys)
	seen := map[string]bool{}
	for _, k := range keys {
		seen[k.Key] = true
		_, err := node.GetConfigKey(dir, k.Key)
		require.NoError(t, err, k.Key)
	}
	for _, k := range []string{"api", "listen", "network", "market.max_price", "settlement.rpc", "gateway.listen", "policy"} {
		require.True(t, seen[k], k)
	}
}
