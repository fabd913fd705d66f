package node_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/node"
)

// TestEventStreamFollowsAHireOnBothSides reads GET /v1/events of a buyer
// and of its seller while a hire runs: each sees the job created, then
// settled as released.
func TestEventStreamFollowsAHireOnBothSides(t *testing.T) {
	boot := startNode(t, newRepo(t, t.TempDir()))
	seller := startNode(t, newRepo(t, t.TempDir()), boot)
	buyer := startNode(t, newRepo(t, t.TempDir()), boot)
	list(t, seller, "compute.statistics.mean", "0.05")
	waitReady(t, boot, seller, buyer)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, buyer.Escrow.Deposit(ctx, mustAmount(t, "1"), "test"))

	buyerEvents := streamEvents(t, ctx, buyer)
	sellerEvents := streamEvents(t, ctx, seller)
	res := buyer.Hire(ctx, market.HireRequest{
		Capability: "compute.statistics.mean", Input: json.RawMessage(`{"data":[1,2]}`), Timeout: 20 * time.Second,
	})
	require.Equal(t, controlapi.OutcomeReleased, res.Outcome, res.Error)

	for _, tc := range []struct {
		role   string
		events <-chan node.Event
	}{{"buyer", buyerEvents}, {"seller", sellerEvents}} {
		var seen []string
		for !contains(seen, node.EventJobSettled+"/released") {
			select {
			case ev := <-tc.events:
				require.Equal(t, res.JobID, ev.JobID)
				require.Equal(t, tc.role, ev.Role)
				require.Equal(t, "compute.statistics.mean", ev.Capability)
				seen = append(seen, ev.Type+"/"+ev.State)
			case <-ctx.Done():
				t.Fatalf("%s: events so far %v, no %s", tc.role, seen, node.EventJobSettled)
			}
		}
		require.Equal(t, node.EventJobCreated+"/", seen[0], "%s: %v", tc.role, seen)
	}
}

// TestNodeCloseEndsEventStreams: an open stream must not hold up the
// daemon's shutdown.
func TestNodeCloseEndsEventStreams(t *testing.T) {
	n := startNode(t, newRepo(t, t.TempDir()))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	events := streamEvents(t, ctx, n)
	// Shutdown gives up after a few seconds with an error if a stream
	// still holds it: no error means the stream ended first.
	require.NoError(t, n.Close())
	select {
	case _, open := <-events:
		require.False(t, open)
	case <-ctx.Done():
		t.Fatal("the stream did not end")
	}
}

// streamEvents opens GET /v1/events with n's bearer token and sends its job
// events on the returned channel, closed when the stream ends.
func streamEvents(t *testing.T, ctx context.Context, n *node.Node) <-chan node.Event {
	t.Helper()
	token, err := os.ReadFile(filepath.Join(n.Repo.Dir, "api.token"))
	require.NoError(t, err)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, n.APIURL()+"/v1/events", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+string(token))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	sc := bufio.NewScanner(resp.Body)
	// The stream is open (subscribed) once its first comment arrives.
	for sc.Scan() && sc.Text() != ": connected" {
	}
	out := make(chan node.Event, 64)
	go func() {
		defer close(out)
		event := ""
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: ") && event == "job":
				var ev node.Event
				if json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &ev) == nil {
					out <- ev
				}
			}
		}
	}()
	return out
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
