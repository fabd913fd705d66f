package market

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market/builtin"
)

// setupHire is a seller of compute.statistics.mean (built-in) and a buyer
// with credits, on a private loopback network.
func setupHire(t *testing.T) (seller, buyer *testPeer) {
	t.Helper()
	return setupHireWith(t)
}

// setupHireWith is setupHire with more options for the seller.
func setupHireWith(t *testing.T, sellerOpts ...Option) (seller, buyer *testPeer) {
	t.Helper()
	reg, err := builtin.New()
	require.NoError(t, err)
	boot := setupPeer(t, nil)
	seller = setupPeer(t, boot, append([]Option{Builtin(reg)}, sellerOpts...)...)
	buyer = setupPeer(t, boot)
	addListing(t, seller, "compute.statistics.mean", 50_000)
	addListing(t, seller, "compute.statistics.median", 50_000)
	waitProvided(t, boot, seller, buyer)
	require.NoError(t, buyer.market.escrow.Deposit(context.Background(), 10_000_000, "test"))
	return seller, buyer
}

func hireMean(t *testing.T, buyer *testPeer, capID string) HireResult {
	t.Helper()
	res, err := buyer.market.Hire(context.Background(), HireRequest{Capability: capID, Input: json.RawMessage(`{"data":[1,2,3]}`), Timeout: 20 * time.Second})
	require.NoError(t, err)
	require.Equal(t, escrow.StateReleased, res.State)
	return res
}

// postSettle posts a settle body to the seller's endpoint from buyer.
func postSettle(t *testing.T, from, to *testPeer, jobID string, body []byte) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	code, _, err := from.market.client.do(ctx, peer.AddrInfo{ID: to.host.ID(), Addrs: to.host.Addrs()}, http.MethodPost, "/jobs/"+jobID+"/settle", bytes.NewReader(body), maxListingSize, nil)
	if err == nil {
		return code
	}
	se, ok := err.(*StatusError)
	require.True(t, ok, "unexpected error: %v", err)
	return se.Code
}

// TestForgedAndReplayedSettlesAreRejected: settle messages that are forged
// (signed by someone other than the job's buyer, or altered after signing)
// or replayed (onto another job, or a refund after a release) change
// nothing at the seller.
func TestForgedAndReplayedSettlesAreRejected(t *testing.T) {
	seller, buyer := setupHire(t)
	ctx := context.Background()
	jobA := hireMean(t, buyer, "compute.statistics.mean")
	jobB := hireMean(t, buyer, "compute.statistics.median")
	require.Eventually(t, func() bool {
		b, _ := seller.market.escrow.Balance(ctx)
		return b.Earned == 100_000
	}, 10*time.Second, 20*time.Millisecond)

	recA, err := buyer.market.escrow.GetRole(ctx, jobA.JobID, escrow.RoleBuyer)
	require.NoError(t, err)
	release := recA.Settle
	require.NotNil(t, release)
	releaseJSON, err := json.Marshal(release)
	require.NoError(t, err)

	mallory, _, err := crypto.GenerateEd25519Key(rand.Reader)
	require.NoError(t, err)
	malloryID, _ := peer.IDFromPrivateKey(mallory)

	altered := map[string]any{}
	require.NoError(t, json.Unmarshal(releaseJSON, &altered))
	altered["decision"] = "refund"
	alteredJSON, _ := json.Marshal(altered)

	otherBuyer := map[string]any{}
	require.NoError(t, json.Unmarshal(releaseJSON, &otherBuyer))
	otherBuyer["buyer"] = malloryID.String()
	otherBuyerJSON, _ := json.Marshal(otherBuyer)

	sigOnB := map[string]any{}
	require.NoError(t, json.Unmarshal(releaseJSON, &sigOnB))
	sigOnB["job_id"] = jobB.JobID
	sigOnBJSON, _ := json.Marshal(sigOnB)

	testCases := []struct {
		name  string
		job   string
		body  []byte
		codes []int
	}{
		{"refund altered from a signed release", jobA.JobID, alteredJSON, []int{http.StatusForbidden}},
		{"claims another buyer", jobA.JobID, otherBuyerJSON, []int{http.StatusForbidden}},
		{"job A's settle posted to job B", jobB.JobID, releaseJSON, []int{http.StatusBadRequest}},
		{"job A's signature with job B's ID", jobB.JobID, sigOnBJSON, []int{http.StatusForbidden}},
		{"unknown job", "nosuchjobnosuchjobnosuchjo", []byte(`{}`), []int{http.StatusBadRequest, http.StatusNotFound}},
		{"not JSON", jobA.JobID, []byte(`not json`), []int{http.StatusBadRequest}},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			require.Contains(t, tc.codes, postSettle(t, buyer, seller, tc.job, tc.body))
		})
	}

	// A replay of the genuine release is idempotent: accepted, no double credit.
	require.Equal(t, http.StatusOK, postSettle(t, buyer, seller, jobA.JobID, releaseJSON))
	b, err := seller.market.escrow.Balance(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(100_000), b.Earned, "a replayed release must not pay twice")
	for _, id := range []string{jobA.JobID, jobB.JobID} {
		rec, err := seller.market.escrow.GetRole(ctx, id, escrow.RoleSeller)
		require.NoError(t, err)
		require.Equal(t, escrow.StateReleased, rec.State)
	}
	require.NoError(t, seller.market.escrow.CheckInvariant(ctx))

	// A refund signed by the real buyer after the release is refused too.
	st, err := buyer.market.escrow.Refund(ctx, jobA.JobID, "changed my mind", nil)
	require.Error(t, err, "the buyer's own escrow refuses to refund a released job")
	require.Nil(t, st)
}

