package gateway

import (
	"encoding/json"
	"errors"
	"testing"
	"time"
)

// Fuzz targets for every decoder of bytes a client sends: the JSON-RPC
// envelope, each method's params and the hire a message asks for. Each
// must answer with a value or an error, never panic, and keep its
// promises on what it accepts.

func FuzzDecodeRequest(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{}}`,
		`{"jsonrpc":"2.0","id":"a","method":"GetTask","params":{"id":"x"}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"GetTask"}]`,
		`{"jsonrpc":"1.0","id":1,"method":"x"}`,
		`{"jsonrpc":"2.0","id":{},"method":"x"}`,
		`{"jsonrpc":"2.0","method":"x"}`,
		``, `null`, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		req, rerr := decodeRequest(b)
		if rerr != nil {
			if rerr.Code == 0 || rerr.Message == "" {
				t.Fatalf("error without code or message: %+v", rerr)
			}
			if len(req.ID) == 0 {
				t.Fatal("an error answer needs an id, null at least")
			}
			return
		}
		if req.JSONRPC != "2.0" || req.Method == "" || len(req.Method) > maxMethodLen || !validID(req.ID) {
			t.Fatalf("accepted a bad request: %+v", req)
		}
	})
}

func FuzzDecodeSend(f *testing.F) {
	for _, s := range []string{
		`{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"data":{"capability":"compute.statistics.mean","input":{"data":[1]},"max_price":"0.05"}}]}}`,
		`{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"data":{"capability":"c","input":{},"max_price":0.05,"timeout":"10s","seller":"x"}}]}}`,
		`{"message":{"messageId":"m","role":"ROLE_USER","metadata":{"skillId":"compute.statistics.mean"},"parts":[{"data":{"data":[1,2]}}]}}`,
		`{"message":{"messageId":"m","parts":[{"text":"{\"capability\":\"c\",\"input\":{}}"}]}}`,
		`{"message":{"messageId":"m","role":"ROLE_AGENT","parts":[{"text":"hi"}]}}`,
		`{"message":{"messageId":"m","parts":[]}}`,
		`{"message":null}`, `{}`, `null`, `[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, spec, err := decodeSend(b)
		if err != nil {
			if !errors.Is(err, errBadParams) {
				t.Fatalf("error is not invalid params: %v", err)
			}
			return
		}
		if p.Message == nil || len(p.Message.Parts) == 0 || len(p.Message.Parts) > maxParts {
			t.Fatalf("accepted a bad message: %+v", p.Message)
		}
		if spec.Capability == "" || spec.Capability == SkillHire || len(spec.Input) == 0 || spec.MaxPrice < 0 || spec.Timeout < 0 || spec.Timeout > maxHireTimeout {
			t.Fatalf("accepted a bad hire: %+v", spec)
		}
		if !json.Valid(spec.Input) {
			t.Fatalf("input is not JSON: %q", spec.Input)
		}
		// Every accepted hire passes through the caps without panic.
		_, _ = Caps{MaxPerHire: 50_000, MaxPerDay: 80_000}.request(spec, time.Unix(0, 0))
	})
}

func FuzzTaskParams(f *testing.F) {
	for _, s := range []string{
		`{"id":"0123456789abcdef0123456789abcdef","historyLength":2}`,
		`{"contextId":"c","status":"TASK_STATE_COMPLETED","pageSize":10,"pageToken":"0123456789abcdef0123456789abcdef","includeArtifacts":true}`,
		`{"pageSize":-1}`, `{"status":"done"}`, `{"historyLength":-5}`, `null`, `1`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var ip TaskIDRequest
		if err := decodeParams(b, &ip); err == nil {
			task := Task{ID: ip.ID, History: []Message{{MessageID: "a"}, {MessageID: "b"}}}
			got := historyLimit(task, ip.HistoryLength)
			if len(got.History) > 2 {
				t.Fatal("history grew")
			}
			_ = validTaskID(ip.ID)
		}
		var lp ListTasksRequest
		_ = decodeParams(b, &lp)
	})
}

func FuzzParsePrice(f *testing.F) {
	for _, s := range []string{`"0.05"`, `0.05`, `1`, `"-1"`, `"1e3"`, `"abc"`, `"0"`, `""`, `true`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := parsePrice(b)
		if err == nil && p <= 0 {
			t.Fatalf("accepted price %d from %q", p, b)
		}
	})
}
