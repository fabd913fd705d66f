package node

import (
	"testing"

	"github.com/BurntSushi/toml"
)

// FuzzTOMLLineEditNoPanic: the line editor of 'config set' meets whatever
// a person wrote in config.toml; it never panics, and what it writes for
// a file that parses either parses or is caught by decodesTo.
func FuzzTOMLLineEditNoPanic(f *testing.F) {
	f.Add("network = \"lab\" # c\nlisten = [\n \"/ip4/127.0.0.1/tcp/0\",\n]\n[market]\nmax_price = \"1\"\n", "market.max_price", `"0.5"`)
	f.Add("a = \"\"\"\nx = 1\n\"\"\"\n[[policy]]\nmax_price = \"2\"\n", "market.queue", "3")
	f.Add("market = {queue = 1}\n", "market.queue", "4")
	f.Add("[market]\n", "api", `"127.0.0.1:0"`)
	f.Add("# only a comment", "network", `"x"`)
	f.Fuzz(func(t *testing.T, src, key, enc string) {
		if len(src) > 4096 || len(key) > 64 || key == "" {
			return
		}
		out, err := setTOMLKey([]byte(src), key, enc)
		if err == nil && len(out) == 0 {
			t.Fatal("an edit made the file empty")
		}
		_, _ = removeTOMLKey([]byte(src), key)
		_ = trailingComment(src)
		var probe map[string]any
		_, _ = toml.Decode(string(out), &probe)
	})
}
