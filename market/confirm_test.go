package market

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market/builtin"
)

// A buyer sends its job while its lock is being written and ends the
// request's body once the lock is durable: the seller checks the job
// meanwhile and accepts the lock only at the body's end. A body that
// breaks off instead leaves nothing at the seller.
func TestASellerAcceptsALockOnlyWhenTheBodyEnds(t *testing.T) {
	seller, buyer := setupHire(t)
	ctx := context.Background()
	sellerInfo := peer.AddrInfo{ID: seller.host.ID(), Addrs: seller.host.Addrs()}
	jobBody := func(t *testing.T) ([]byte, *escrow.Lock) { return lockedJobRequest(t, seller, buyer) }
	// handlerDone waits until the seller runs no job handler.
	handlerDone := func(t *testing.T) {
		require.Eventually(t, func() bool { return seller.market.seller.inflight.Load() == 0 }, 20*time.Second, time.Millisecond)
	}
	recorded := func(jobID string) bool {
		_, err := seller.market.escrow.GetRole(ctx, jobID, escrow.RoleSeller)
		return !errors.Is(err, escrow.ErrNotFound)
	}

	t.Run("ended", func(t *testing.T) {
		req, lock := jobBody(t)
		pr, pw := io.Pipe()
		answered := make(chan *http.Response, 1)
		go func() {
			resp, err := buyer.market.client.streamBody(ctx, sellerInfo, "/jobs", pr)
			if err != nil {
				t.Error(err)
			}
			answered <- resp
		}()
		_, err := pw.Write(req)
		require.NoError(t, err)
		// The seller has the whole request and waits for its end.
		require.Eventually(t, func() bool { return seller.market.seller.takenBy(lock.JobID, buyer.host.ID()) != nil },
			20*time.Second, time.Millisecond, "the seller took the job")
		require.False(t, recorded(lock.JobID), "nothing is accepted before the body ends")
		select {
		case <-answered:
			t.Fatal("the seller answered before the body ended")
		default:
		}
		require.NoError(t, pw.Close())
		resp := <-answered
		require.NotNil(t, resp)
		defer resp.Body.Close()
		var last Event
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			require.NoError(t, json.Unmarshal(sc.Bytes(), &last))
			if last.Type == EventResult || last.Type == EventDurable {
				break
			}
		}
		// The buyer's client asks for the delivery early (EarlyDelivery).
		require.Equal(t, EventDurable, last.Type)
		er, err := seller.market.escrow.GetRole(ctx, lock.JobID, escrow.RoleSeller)
		require.NoError(t, err)
		require.Equal(t, escrow.StateDelivered, er.State)
		_, err = buyer.market.escrow.Refund(ctx, lock.JobID, "test over", nil)
		require.NoError(t, err)
	})

	t.Run("broken off", func(t *testing.T) {
		req, lock := jobBody(t)
		pr, pw := io.Pipe()
		failed := make(chan error, 1)
		go func() {
			_, err := buyer.market.client.streamBody(ctx, sellerInfo, "/jobs", pr)
			failed <- err
		}()
		_, err := pw.Write(req)
		require.NoError(t, err)
		require.Eventually(t, func() bool { return seller.market.seller.takenBy(lock.JobID, buyer.host.ID()) != nil },
			20*time.Second, time.Millisecond, "the seller took the job")
		pw.CloseWithError(errors.New("the lock was not written"))
		require.Error(t, <-failed)
		handlerDone(t)
		require.False(t, recorded(lock.JobID), "a body that breaks off leaves nothing at the seller")
		_, err = buyer.market.escrow.Refund(ctx, lock.JobID, "not sent", nil)
		require.NoError(t, err)
	})

	t.Run("data after the request", func(t *testing.T) {
		req, lock := jobBody(t)
		_, err := buyer.market.client.stream(ctx, sellerInfo, "/jobs", append(req, []byte(`{"more":1}`)...))
		var se *StatusError
		require.ErrorAs(t, err, &se)
		require.Equal(t, http.StatusBadRequest, se.Code)
		require.Contains(t, se.Message, "data after the job request")
		handlerDone(t)
		require.False(t, recorded(lock.JobID))
		_, err = buyer.market.escrow.Refund(ctx, lock.JobID, "refused", nil)
		require.NoError(t, err)
	})
	require.NoError(t, seller.market.escrow.CheckInvariant(ctx))
	require.NoError(t, buyer.market.escrow.CheckInvariant(ctx))
}

// A lock that fails in its commit (too little available) after its job
// went out ends the hire with the lock's error, and the seller, whose
// request body broke off, accepts nothing.
func TestALockThatFailsAfterItsJobWentOutBuysNothing(t *testing.T) {
	reg, err := builtin.New()
	require.NoError(t, err)
	boot := setupPeer(t, nil)
	seller := setupPeer(t, boot, Builtin(reg))
	buyer := setupPeer(t, boot)
	addListing(t, seller, "compute.statistics.mean", 50_000)
	waitProvided(t, boot, seller, buyer)
	ctx := context.Background()
	require.NoError(t, buyer.market.escrow.Deposit(ctx, 10_000, "less than the price"))
	_, err = buyer.market.Hire(ctx, HireRequest{Capability: "compute.statistics.mean", Input: json.RawMessage(`{"data":[1,2,3]}`), Timeout: 20 * time.Second})
	require.ErrorIs(t, err, escrow.ErrInsufficientFunds)
	require.Contains(t, err.Error(), "wallet deposit")
	require.Eventually(t, func() bool { return seller.market.seller.inflight.Load() == 0 }, 20*time.Second, time.Millisecond)
	recs, err := seller.market.escrow.List(ctx, escrow.Filter{})
	require.NoError(t, err)
	require.Empty(t, recs, "the seller accepted no lock")
	recs, err = buyer.market.escrow.List(ctx, escrow.Filter{})
	require.NoError(t, err)
	require.Empty(t, recs, "the buyer holds nothing")
	require.NoError(t, seller.market.escrow.CheckInvariant(ctx))
	require.NoError(t, buyer.market.escrow.CheckInvariant(ctx))
}
