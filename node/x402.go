package node

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"sync"

	"github.com/ethereum/go-ethereum/common"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/escrow/evm"
	"github.com/swarmwage/swarmwage/gateway/x402"
	"github.com/swarmwage/swarmwage/market"
)

// The x402 door (package gateway/x402) over this node: its hire service
// and its evm rail. The gateway mounts it at POST /x402/{capability} when
// [gateway] listen is set on an evm node (x402.Mount).

// ErrNoEVM: the x402 door needs the evm rail.
var ErrNoEVM = errors.New("the x402 door needs the evm settlement rail ([settlement] rail = \"evm\")")

// NewX402 builds the x402 door of this node, with cfg's fee ([gateway]
// fee) added to every seller's price. The gateway mounts it with
// x402.Mount when [gateway] listen is set on an evm node, and closes it
// before the node.
func (n *Node) NewX402(cfg x402.Config, opts ...x402.Option) (*x402.Handler, error) {
	if n.Settler == nil {
		return nil, ErrNoEVM
	}
	fee, err := cfg.FeeUnits()
	if err != nil {
		return nil, err
	}
	opts = append([]x402.Option{x402.WithFee(fee), x402.WithLogger(n.log)}, opts...)
	return x402.New(x402Hirer{n}, &x402Chain{s: n.Settler}, n.DB, opts...)
}

// MountX402 serves the x402 door on mux (POST /x402/{capability}) when this
// node is on the evm rail, and returns it for the caller to close before
// the node; on credits it mounts nothing and returns nil. The gateway calls
// it for [gateway] listen.
func (n *Node) MountX402(mux *http.ServeMux, cfg x402.Config, opts ...x402.Option) (*x402.Handler, error) {
	if n.Settler == nil {
		return nil, nil
	}
	h, err := n.NewX402(cfg, opts...)
	if err != nil {
		return nil, fmt.Errorf("x402 door: %w", err)
	}
	x402.Mount(mux, h)
	return h, nil
}

// x402Hirer is the hire service as the door uses it.
type x402Hirer struct{ n *Node }

// Quote prices a job through the hire service's own steps up to the quote
// (market.Buyer.Price): what the hire that follows pays, its quote kept.
func (h x402Hirer) Quote(ctx context.Context, capID string, input json.RawMessage) (int64, error) {
	price, err := h.n.Market.Buyer.Price(ctx, market.HireRequest{Capability: capID, Input: input})
	switch {
	case errors.Is(err, market.ErrInvalidInput):
		return 0, fmt.Errorf("%w: %w", x402.ErrInvalidInput, err)
	case err != nil:
		return 0, fmt.Errorf("%w: %w", x402.ErrNoSeller, err)
	}
	return int64(price), nil
}

func (h x402Hirer) Hire(ctx context.Context, req x402.HireRequest) x402.HireResult {
	info := h.n.runHire(ctx, market.HireRequest{Capability: req.Capability, Input: req.Input, MaxPrice: req.MaxPrice, Timeout: req.Timeout}, nil)
	price, _ := escrow.ParseAmount(info.Price)
	report, _ := json.Marshal(info.Verification)
	ok := info.Verification.Passed && (info.Outcome == controlapi.OutcomeReleased || info.Outcome == controlapi.OutcomeDelivered)
	return x402.HireResult{JobID: info.JobID, Capability: info.Capability, Seller: info.Seller, Price: price,
		Output: info.Output, Verification: report, Passed: ok, Outcome: info.Outcome, Error: info.Error}
}

// x402Chain is the evm rail as the door uses it; the token's domain is
// read once.
type x402Chain struct {
	s     *evm.Settler
	mu    sync.Mutex
	terms *x402.Terms
}

func (c *x402Chain) Terms(ctx context.Context) (x402.Terms, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.terms != nil {
		return *c.terms, nil
	}
	r, err := c.s.Chain(ctx)
	if err != nil {
		return x402.Terms{}, err
	}
	d, err := r.TokenDomain(ctx)
	if err != nil {
		return x402.Terms{}, err
	}
	if !d.ChainID.IsInt64() {
		return x402.Terms{}, fmt.Errorf("chain ID %s out of range", d.ChainID)
	}
	c.terms = &x402.Terms{Domain: d, PayTo: r.Address()}
	return *c.terms, nil
}

func (c *x402Chain) AuthorizationState(ctx context.Context, from common.Address, nonce [32]byte) (bool, error) {
	r, err := c.s.Chain(ctx)
	if err != nil {
		return false, err
	}
	return r.AuthorizationState(ctx, from, nonce)
}

func (c *x402Chain) TokenBalance(ctx context.Context, addr common.Address) (*big.Int, error) {
	r, err := c.s.Chain(ctx)
	if err != nil {
		return nil, err
	}
	return r.TokenBalance(ctx, addr)
}

func (c *x402Chain) TransferWithAuthorization(ctx context.Context, a evm.Authorization, sig []byte) (common.Hash, error) {
	r, err := c.s.Chain(ctx)
	if err != nil {
		return common.Hash{}, err
	}
	res, err := r.TransferWithAuthorization(ctx, a, sig)
	if err != nil {
		return common.Hash{}, err
	}
	return res.Hash, nil
}

func (c *x402Chain) AuthorizationUsedTx(ctx context.Context, from common.Address, nonce [32]byte) (common.Hash, bool, error) {
	r, err := c.s.Chain(ctx)
	if err != nil {
		return common.Hash{}, false, err
	}
	return r.AuthorizationUsedTx(ctx, from, nonce)
}
