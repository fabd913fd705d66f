package gateway

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
)

func msgWith(parts []Part, meta map[string]any) *Message {
	return &Message{MessageID: "m", Role: RoleUser, Parts: parts, Metadata: meta}
}

func dataOf(s string) Part { return Part{Data: json.RawMessage(s)} }

func TestHireOf(t *testing.T) {
	testCases := []struct {
		name    string
		msg     *Message
		wantCap string
		wantIn  string
		wantMax int64
		wantErr string
	}{
		{"data part", msgWith([]Part{dataOf(`{"capability":"compute.statistics.mean","input":{"data":[1]},"max_price":"0.05"}`)}, nil), "compute.statistics.mean", `{"data":[1]}`, 50_000, ""},
		{"price as a number", msgWith([]Part{dataOf(`{"capability":"c.d","input":{},"max_price":0.5}`)}, nil), "c.d", `{}`, 500_000, ""},
		{"skill for capability", msgWith([]Part{dataOf(`{"skill":"c.d","input":{}}`)}, nil), "c.d", `{}`, 0, ""},
		{"skill in metadata, data is the input", msgWith([]Part{dataOf(`{"data":[2]}`)}, map[string]any{"skillId": "compute.statistics.mean"}), "compute.statistics.mean", `{"data":[2]}`, 0, ""},
		{"generic skill in metadata needs a capability", msgWith([]Part{dataOf(`{"input":{}}`)}, map[string]any{"skillId": SkillHire}), "", "", 0, "capability is missing"},
		{"text part with JSON", msgWith([]Part{textPart(`{"capability":"c.d","input":{"x":1}}`)}, nil), "c.d", `{"x":1}`, 0, ""},
		{"no data", msgWith([]Part{textPart("please summarize")}, nil), "", "", 0, "no data part"},
		{"no input", msgWith([]Part{dataOf(`{"capability":"c.d"}`)}, nil), "", "", 0, "input is missing"},
		{"unknown key", msgWith([]Part{dataOf(`{"capability":"c.d","input":{},"price":1}`)}, nil), "", "", 0, "unknown field"},
		{"bad price", msgWith([]Part{dataOf(`{"capability":"c.d","input":{},"max_price":"cheap"}`)}, nil), "", "", 0, "max_price"},
		{"zero price", msgWith([]Part{dataOf(`{"capability":"c.d","input":{},"max_price":"0"}`)}, nil), "", "", 0, "more than 0"},
		{"bad seller", msgWith([]Part{dataOf(`{"capability":"c.d","input":{},"seller":"bob"}`)}, nil), "", "", 0, "not a peer ID"},
		{"timeout too long", msgWith([]Part{dataOf(`{"capability":"c.d","input":{},"timeout":"2h"}`)}, nil), "", "", 0, "timeout"},
		{"data not an object", msgWith([]Part{dataOf(`[1,2]`)}, nil), "", "", 0, "not a JSON object"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			spec, err := hireOf(tc.msg)
			if tc.wantErr != "" {
				require.ErrorIs(t, err, errBadParams)
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.wantCap, spec.Capability)
			require.JSONEq(t, tc.wantIn, string(spec.Input))
			require.Equal(t, tc.wantMax, spec.MaxPrice)
		})
	}
}

func TestCapsRequest(t *testing.T) {
	now := time.Date(2026, 5, 4, 15, 30, 0, 0, time.UTC)
	midnight := time.Date(2026, 5, 4, 0, 0, 0, 0, time.UTC)
	testCases := []struct {
		name        string
		caps        Caps
		asked       int64
		wantMax     int64
		wantLimit   int64
		wantSince   time.Time
		wantRefused bool
	}{
		{"no caps: the hire is only tagged", Caps{}, 0, 0, 0, time.Time{}, false},
		{"per-hire cap is the limit without max_price", Caps{MaxPerHire: 40_000}, 0, 40_000, 0, time.Time{}, false},
		{"max_price under the cap stays", Caps{MaxPerHire: 40_000}, 30_000, 30_000, 0, time.Time{}, false},
		{"max_price over the cap is refused", Caps{MaxPerHire: 40_000}, 50_000, 0, 0, time.Time{}, true},
		{"per-day cap goes to the lock", Caps{MaxPerDay: 80_000}, 50_000, 50_000, 80_000, midnight, false},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := tc.caps.request(hireSpec{Capability: "c.d", Input: json.RawMessage(`{}`), MaxPrice: tc.asked}, now)
			if tc.wantRefused {
				require.True(t, errors.Is(err, errCap), "%v", err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.wantMax, req.MaxPrice)
			require.True(t, req.RequireConfirm, "an outside agent cannot confirm risk tier 3")
			require.Equal(t, []escrow.SpendCap{{Name: capPerDay, Scope: gatewayScope, Since: tc.wantSince, Limit: tc.wantLimit}}, req.SpendCaps)
		})
	}
}

func TestDecodeRequest(t *testing.T) {
	testCases := []struct {
		name     string
		body     string
		wantCode int
	}{
		{"ok", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{}}`, 0},
		{"string id", `{"jsonrpc":"2.0","id":"x","method":"GetTask"}`, 0},
		{"not JSON", `{`, codeParseError},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"GetTask"}]`, codeInvalidRequest},
		{"wrong version", `{"jsonrpc":"1.0","id":1,"method":"GetTask"}`, codeInvalidRequest},
		{"notification", `{"jsonrpc":"2.0","method":"GetTask"}`, codeInvalidRequest},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"GetTask"}`, codeInvalidRequest},
		{"no method", `{"jsonrpc":"2.0","id":1}`, codeInvalidRequest},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			_, rerr := decodeRequest([]byte(tc.body))
			if tc.wantCode == 0 {
				require.Nil(t, rerr)
				return
			}
			require.NotNil(t, rerr)
			require.Equal(t, tc.wantCode, rerr.Code)
		})
	}
}
