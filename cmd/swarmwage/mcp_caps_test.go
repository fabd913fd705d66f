package main

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Regression: two 'swarmwage mcp' processes on one daemon, each with
// --max-per-day 0.25, hired 9 times 0.05 between them where 5 fit. The
// daemon now checks the cap inside the escrow lock.
func TestTwoMCPProcessesShareTheDayCap(t *testing.T) {
	t.Parallel()
	m := startMarket(t, "")
	m.sell(t, "compute.statistics.mean", "0.05")
	procs := []*sdk.ClientSession{
		stdioClient(t, m.buyer, "--max-per-day", "0.25"),
		stdioClient(t, m.buyer, "--max-per-day", "0.25"),
	}
	const perProc = 5
	type result struct {
		isError bool
		outcome string
		text    string
	}
	results := make(chan result, len(procs)*perProc)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for _, cs := range procs {
		for range perProc {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
				defer cancel()
				res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "swarmwage_hire", Arguments: map[string]any{
					"capability": "compute.statistics.mean", "input": map[string]any{"data": []int{2, 4}}, "max_price": "0.05",
				}})
				if !assert.NoError(t, err) {
					return
				}
				sc, _ := res.StructuredContent.(map[string]any)
				outcome, _ := sc["outcome"].(string)
				results <- result{isError: res.IsError, outcome: outcome, text: firstText(res)}
			}()
		}
	}
	close(start)
	wg.Wait()
	close(results)
	released := 0
	for r := range results {
		if !r.isError {
			assert.Equal(t, "released", r.outcome)
			released++
			continue
		}
		assert.True(t, strings.Contains(r.text, "per-day cap") && strings.Contains(r.text, "--max-per-day"), r.text)
	}
	require.Equal(t, 5, released, "0.25 / 0.05 hires fit in the day")
	b := balance(t, m.buyer)
	require.Equal(t, "0.25", b.Paid)
	require.Equal(t, "0", b.Held)
	require.Equal(t, "9.75", b.Available)
}
