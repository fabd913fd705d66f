package market

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market/builtin"
)

// postLockedJob locks a job of compute.statistics.mean with seller and
// POSTs it, with the early-delivery header or without, and returns the
// events the seller answered and the lock.
func postLockedJob(t *testing.T, seller, buyer *testPeer, early bool) ([]Event, *escrow.Lock) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	info := peer.AddrInfo{ID: seller.host.ID(), Addrs: seller.host.Addrs()}
	body, lock := lockedJobRequest(t, seller, buyer)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+info.ID.String()+AgentPath+"/jobs", bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if early {
		req.Header.Set(DeliveryHeader, EarlyDelivery)
	}
	resp, err := buyer.market.client.roundTrip(req, info, true)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var evs []Event
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev Event
		require.NoError(t, json.Unmarshal(sc.Bytes(), &ev))
		evs = append(evs, ev)
	}
	return evs, lock
}

// lockedJobRequest asks seller for a quote of compute.statistics.mean,
// locks it at buyer and returns the job request's body and the lock.
func lockedJobRequest(t *testing.T, seller, buyer *testPeer) ([]byte, *escrow.Lock) {
	t.Helper()
	ctx := context.Background()
	info := peer.AddrInfo{ID: seller.host.ID(), Addrs: seller.host.Addrs()}
	qb, _ := json.Marshal(QuoteRequest{Capability: "compute.statistics.mean"})
	var q SignedQuote
	_, _, err := buyer.market.client.do(ctx, info, http.MethodPost, "/quotes", bytes.NewReader(qb), maxListingSize, &q)
	require.NoError(t, err)
	input := json.RawMessage(`{"data":[1,2,3]}`)
	params := lockParams(seller, q)
	params.Input = input
	lock, err := buyer.market.escrow.Lock(ctx, params)
	require.NoError(t, err)
	lockJSON, _ := json.Marshal(lock)
	body, _ := json.Marshal(JobRequest{Quote: q, Lock: lockJSON, Input: input})
	return body, lock
}

func eventTypes(evs []Event) []string {
	var out []string
	for _, ev := range evs {
		out = append(out, ev.Type)
	}
	return out
}

// A buyer that asks for the delivery early gets it before the seller's
// commit, then "durable" once the lock and the delivery are written; one
// that does not ask gets the one "result" as before.
func TestEarlyDelivery(t *testing.T) {
	seller, buyer := setupHire(t)
	ctx := context.Background()

	t.Run("asked", func(t *testing.T) {
		evs, lock := postLockedJob(t, seller, buyer, true)
		require.Equal(t, []string{EventAccepted, EventDelivery, EventDurable}, eventTypes(evs))
		d, err := escrow.DecodeDelivery(evs[1].Delivery)
		require.NoError(t, err)
		require.Equal(t, escrow.HashHex(evs[1].Output), d.OutputHash)
		require.NoError(t, d.Verify())
		// What "durable" vouches for is written: the very delivery sent.
		er, err := seller.market.escrow.GetRole(ctx, lock.JobID, escrow.RoleSeller)
		require.NoError(t, err)
		require.Equal(t, escrow.StateDelivered, er.State)
		require.NotNil(t, er.Delivery)
		require.Equal(t, d.Signature, er.Delivery.Signature)
		_, err = buyer.market.escrow.Refund(ctx, lock.JobID, "test over", nil)
		require.NoError(t, err)
	})

	t.Run("not asked", func(t *testing.T) {
		evs, lock := postLockedJob(t, seller, buyer, false)
		require.Equal(t, []string{EventAccepted, EventResult}, eventTypes(evs))
		er, err := seller.market.escrow.GetRole(ctx, lock.JobID, escrow.RoleSeller)
		require.NoError(t, err)
		require.Equal(t, escrow.StateDelivered, er.State)
		_, err = buyer.market.escrow.Refund(ctx, lock.JobID, "test over", nil)
		require.NoError(t, err)
	})

	t.Run("hire", func(t *testing.T) {
		var seen []string
		res, err := buyer.market.Hire(ctx, HireRequest{Capability: "compute.statistics.mean", Input: json.RawMessage(`{"data":[1,2,3]}`), Timeout: 20 * time.Second,
			Progress: func(ev Event) { seen = append(seen, ev.Type) }})
		require.NoError(t, err)
		require.Equal(t, escrow.StateReleased, res.State)
		// The hire's own events are those of a result, as before.
		require.Equal(t, []string{EventLocked, EventAccepted, EventResult}, seen)
		require.JSONEq(t, `{"result":2}`, string(res.Output))
	})
}