// TestQuoteIsBoundToBuyerAndExpires: a quote only verifies for its buyer and
// capability, unaltered, before it expires.
func TestQuoteIsBoundToBuyerAndExpires(t *testing.T) {
	seller, buyer := setupHire(t)
	ctx := context.Background()
	body, _ := json.Marshal(QuoteRequest{Capability: "compute.statistics.mean"})
	var q SignedQuote
	_, _, err := buyer.market.client.do(ctx, peer.AddrInfo{ID: seller.host.ID(), Addrs: seller.host.Addrs()}, http.MethodPost, "/quotes", bytes.NewReader(body), maxListingSize, &q)
	require.NoError(t, err)
	now := time.Now()
	require.NoError(t, q.Verify(seller.host.ID(), buyer.host.ID(), "compute.statistics.mean", now))
	require.ErrorIs(t, q.Verify(seller.host.ID(), seller.host.ID(), "compute.statistics.mean", now), ErrBadQuote, "bound to its buyer")
	require.ErrorIs(t, q.Verify(seller.host.ID(), buyer.host.ID(), "compute.statistics.median", now), ErrBadQuote, "bound to its capability")
	require.ErrorIs(t, q.Verify(seller.host.ID(), buyer.host.ID(), "compute.statistics.mean", now.Add(2*DefaultQuoteTTL)), ErrBadQuote, "expires")
	tampered := q
	tampered.Quote.Price = 1
	require.ErrorIs(t, tampered.Verify(seller.host.ID(), buyer.host.ID(), "compute.statistics.mean", now), ErrBadQuote, "signed")
}

