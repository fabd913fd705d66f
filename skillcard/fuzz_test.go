package skillcard

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func FuzzParseValidateNoPanic(f *testing.F) {
	example, err := os.ReadFile("testdata/apeclaw-nft-autobuy.v1.0.0.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(example)
	f.Add([]byte(`{}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"name":"x","version":"1","bindings":[{"type":"cli","command":"a [b <c>] \"<d>\""}]}`))
	f.Add([]byte(`{"bindings":[{"type":"http","url":"http://[::1]:1/x","method":"PUT"}],"inputs_schema":{"$ref":"#/$defs/a","$defs":{"a":{"type":"object"}}}}`))
	f.Add([]byte(`{"inputs_schema":{"pattern":"(","type":["x"]},"constraints":{"riskTier":2.0},"examples":[{"title":"t","value":{}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data)
		if err != nil {
			return
		}
		_ = c.Validate()
		_ = c.Err()
		if len(c.ContentHash()) != 66 {
			t.Fatalf("content hash %q", c.ContentHash())
		}
		_ = c.VersionHash()
		_ = c.FileName()
		_, _ = c.Publisher(), c.RiskTier()
		_ = c.ValidateInput(json.RawMessage(`{"count":1}`))
		for _, b := range c.Bindings {
			if tmpl, err := parseTemplate(b.Command); err == nil {
				_, _ = tmpl.expand(map[string]any{"count": json.Number("1"), "execute": true})
			}
		}
	})
}

// FuzzTemplateValuesNeverStartAnOption checks the argument-injection rule
// against an oracle: expanded with any values, every argument starts with
// exactly as many dashes as it does when every value is a harmless "Z", so
// no dash at the start of an argument ever comes from an input value.
func FuzzTemplateValuesNeverStartAnOption(f *testing.F) {
	for _, s := range [][3]string{
		{"tool <a>.txt", "--output=/tmp/x", ""},
		{"tool <a><b>", "-", "-exec=/bin/sh"},
		{"tool -<a> --x=<b>", "-exec", "-1"},
		{"tool <a>-<b> [--f <b>]", "", "x"},
		{`tool "<a> <b>" [-<a>]`, "-", "--"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	dashes := func(s string) int { return len(s) - len(strings.TrimLeft(s, "-")) }
	f.Fuzz(func(t *testing.T, command, a, b string) {
		tmpl, err := parseTemplate(command)
		if err != nil {
			return
		}
		got, err := tmpl.expand(map[string]any{"a": a, "b": b})
		if err != nil {
			return
		}
		safe, err := tmpl.expand(map[string]any{"a": "Z", "b": "Z"})
		if err != nil {
			t.Fatalf("%q with harmless values: %v", command, err)
		}
		if len(got) != len(safe) {
			t.Fatalf("%q: %d arguments, %d with harmless values", command, len(got), len(safe))
		}
		for i := range got {
			if dashes(got[i]) != dashes(safe[i]) {
				t.Fatalf("%q with a=%q b=%q: argument %q starts with dashes from a value (harmless: %q)", command, a, b, got[i], safe[i])
			}
		}
	})
}
