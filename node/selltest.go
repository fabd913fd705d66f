package node

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"time"

	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/market/builtin"
	mcphandler "github.com/swarmwage/swarmwage/market/handler/mcp"
	"github.com/swarmwage/swarmwage/market/handler/openai"
	"github.com/swarmwage/swarmwage/sandbox"
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

func (r TestListingRequest) timeout() time.Duration {
	if r.TimeoutMS <= 0 {
		return DefaultTestTimeout
	}
	return time.Duration(r.TimeoutMS) * time.Millisecond
}

// testErr makes an input that does not fit the listing a bad request.
func testErr(err error) error {
	if errors.Is(err, market.ErrTestInput) {
		return fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	return err
}

// TestListing runs the daemon's listing of req.Capability locally.
func (n *Node) TestListing(ctx context.Context, req TestListingRequest) (market.TestResult, error) {
	ctx, cancel := context.WithTimeout(ctx, req.timeout())
	defer cancel()
	res, err := n.Market.TestListing(ctx, req.Capability, req.Input)
	return res, testErr(err)
}

// TestListing runs the repo's listing of req.Capability without a daemon,
// with built-in handlers of its own (the sandbox starts only if the
// listing needs it, and reuses the repo's compile cache).
func (l *Local) TestListing(ctx context.Context, req TestListingRequest) (market.TestResult, error) {
	o, err := l.Store.Get(ctx, req.Capability)
	if err != nil {
		return market.TestResult{}, err
	}
	sb := &lazySandbox{opts: []sandbox.Option{sandbox.WithCacheDir(filepath.Join(l.Repo.CacheDir(), "wazero"))}}
	reg, err := builtin.New(builtin.WithSandbox(sb))
	if err != nil {
		return market.TestResult{}, errors.Join(err, sb.close())
	}
	ctx, cancel := context.WithTimeout(ctx, req.timeout())
	defer cancel()
	mcp := mcphandler.New(mcphandler.Options{})
	runners := map[string]market.Runner{market.HandlerOpenAI: openai.New(openai.Options{}), market.HandlerMCP: mcp, market.HandlerMCPHTTP: mcp}
	res, err := market.TestOfferWith(ctx, o, req.Input, reg, nil, runners)
	return res, errors.Join(testErr(err), sb.close(), mcp.Close())
}

func (a *apiServer) handleTestListing(w http.ResponseWriter, r *http.Request) {
	var req TestListingRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		apiError(w, http.StatusBadRequest, "decode test request: "+err.Error())
		return
	}
	res, err := a.n.TestListing(r.Context(), req)
	if err != nil {
		apiFail(w, err)
		return
	}
	apiJSON(w, res)
}

// TestListing runs a listing's handler in the daemon, locally.
func (c *Client) TestListing(ctx context.Context, req TestListingRequest) (market.TestResult, error) {
	var out market.TestResult
	return out, c.do(ctx, http.MethodPost, "/v1/listings/test", req, &out)
}