func FuzzDecodeJobRequestNoPanic(f *testing.F) {
	f.Add([]byte(`{"quote":{"quote":{"v":1,"quote_id":"x","price":"0.05"},"signature":"AA=="},"lock":{"type":"lock"},"input":{"data":[1]}}`))
	f.Add([]byte(`{"input":null,"lock":null}`))
	f.Add([]byte(`{"quote":{"quote":{"price":"1e400"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		req, lock, err := DecodeJobRequest(data)
		if err != nil {
			return
		}
		require.NotNil(t, lock)
		_ = req.Quote.Verify(req.Quote.Quote.Seller, req.Quote.Quote.Buyer, "", time.Now())
	})
}

// FuzzJobRequestBodyNoPanic reads a POST /jobs body as the seller does:
// the request, then the end that confirms its lock. A body accepted so
// is one JSON request and nothing after it but white space.
func FuzzJobRequestBodyNoPanic(f *testing.F) {
	f.Add([]byte(`{"quote":{"quote":{"v":1,"quote_id":"x","price":"0.05"},"signature":"AA=="},"lock":{"type":"lock"},"input":{"data":[1]}}`))
	f.Add([]byte(`{"input":{"data":[1]},"lock":{}} {"more":1}`))
	f.Add([]byte(`{"input":{"data":[1]},"lock":{}}` + "\n\n"))
	f.Add([]byte(`{"input":`))
	f.Fuzz(func(t *testing.T, data []byte) {
		b := &jobRequestBody{dec: json.NewDecoder(bytes.NewReader(data))}
		req, lock, err := b.request()
		if err != nil {
			return
		}
		require.NotNil(t, lock)
		require.NotEmpty(t, req.Input)
		if b.confirmed() == nil {
			end := b.dec.InputOffset()
			require.Empty(t, bytes.TrimSpace(data[end:]), "nothing but white space after the request")
		}
	})
}

func FuzzDecodeQuoteRequestNoPanic(f *testing.F) {
	f.Add([]byte(`{"capability":"compute.statistics.mean"}`))
	f.Add([]byte(`{"capability":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = decodeQuoteRequest(data)
	})
}

func FuzzDecodeSettleNoPanic(f *testing.F) {
	f.Add([]byte(`{"type":"settle","job_id":"a","decision":"release","amount":"0.05","buyer":"x","at":"2026-01-01T00:00:00Z","signature":"AA=="}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = escrow.DecodeSettle(data)
	})
}

// TestJobRequestsThatDoNotMatchTheQuoteAreRefused: a lock that does not
// match its quote (amount, quote, capability) is refused before anything
// runs, and the seller records nothing.
func TestJobRequestsThatDoNotMatchTheQuoteAreRefused(t *testing.T) {
	seller, buyer := setupHire(t)
	ctx := context.Background()
	sellerInfo := peer.AddrInfo{ID: seller.host.ID(), Addrs: seller.host.Addrs()}
	getQuote := func() SignedQuote {
		body, _ := json.Marshal(QuoteRequest{Capability: "compute.statistics.mean"})
		var q SignedQuote
		_, _, err := buyer.market.client.do(ctx, sellerInfo, http.MethodPost, "/quotes", bytes.NewReader(body), maxListingSize, &q)
		require.NoError(t, err)
		return q
	}
	testCases := []struct {
		name   string
		params func(q SignedQuote) escrow.LockParams
		input  string
		code   int
	}{
		{"amount below the quote", func(q SignedQuote) escrow.LockParams {
			p := lockParams(seller, q)
			p.Amount--
			return p
		}, `{"data":[1]}`, http.StatusBadRequest},
		{"another quote", func(q SignedQuote) escrow.LockParams {
			p := lockParams(seller, q)
			p.QuoteID = "someotherquote"
			return p
		}, `{"data":[1]}`, http.StatusBadRequest},
		{"another capability", func(q SignedQuote) escrow.LockParams {
			p := lockParams(seller, q)
			p.Capability = "compute.statistics.median"
			return p
		}, `{"data":[1]}`, http.StatusBadRequest},
		{"input that breaks the schema", func(q SignedQuote) escrow.LockParams { return lockParams(seller, q) }, `{"data":"1,2"}`, http.StatusBadRequest},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			q := getQuote()
			lock, err := buyer.market.escrow.Lock(ctx, tc.params(q))
			require.NoError(t, err)
			lockJSON, _ := json.Marshal(lock)
			body, _ := json.Marshal(JobRequest{Quote: q, Lock: lockJSON, Input: json.RawMessage(tc.input)})
			_, err = buyer.market.client.stream(ctx, sellerInfo, "/jobs", body)
			var se *StatusError
			require.ErrorAs(t, err, &se)
			require.Equal(t, tc.code, se.Code, se.Error())
			_, err = seller.market.escrow.GetRole(ctx, lock.JobID, escrow.RoleSeller)
			require.ErrorIs(t, err, escrow.ErrNotFound, "the seller must record nothing")
			_, err = buyer.market.escrow.Refund(ctx, lock.JobID, "refused", nil)
			require.NoError(t, err)
		})
	}
}

func lockParams(seller *testPeer, q SignedQuote) escrow.LockParams {
	return escrow.LockParams{
		QuoteID: q.Quote.QuoteID, Capability: q.Quote.Capability, Seller: seller.host.ID(),
		Amount: int64(q.Quote.Price), Deadline: time.Now().Add(10 * time.Second), Window: q.Quote.Window(),
	}
}

// TestHireSkipsASellerThatFailsBeforeTheLock: the cheapest seller is gone
// by the time the buyer asks for a quote; the hire goes to the next one and
// nothing is locked for the dead one.
func TestHireSkipsASellerThatFailsBeforeTheLock(t *testing.T) {
	reg, err := builtin.New()
	require.NoError(t, err)
	boot := setupPeer(t, nil)
	cheap := setupPeer(t, boot, Builtin(reg))
	dear := setupPeer(t, boot, Builtin(reg))
	buyer := setupPeer(t, boot)
	addListing(t, cheap, "compute.statistics.mean", 10_000)
	addListing(t, dear, "compute.statistics.mean", 20_000)
	waitProvided(t, boot, cheap, dear, buyer)
	ctx := context.Background()
	require.NoError(t, buyer.market.escrow.Deposit(ctx, 1_000_000, "test"))
	res, err := buyer.market.findCached(ctx, "compute.statistics.mean")
	require.NoError(t, err)
	require.Len(t, res.Sellers, 2)
	require.Equal(t, cheap.host.ID(), res.Sellers[0].Peer.ID, "cheapest first")

	require.NoError(t, cheap.market.Close())
	require.NoError(t, cheap.host.Close())
	got := hireMean(t, buyer, "compute.statistics.mean")
	require.Equal(t, dear.host.ID(), got.Seller)
	recs, err := buyer.market.escrow.List(ctx, escrow.Filter{})
	require.NoError(t, err)
	require.Len(t, recs, 1, "nothing may be locked for the dead seller")
}

// TestTimerReleaseReachesTheSeller: a buyer's escrow timer releases a
// delivered job at the end of the window; the outbox sends that signed
// release to the seller, who records it as the buyer's decision (not its
// own timer's).
func TestTimerReleaseReachesTheSeller(t *testing.T) {
	boot := setupPeer(t, nil)
	seller := setupPeer(t, boot, VerificationWindow(time.Second))
	buyer := setupPeer(t, boot, OutboxInterval(100*time.Millisecond))
	_, err := seller.market.AddListing(context.Background(), ListingParams{
		Capability: "custom.test.echo", Price: 30_000, Handler: HandlerConfig{Kind: HandlerExec, Command: []string{"cat"}},
	})
	require.NoError(t, err)
	waitProvided(t, boot, seller, buyer)
	ctx := context.Background()
	require.NoError(t, buyer.market.escrow.Deposit(ctx, 1_000_000, "test"))
	res, err := buyer.market.Hire(ctx, HireRequest{Capability: "custom.test.echo", Input: json.RawMessage(`{"a":1}`), Timeout: 10 * time.Second})
	require.NoError(t, err)
	require.Equal(t, escrow.StateDelivered, res.State)

	require.Eventually(t, func() bool {
		rec, err := seller.market.escrow.GetRole(ctx, res.JobID, escrow.RoleSeller)
		return err == nil && rec.State == escrow.StateReleased
	}, 10*time.Second, 50*time.Millisecond)
	rec, err := seller.market.escrow.GetRole(ctx, res.JobID, escrow.RoleSeller)
	require.NoError(t, err)
	require.NotNil(t, rec.Settle, "released by the buyer's signed settle, not by the seller's own timer")
	require.Equal(t, buyer.host.ID(), rec.Settle.Buyer)
	job, err := buyer.market.Job(ctx, res.JobID)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		job, err = buyer.market.Job(ctx, res.JobID)
		return err == nil && job.SettleSent
	}, 5*time.Second, 50*time.Millisecond)
}

// TestOneBuyerCannotTakeEverySlot: a buyer with more jobs in flight than
// its share is answered 429 with Retry-After; it keeps its lock (the seller
// never accepted it), waits, and sends the same lock again once a slot is
// free, so every job runs and nothing is refunded.
func TestOneBuyerCannotTakeEverySlot(t *testing.T) {
	boot := setupPeer(t, nil)
	seller := setupPeer(t, boot, Concurrency(1, 8)) // a buyer's share: 4
	buyer := setupPeer(t, boot)
	_, err := seller.market.AddListing(context.Background(), ListingParams{
		Capability: "custom.test.slow", Price: 10_000,
		Handler: HandlerConfig{Kind: HandlerExec, Command: []string{"sh", "-c", "sleep 1; cat"}},
	})
	require.NoError(t, err)
	waitProvided(t, boot, seller, buyer)
	ctx := context.Background()
	require.NoError(t, buyer.market.escrow.Deposit(ctx, 1_000_000, "test"))

	const hires = 5
	errs := make(chan error, hires)
	for range hires {
		go func() {
			_, err := buyer.market.Hire(ctx, HireRequest{Capability: "custom.test.slow", Input: json.RawMessage(`{}`), Timeout: 20 * time.Second})
			errs <- err
		}()
	}
	for range hires {
		require.NoError(t, <-errs)
	}
	b, err := buyer.market.escrow.Balance(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(hires*10_000), b.Held, "all five ran and wait for their window; none was refunded")
	recs, err := seller.market.escrow.List(ctx, escrow.Filter{Role: escrow.RoleSeller})
	require.NoError(t, err)
	require.Len(t, recs, hires)
}

// FuzzAgentEndpointNoPanic sends arbitrary requests, as a libp2p peer, to
// every route of a real seller's agent endpoint: whatever the bytes, the
// answer is a status code, never a panic or a hang.
func FuzzAgentEndpointNoPanic(f *testing.F) {
	reg, err := builtin.New()
	require.NoError(f, err)
	seller := setupPeerTB(f, nil, Builtin(reg))
	addListingTB(f, seller, "compute.statistics.mean", 10_000)
	buyerKey, _, err := crypto.GenerateEd25519Key(rand.Reader)
	require.NoError(f, err)
	buyer, _ := peer.IDFromPrivateKey(buyerKey)

	for _, seed := range []struct{ method, path, body string }{
		{"GET", "/capabilities", ""},
		{"GET", "/capabilities/compute.statistics.mean/schema", ""},
		{"POST", "/quotes", `{"capability":"compute.statistics.mean"}`},
		{"POST", "/jobs", `{"quote":{"quote":{"v":1}},"lock":{},"input":{"data":[1]}}`},
		{"POST", "/jobs/abc/settle", `{"type":"settle","job_id":"abc"}`},
		{"GET", "/jobs/abc", ""},
	} {
		f.Add(seed.method, seed.path, []byte(seed.body))
	}
	f.Fuzz(func(t *testing.T, method, path string, body []byte) {
		if method != "GET" && method != "POST" {
			method = "POST"
		}
		if !strings.HasPrefix(path, "/") {
			path = "/" + path
		}
		req, err := http.NewRequest(method, "http://seller"+url.PathEscape(path), bytes.NewReader(body))
		if err != nil {
			return
		}
		req.URL.Path = path
		req = req.WithContext(context.WithValue(req.Context(), peerKey{}, buyer))
		rec := httptest.NewRecorder()
		seller.market.server.ServeHTTP(rec, req)
		if rec.Code == 0 {
			t.Fatalf("%s %s: no status", method, path)
		}
	})
}

// Regression: the lock's input_hash was the sha256 of the input as the
// hire was given it, but the POST /jobs body carries the input as
// json.Marshal writes it (compact, <>& escaped), so a script that sent
// pretty-printed JSON to the control API had every job refused with "the
// input does not match its signed hash". Both sides now hash the bytes on
// the wire (WireInput).
func TestHireWithSpacedInputHashesTheWireBytes(t *testing.T) {
	boot := setupPeer(t, nil)
	seller := setupPeer(t, boot)
	buyer := setupPeer(t, boot)
	_, err := seller.market.AddListing(context.Background(), ListingParams{
		Capability: "custom.test.echo", Price: 30_000, Handler: HandlerConfig{Kind: HandlerExec, Command: []string{"cat"}},
	})
	require.NoError(t, err)
	waitProvided(t, boot, seller, buyer)
	ctx := context.Background()
	require.NoError(t, buyer.market.escrow.Deposit(ctx, 1_000_000, "test"))
	input := json.RawMessage("{\n  \"text\": \"a < b && c > d\",\n  \"n\": [1, 2]\n}\n")
	res, err := buyer.market.Hire(ctx, HireRequest{Capability: "custom.test.echo", Input: input, Timeout: 20 * time.Second})
	require.NoError(t, err)
	require.Equal(t, escrow.StateDelivered, res.State, "delivered: a custom capability waits for its window")
	require.JSONEq(t, string(input), string(res.Output), "the same JSON value came back")
	rec, err := seller.market.escrow.GetRole(ctx, res.JobID, escrow.RoleSeller)
	require.NoError(t, err)
	wire := `{"text":"a \u003c b \u0026\u0026 c \u003e d","n":[1,2]}`
	require.Equal(t, wire, string(WireInput(input)))
	require.Equal(t, escrow.HashHex([]byte(wire)), rec.Lock.InputHash)
	require.Equal(t, WireInput(input), WireInput(WireInput(input)), "idempotent")
}