// A job that runs past the accept grace has its lock written on its own
// ("accepted" first); its delivery goes early too, then "durable".
func TestEarlyDeliveryOfALongJob(t *testing.T) {
	reg, err := builtin.New()
	require.NoError(t, err)
	boot := setupPeer(t, nil)
	slow := func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		select {
		case <-time.After(30 * time.Millisecond):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return json.RawMessage(`{"result":2}`), nil
	}
	seller := setupPeer(t, boot, Builtin(reg), withAcceptGrace(t, time.Millisecond), withHandler(t, slow))
	buyer := setupPeer(t, boot)
	addListing(t, seller, "compute.statistics.mean", 50_000)
	waitProvided(t, boot, seller, buyer)
	ctx := context.Background()
	require.NoError(t, buyer.market.escrow.Deposit(ctx, 10_000_000, "test"))

	evs, lock := postLockedJob(t, seller, buyer, true)
	require.Equal(t, []string{EventAccepted, EventDelivery, EventDurable}, eventTypes(evs))
	d, err := escrow.DecodeDelivery(evs[1].Delivery)
	require.NoError(t, err)
	er, err := seller.market.escrow.GetRole(ctx, lock.JobID, escrow.RoleSeller)
	require.NoError(t, err)
	require.Equal(t, escrow.StateDelivered, er.State)
	require.Equal(t, d.Signature, er.Delivery.Signature, "the delivery sent is the one written")
	_, err = buyer.market.escrow.Refund(ctx, lock.JobID, "test over", nil)
	require.NoError(t, err)

	res, err := buyer.market.Hire(ctx, HireRequest{Capability: "compute.statistics.mean", Input: json.RawMessage(`{"data":[1,2,3]}`), Timeout: 20 * time.Second})
	require.NoError(t, err)
	require.Equal(t, escrow.StateReleased, res.State)
}

// An early delivery whose commit never happens (the seller's stream ends
// after it, nothing written) counts for nothing: the buyer does not
// release, and the hold is refunded at the deadline.
func TestEarlyDeliveryWithoutItsCommitIsNotPaid(t *testing.T) {
	reg, err := builtin.New()
	require.NoError(t, err)
	boot := setupPeer(t, nil)
	seller := setupPeer(t, boot, Builtin(reg), withDropEarly(t))
	buyer := setupPeer(t, boot)
	addListing(t, seller, "compute.statistics.mean", 50_000)
	waitProvided(t, boot, seller, buyer)
	ctx := context.Background()
	require.NoError(t, buyer.market.escrow.Deposit(ctx, 10_000_000, "test"))

	res, err := buyer.market.Hire(ctx, HireRequest{Capability: "compute.statistics.mean", Input: json.RawMessage(`{"data":[1,2,3]}`), Timeout: 3 * time.Second})
	require.Error(t, err)
	require.True(t, errors.Is(err, ErrJobFailed) || errors.Is(err, ErrTimedOut) || errors.Is(err, ErrNoSeller), "hire error: %v", err)
	t.Logf("hire: %v", err)
	require.NotEmpty(t, res.JobID)
	require.Equal(t, escrow.StateRefunded, res.State)
	er, err := buyer.market.escrow.GetRole(ctx, res.JobID, escrow.RoleBuyer)
	require.NoError(t, err)
	require.Equal(t, escrow.StateRefunded, er.State)
	require.Nil(t, er.Delivery, "the buyer recorded no delivery")
	_, err = seller.market.escrow.GetRole(ctx, res.JobID, escrow.RoleSeller)
	require.ErrorIs(t, err, escrow.ErrNotFound, "the seller wrote nothing of the job")
	bal, err := buyer.market.escrow.Balance(ctx)
	require.NoError(t, err)
	require.Zero(t, bal.Held)
	require.Zero(t, bal.Paid)
}
