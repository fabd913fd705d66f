package openai

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The decoders read answers of a model server the seller configured but
// does not control: none may panic, and what they return stays within
// their limits.

func FuzzDecodeChatNoPanic(f *testing.F) {
	f.Add([]byte(`{"choices":[{"index":0,"message":{"role":"assistant","content":"{\"summary\":\"x\"}"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`))
	f.Add([]byte(`{"choices":[{"message":{"content":null,"refusal":"no"}}]}`))
	f.Add([]byte(`{"choices":[]}`))
	f.Add([]byte(`{"usage":{"prompt_tokens":-5}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := decodeChat(data)
		if err == nil && a.content == "" && !json.Valid(data) {
			t.Fatalf("invalid JSON decoded: %q", data)
		}
		p, c, tot := a.usage.tokens()
		if p < 0 || c < 0 || tot < 0 {
			t.Fatalf("negative usage %d %d %d", p, c, tot)
		}
	})
}

func FuzzDecodeChatStreamNoPanic(f *testing.F) {
	f.Add("data: {\"choices\":[{\"delta\":{\"content\":\"he\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"llo\"},\"finish_reason\":\"stop\"}]}\n\ndata: {\"choices\":[],\"usage\":{\"total_tokens\":4}}\n\ndata: [DONE]\n\n")
	f.Add(": ping\n\nevent: x\ndata: {\"error\":{\"message\":\"boom\"}}\n\n")
	f.Add("data: {}\r\n\r\n")
	f.Add("data: not json\n")
	f.Fuzz(func(t *testing.T, s string) {
		const limit = 64
		a, err := decodeChatStream(strings.NewReader(s), limit)
		if err == nil && len(a.content) > limit {
			t.Fatalf("content of %d bytes past the %d limit", len(a.content), limit)
		}
	})
}

func FuzzDecodeEmbeddingsNoPanic(f *testing.F) {
	f.Add([]byte(`{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,-0.2]}],"usage":{"prompt_tokens":2,"total_tokens":2}}`))
	f.Add([]byte(`{"data":[{"index":1,"embedding":[1]}]}`))
	f.Add([]byte(`{"data":[{"index":0,"embedding":"AAAA"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, _, err := decodeEmbeddings(data)
		if err == nil && len(v) == 0 {
			t.Fatal("no error and no vector")
		}
	})
}

func FuzzDecodeImagesNoPanic(f *testing.F) {
	f.Add([]byte(`{"created":1,"data":[{"b64_json":"iVBORw0KGgo="}]}`))
	f.Add([]byte(`{"data":[{"url":"http://x/1.png"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, _, err := decodeImages(data)
		if err == nil && b == "" {
			t.Fatal("no error and no image")
		}
	})
}

func FuzzDecodeErrorNoPanic(f *testing.F) {
	f.Add([]byte(`{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`))
	f.Add([]byte(`{"error":"model not found"}`))
	f.Add([]byte("<html>\xff\xfe</html>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if m := decodeError(data); len(m) > 303 {
			t.Fatalf("message of %d bytes", len(m))
		}
	})
}

func FuzzOutputFromContentNoPanic(f *testing.F) {
	schema := json.RawMessage(`{"type":"object","required":["summary"],"properties":{"summary":{"type":"string"}}}`)
	f.Add("{\"summary\":\"x\"}")
	f.Add("<think>hmm</think>```json\n{\"summary\":\"x\"}\n```")
	f.Add("Sure! {\"a\": {\"b\": 1}} done")
	f.Add("just text")
	f.Fuzz(func(t *testing.T, s string) {
		out, err := outputFromContent(s, schema)
		if err != nil {
			return
		}
		var obj map[string]any
		if json.Unmarshal(out, &obj) != nil {
			t.Fatalf("output %q is not a JSON object", out)
		}
	})
}

func TestRetryAfter(t *testing.T) {
	now := mustTime(t, "Wed, 21 Oct 2026 07:28:00 GMT")
	for _, tc := range []struct {
		in   string
		want string
		ok   bool
	}{
		{"3", "3s", true},
		{"0.5", "500ms", true},
		{"Wed, 21 Oct 2026 07:28:10 GMT", "10s", true},
		{"Wed, 21 Oct 2026 07:27:00 GMT", "0s", true},
		{"-1", "", false},
		{"100000", "", false},
		{"soon", "", false},
		{"", "", false},
	} {
		d, ok := retryAfter(tc.in, now)
		if ok != tc.ok || ok && d.String() != tc.want {
			t.Errorf("retryAfter(%q) = %s, %v; want %s, %v", tc.in, d, ok, tc.want, tc.ok)
		}
	}
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	tm, err := http.ParseTime(s)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}
