package market

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

	"github.com/swarmwage/swarmwage/escrow"
)

// Regression: sending one signed lock twice with a different input ran the
// handler again and overwrote the seller's job record. A lock is accepted
// once: a replay with the same input gets the first result, one with
// another input gets 409, and neither runs the handler. So also once the
// lock's deadline has passed (the faults suite's replay met a 400 "lock
// deadline has already passed" on a loaded machine).
func TestReplayedLockNeverRunsTheHandlerAgain(t *testing.T) {
	for _, tc := range []struct {
		name         string
		timeout      time.Duration
		pastDeadline bool
	}{
		{name: "within the deadline", timeout: 20 * time.Second},
		{name: "past the deadline", timeout: 3 * time.Second, pastDeadline: true},
	} {
		t.Run(tc.name, func(t *testing.T) { replayLock(t, tc.timeout, tc.pastDeadline) })
	}
}

func replayLock(t *testing.T, timeout time.Duration, pastDeadline bool) {
	boot := setupPeer(t, nil)
	seller := setupPeer(t, boot)
	buyer := setupPeer(t, boot)
	runs := filepath.Join(t.TempDir(), "runs")
	_, err := seller.market.AddListing(context.Background(), ListingParams{
		Capability: "custom.test.echo", Price: 10_000,
		Handler: HandlerConfig{Kind: HandlerExec, Command: []string{"sh", "-c", "echo run >> " + runs + "; cat"}},
	})
	require.NoError(t, err)
	waitProvided(t, boot, seller, buyer)
	ctx := context.Background()
	require.NoError(t, buyer.market.escrow.Deposit(ctx, 1_000_000, "test"))
	res, err := buyer.market.Hire(ctx, HireRequest{Capability: "custom.test.echo", Input: json.RawMessage(`{"a":1}`), Timeout: timeout})
	require.NoError(t, err)
	require.JSONEq(t, `{"a":1}`, string(res.Output))
	// The seller writes "delivered" to its record just after sending the
	// result: wait for it, so the comparison below sees only the replays.
	var before JobRecord
	require.Eventually(t, func() bool {
		before, err = seller.market.jobs.get(RoleSeller, res.JobID)
		return err == nil && before.Status == StatusDelivered
	}, 5*time.Second, 10*time.Millisecond)

	er, err := buyer.market.escrow.GetRole(ctx, res.JobID, escrow.RoleBuyer)
	require.NoError(t, err)
	q, ok := buyer.market.cachedQuote(seller.host.ID(), "custom.test.echo")
	require.True(t, ok)
	lockJSON, err := json.Marshal(er.Lock)
	require.NoError(t, err)
	if pastDeadline {
		time.Sleep(time.Until(er.Lock.Deadline) + 200*time.Millisecond)
	}
	post := func(input string) (*http.Response, error) {
		body, err := json.Marshal(JobRequest{Quote: q, Lock: lockJSON, Input: json.RawMessage(input)})
		require.NoError(t, err)
		return buyer.market.client.stream(ctx, buyer.market.addrsOf(seller.host.ID()), "/jobs", body)
	}

	_, err = post(`{"a":666}`)
	var se *StatusError
	require.ErrorAs(t, err, &se)
	require.Equal(t, http.StatusConflict, se.Code)

	resp, err := post(`{"a":1}`)
	require.NoError(t, err)
	defer resp.Body.Close()
	line, err := readLine(bufio.NewReader(resp.Body), maxEventLine)
	require.NoError(t, err)
	var ev Event
	require.NoError(t, json.Unmarshal(line, &ev))
	require.Equal(t, EventResult, ev.Type, "the first result, again")
	require.JSONEq(t, `{"a":1}`, string(ev.Output))

	data, err := os.ReadFile(runs)
	require.NoError(t, err)
	require.Equal(t, 1, strings.Count(string(data), "run"), "the handler ran once")
	after, err := seller.market.jobs.get(RoleSeller, res.JobID)
	require.NoError(t, err)
	require.Equal(t, before, after, "the seller's job record is untouched")
	in, err := seller.market.escrow.Payload(ctx, escrow.RoleSeller, res.JobID, escrow.PayloadInput)
	require.NoError(t, err)
	require.JSONEq(t, `{"a":1}`, string(in))
}

