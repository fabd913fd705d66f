package node

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/market/builtin"
	mcphandler "github.com/swarmwage/swarmwage/market/handler/mcp"
	"github.com/swarmwage/swarmwage/market/handler/openai"
	"github.com/swarmwage/swarmwage/sandbox"
)

// testErr makes an input that does not fit the listing a bad request.
func testErr(err error) error {
	if errors.Is(err, market.ErrTestInput) {
		return fmt.Errorf("%w: %w", controlapi.ErrBadRequest, err)
	}
	return err
}

// TestListing runs the daemon's listing of req.Capability locally.
func (n *Node) TestListing(ctx context.Context, req controlapi.TestListingRequest) (market.TestResult, error) {
	ctx, cancel := context.WithTimeout(ctx, req.Timeout())
	defer cancel()
	res, err := n.Market.TestListing(ctx, req.Capability, req.Input)
	return res, testErr(err)
}

// TestListing runs the repo's listing of req.Capability without a daemon,
// with built-in handlers of its own (the sandbox starts only if the
// listing needs it, and reuses the repo's compile cache).
func (l *Local) TestListing(ctx context.Context, req controlapi.TestListingRequest) (market.TestResult, error) {
	o, err := l.Store.Get(ctx, req.Capability)
	if err != nil {
		return market.TestResult{}, err
	}
	sb := &lazySandbox{opts: []sandbox.Option{sandbox.WithCacheDir(filepath.Join(l.Repo.CacheDir(), "wazero"))}}
	reg, err := builtin.New(builtin.WithSandbox(sb))
	if err != nil {
		return market.TestResult{}, errors.Join(err, sb.close())
	}
	ctx, cancel := context.WithTimeout(ctx, req.Timeout())
	defer cancel()
	mcp := mcphandler.New(mcphandler.Options{})
	runners := map[string]market.Runner{market.HandlerOpenAI: openai.New(openai.Options{}), market.HandlerMCP: mcp, market.HandlerMCPHTTP: mcp}
	res, err := market.TestOfferWith(ctx, o, req.Input, reg, nil, runners)
	return res, errors.Join(testErr(err), sb.close(), mcp.Close())
}
