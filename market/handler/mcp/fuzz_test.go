package mcp_test

import (
	"encoding/json"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/swarmwage/swarmwage/market/handler/mcp"
)

// FuzzToolOutputNoPanic: a tool's result comes from a server the seller
// runs but does not control; turning it into an output never panics and
// gives a JSON object or an error.
func FuzzToolOutputNoPanic(f *testing.F) {
	f.Add([]byte(`{"content":[{"type":"text","text":"Echo: hi"}]}`))
	f.Add([]byte(`{"content":[],"structuredContent":{"sum":5}}`))
	f.Add([]byte(`{"content":[{"type":"text","text":"boom"}],"isError":true}`))
	f.Add([]byte(`{"content":[{"type":"image","data":"AAAA","mimeType":"image/png"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var res sdk.CallToolResult
		if json.Unmarshal(data, &res) != nil {
			return
		}
		out, err := mcp.Output(&res)
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("output %q is not JSON", out)
		}
	})
}