// A handler that ignores its context still loses the job at the deadline:
// the buyer is refunded (the job timed out), the seller's record says so.
func TestHandlerIgnoringItsContextFailsAtTheDeadline(t *testing.T) {
	boot := setupPeer(t, nil)
	release := make(chan struct{})
	seller := setupPeer(t, boot, MaxJobDuration(time.Second), withHandler(t, func(context.Context, json.RawMessage) (json.RawMessage, error) {
		<-release // ignores its context
		return json.RawMessage(`{}`), nil
	}))
	t.Cleanup(func() { close(release) })
	buyer := setupPeer(t, boot)
	_, err := seller.market.AddListing(context.Background(), ListingParams{
		Capability: "custom.test.stuck", Price: 10_000,
		Handler: HandlerConfig{Kind: HandlerExec, Command: []string{"cat"}},
	})
	require.NoError(t, err)
	waitProvided(t, boot, seller, buyer)
	ctx := context.Background()
	require.NoError(t, buyer.market.escrow.Deposit(ctx, 1_000_000, "test"))
	res, err := buyer.market.Hire(ctx, HireRequest{Capability: "custom.test.stuck", Input: json.RawMessage(`{}`), Timeout: 20 * time.Second})
	require.ErrorIs(t, err, ErrTimedOut)
	require.Equal(t, escrow.StateRefunded, res.State)
	require.Eventually(t, func() bool {
		rec, err := seller.market.jobs.get(RoleSeller, res.JobID)
		rs, err2 := seller.market.escrow.GetRole(ctx, res.JobID, escrow.RoleSeller)
		return err == nil && err2 == nil && rec.Status == StatusTimedOut && rs.State == escrow.StateRefunded
	}, 10*time.Second, 50*time.Millisecond)
}

// Regression: a buyer that stopped after recording a delivery and before
// deciding restarted with the job delivered, and its timer paid for output
// that had failed verification. Reconciliation verifies the stored output
// again: a wrong answer is refunded, a right one released.
func TestUndecidedDeliveryIsVerifiedAgain(t *testing.T) {
	testCases := []struct {
		name   string
		output string
		want   escrow.State
	}{
		{"wrong mean", `{"result":5}`, escrow.StateRefunded},
		{"right mean", `{"result":2}`, escrow.StateReleased},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			buyer := setupPeer(t, nil)
			seller := setupPeer(t, nil)
			ctx := context.Background()
			require.NoError(t, buyer.market.escrow.Deposit(ctx, 1_000_000, "test"))
			input := []byte(`{"data":[1,2,3]}`)
			l, err := buyer.market.escrow.Lock(ctx, escrow.LockParams{
				QuoteID: "q", Capability: "compute.statistics.mean", Seller: seller.host.ID(), Amount: 10_000,
				Deadline: time.Now().Add(time.Minute), Window: time.Minute, Input: input,
			})
			require.NoError(t, err)
			_, err = seller.market.escrow.AcceptLock(ctx, l, input)
			require.NoError(t, err)
			d, err := seller.market.escrow.Deliver(ctx, l.JobID, []byte(tc.output))
			require.NoError(t, err)
			require.NoError(t, buyer.market.escrow.RecordDelivery(ctx, d, []byte(tc.output)))
			// The node stopped here. At start-up, reconcile finds it.
			buyer.market.reconcile(ctx)
			rb, err := buyer.market.escrow.GetRole(ctx, l.JobID, escrow.RoleBuyer)
			require.NoError(t, err)
			require.Equal(t, tc.want, rb.State)
			if tc.want == escrow.StateRefunded {
				require.Contains(t, rb.FailedChecks, "value_matches")
				b, err := buyer.market.escrow.Balance(ctx)
				require.NoError(t, err)
				require.Zero(t, b.Paid, "never paid for output that failed verification")
			}
			require.NoError(t, buyer.market.escrow.CheckInvariant(ctx))
		})
	}
}

