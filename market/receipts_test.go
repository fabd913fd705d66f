package market

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market/builtin"
	"github.com/swarmwage/swarmwage/reputation"
	"github.com/swarmwage/swarmwage/verify"
)

// A seller serves the receipts of the jobs it sold; a buyer's find scores
// them; a refund of output the verifier accepts is shown false and, with
// RefuseFalseRefunders, that buyer's quotes are refused.
func TestReceiptsServeReputationAndExposeFalseRefunds(t *testing.T) {
	reg, err := builtin.New()
	require.NoError(t, err)
	boot := setupPeer(t, nil)
	seller := setupPeer(t, boot, Builtin(reg), RefuseFalseRefunders(), PublishPayloads())
	buyer := setupPeer(t, boot)
	addListing(t, seller, "compute.statistics.mean", 10_000)
	waitProvided(t, boot, seller, buyer)
	ctx := context.Background()
	require.NoError(t, buyer.market.escrow.Deposit(ctx, 1_000_000, "test"))
	for range 3 {
		_, err := buyer.market.Hire(ctx, HireRequest{Capability: "compute.statistics.mean", Input: json.RawMessage(`{"data":[1,2,3]}`), Timeout: 20 * time.Second})
		require.NoError(t, err)
	}
	// The seller has the releases once the buyer's settles arrive.
	require.Eventually(t, func() bool {
		rs, _, err := seller.market.escrow.Receipts(ctx, escrow.ReceiptFilter{})
		return err == nil && len(rs) == 3
	}, 10*time.Second, 50*time.Millisecond)

	var resp ReceiptsResponse
	_, _, err = buyer.market.client.do(ctx, buyer.market.addrsOf(seller.host.ID()), http.MethodGet, "/receipts?limit=2&payloads=1", nil, maxReceiptsResponse, &resp)
	require.NoError(t, err)
	require.Len(t, resp.Receipts, 2)
	require.NotEmpty(t, resp.Next, "paged")
	for _, r := range resp.Receipts {
		require.NoError(t, r.Check())
		require.NotNil(t, r.Output, "this seller publishes payloads")
	}

	buyer.market.forgetFind("compute.statistics.mean")
	buyer.routing.Forget("compute.statistics.mean")
	buyer.market.reps.mu.Lock()
	clear(buyer.market.reps.m) // scored at the first hire, before any receipt
	buyer.market.reps.mu.Unlock()
	res, err := buyer.market.Find(ctx, "compute.statistics.mean", 5)
	require.NoError(t, err)
	require.Len(t, res.Sellers, 1)
	rep := res.Sellers[0].Reputation
	require.NotNil(t, rep)
	require.Equal(t, reputation.Summary{Released: 3, SelfIssued: 30_000, Buyers: 1, KnownBuyers: 1, Checked: 3, FirstAt: rep.FirstAt, Score: rep.Score}, *rep)
	require.Greater(t, rep.Score, 0.0)

	// A dishonest buyer refunds a correct output by hand (its escrow lets it
	// inside the window). The seller checks and remembers.
	in := []byte(`{"data":[2,4]}`)
	l, err := buyer.market.escrow.Lock(ctx, escrow.LockParams{
		QuoteID: "q", Capability: "compute.statistics.mean", Seller: seller.host.ID(), Amount: 10_000,
		Deadline: time.Now().Add(time.Minute), Window: time.Minute, Input: in,
	})
	require.NoError(t, err)
	_, err = seller.market.escrow.AcceptLock(ctx, l, in)
	require.NoError(t, err)
	out := []byte(`{"result":3}`)
	rep2, err := verify.Verify(ctx, "compute.statistics.mean", in, out)
	require.NoError(t, err)
	require.True(t, rep2.Passed, "the output is right")
	d, err := seller.market.escrow.Deliver(ctx, l.JobID, out)
	require.NoError(t, err)
	require.NoError(t, buyer.market.escrow.RecordDelivery(ctx, d, out))
	st, err := buyer.market.escrow.Refund(ctx, l.JobID, "I do not like it", []string{"value_matches"})
	require.NoError(t, err)
	require.True(t, buyer.market.sendSettleOnce(ctx, buyer.market.addrsOf(seller.host.ID()), st))
	require.Eventually(t, func() bool { return seller.market.falseRefunder(buyer.host.ID()) == l.JobID }, 10*time.Second, 50*time.Millisecond)

	_, err = buyer.market.Hire(ctx, HireRequest{Capability: "compute.statistics.mean", Input: json.RawMessage(`{"data":[1]}`), Timeout: 10 * time.Second})
	require.ErrorIs(t, err, ErrNoSeller)
	require.Contains(t, err.Error(), "refunded output")

	ev, err := seller.market.escrow.Evidence(ctx, l.JobID)
	require.NoError(t, err)
	require.NoError(t, ev.Check())
	require.JSONEq(t, string(in), string(ev.Input))
}
