package controlapi

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/swarmwage/swarmwage/market"
)

// DefaultTestTimeout bounds 'sell test' when it names no timeout: the
// longest job a seller accepts by default.
const DefaultTestTimeout = 5 * time.Minute

// TestListingRequest runs a listing's handler locally on Input
// ('swarmwage sell test'), as a job would, and verifies the output as a
// buyer would. Nothing goes to the network or the escrow.
type TestListingRequest struct {
	Capability string          `json:"capability"`
	Input      json.RawMessage `json:"input"`
	// TimeoutMS bounds the run; 0: DefaultTestTimeout.
	TimeoutMS int64 `json:"timeout_ms,omitempty"`
}

// Timeout is how long the run may take.
func (r TestListingRequest) Timeout() time.Duration {
	if r.TimeoutMS <= 0 {
		return DefaultTestTimeout
	}
	return time.Duration(r.TimeoutMS) * time.Millisecond
}

// TestListing runs a listing's handler in the daemon, locally.
func (c *Client) TestListing(ctx context.Context, req TestListingRequest) (market.TestResult, error) {
	var out market.TestResult
	return out, c.do(ctx, http.MethodPost, "/v1/listings/test", req, &out)
}
