package canon

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzJSONBytes checks that stable JSON accepts what encoding/json
// accepts, gives valid JSON, and is a fixed point.
func FuzzJSONBytes(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[1e21,-0,"\u2028"]}`, `"\ud800"`, `{"é":1,"😀":2,"\ufb01":3}`, `[[],{}]`, `1E400`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := JSONBytes(data)
		if err != nil {
			if json.Valid(data) && utf8.Valid(data) && bytes.Count(data, []byte("["))+bytes.Count(data, []byte("{")) < maxJSONDepth {
				t.Fatalf("valid JSON %q rejected: %v", data, err)
			}
			return
		}
		if !json.Valid(out) {
			t.Fatalf("stable JSON of %q is not JSON: %q", data, out)
		}
		again, err := JSONBytes(out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("not a fixed point: %q -> %q -> %q (%v)", data, out, again, err)
		}
	})
}