// Regression: a buyer's own timeout was reported as "the job failed at the
// seller", and the seller's record said failed although it was still
// working. Now the hire ends with ErrTimedOut, both sides refund, and the
// seller's record says timed_out.
func TestBuyerTimeoutIsNotASellerFailure(t *testing.T) {
	seller, buyer := setupSlowSeller(t, nil)
	ctx := context.Background()
	res, err := buyer.market.Hire(ctx, HireRequest{Capability: "custom.test.slow", Input: json.RawMessage(`{}`), Timeout: 2 * time.Second})
	require.ErrorIs(t, err, ErrTimedOut)
	require.NotErrorIs(t, err, ErrJobFailed)
	require.Equal(t, escrow.StateRefunded, res.State)
	require.Eventually(t, func() bool {
		rec, err := seller.market.jobs.get(RoleSeller, res.JobID)
		er, err2 := seller.market.escrow.GetRole(ctx, res.JobID, escrow.RoleSeller)
		return err == nil && err2 == nil && rec.Status == StatusTimedOut && er.State == escrow.StateRefunded
	}, 30*time.Second, 50*time.Millisecond) // the seller's timer and the buyer's refund race under load
}

// TestBuyerRefundWhileRunningSaysWhy: a buyer's refund that reaches the
// seller while its handler runs ends the job there. A refund for the
// deadline is the buyer's timeout arriving before the seller's own deadline
// timer (they race under load: TestBuyerTimeoutIsNotASellerFailure failed
// so in a pass under the hog), so the seller's record says timed_out, not
// failed; any other refund is the buyer's cancel, recorded as such.
func TestBuyerRefundWhileRunningSaysWhy(t *testing.T) {
	for _, tc := range []struct {
		reason, status, errText string
	}{
		{escrow.ReasonDeadline, StatusTimedOut, "no result by the job deadline"},
		{ErrCancelled.Error(), StatusFailed, "cancelled by the buyer"},
	} {
		t.Run(tc.reason, func(t *testing.T) {
			running := make(chan struct{}, 1)
			seller, buyer := setupSlowSeller(t, running)
			ctx := t.Context()
			hired, job := startSlowHire(t, buyer, running)
			_, err := buyer.market.refund(HireResult{JobID: job.JobID, Seller: job.Seller}, tc.reason, nil, nil)
			require.NoError(t, err)
			require.Error(t, <-hired, "the hire ends once the seller stops the job")
			require.Eventually(t, func() bool {
				rec, err := seller.market.jobs.get(RoleSeller, job.JobID)
				return err == nil && rec.Status != StatusRunning
			}, 30*time.Second, 20*time.Millisecond)
			rec, err := seller.market.jobs.get(RoleSeller, job.JobID)
			require.NoError(t, err)
			require.Equal(t, tc.status, rec.Status)
			require.Contains(t, rec.Error, tc.errText)
			er, err := seller.market.escrow.GetRole(ctx, job.JobID, escrow.RoleSeller)
			require.NoError(t, err)
			require.Equal(t, escrow.StateRefunded, er.State)
		})
	}
}

// setupSlowSeller is a seller of custom.test.slow whose handler works
// until its job's context ends (a send on running, if not nil, says it
// started), and a buyer with credits, on a private loopback network.
// opts are more options of the seller.
func setupSlowSeller(t *testing.T, running chan<- struct{}, opts ...Option) (seller, buyer *testPeer) {
	t.Helper()
	boot := setupPeer(t, nil)
	seller = setupPeer(t, boot, append([]Option{withHandler(t, func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		if running != nil {
			running <- struct{}{}
		}
		<-ctx.Done() // working until the deadline or the buyer's refund
		return nil, ctx.Err()
	})}, opts...)...)
	buyer = setupPeer(t, boot)
	_, err := seller.market.AddListing(t.Context(), ListingParams{
		Capability: "custom.test.slow", Price: 10_000, Handler: HandlerConfig{Kind: HandlerExec, Command: []string{"cat"}},
	})
	require.NoError(t, err)
	waitProvided(t, boot, seller, buyer)
	require.NoError(t, buyer.market.escrow.Deposit(t.Context(), 1_000_000, "test"))
	return seller, buyer
}

// startSlowHire starts a hire of the slow seller's capability and returns,
// once its handler runs, the hire's result channel and the buyer's record
// of the job.
func startSlowHire(t *testing.T, buyer *testPeer, running <-chan struct{}) (<-chan error, escrow.Record) {
	t.Helper()
	hired := make(chan error, 1)
	go func() {
		_, err := buyer.market.Hire(t.Context(), HireRequest{Capability: "custom.test.slow", Input: json.RawMessage(`{}`), Timeout: time.Minute})
		hired <- err
	}()
	<-running
	recs, err := buyer.market.escrow.List(t.Context(), escrow.Filter{Role: escrow.RoleBuyer})
	require.NoError(t, err)
	require.Len(t, recs, 1)
	return hired, recs[0]
}
