package docs_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/internal/canon"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/verify"
)

// listingVector is the seller's signed listing of compute.statistics.mean
// as GET /capabilities/{id} serves it, with the bytes it signs.
func listingVector(t *testing.T, sellerKey crypto.PrivKey, seller peer.ID, at time.Time) string {
	in, err := verify.InputSchema("compute.statistics.mean")
	require.NoError(t, err)
	out, err := verify.OutputSchema("compute.statistics.mean")
	require.NoError(t, err)
	l := market.Listing{
		Version: 1, Capability: "compute.statistics.mean", Price: 10_000, Handler: market.HandlerBuiltin,
		InputSchema: in, OutputSchema: out, Seller: seller, CreatedAt: at,
		Terms: &market.ListingTerms{WindowMS: market.DefaultWindow.Milliseconds(), MaxDurationMS: market.DefaultMaxDuration.Milliseconds()},
	}
	signed, err := market.SignListing(sellerKey, l)
	require.NoError(t, err)
	sb, err := canon.Body(market.TypeListing, signed.Listing)
	require.NoError(t, err)
	wire, err := json.Marshal(signed)
	require.NoError(t, err)
	got, err := market.DecodeSignedListing(wire)
	require.NoError(t, err)
	require.NoError(t, got.Verify(seller, "compute.statistics.mean"), "a buyer accepts the wire form")
	require.NoError(t, got.Verify(seller, "compute"), "and finds it under a prefix")
	return "signing bytes: " + string(sb) + "\nsignature: " + signed.Signature + "\nGET /capabilities/compute.statistics.mean: " + string(wire)
}

// jobVectors are a whole job on the wire: the quote, the POST /jobs body
// (quote, lock, input) and the NDJSON event lines of its answer, each
// checked as the seller and the buyer check them.
func jobVectors(t *testing.T, buyerKey, sellerKey crypto.PrivKey, buyer, seller peer.ID, at time.Time) (quoteReq, request, events string) {
	q := market.Quote{
		Type: market.TypeQuote, Version: 1, QuoteID: "q2", Capability: "compute.statistics.mean", Price: 10_000,
		Seller: seller, Buyer: buyer, CreatedAt: at.Format(time.RFC3339Nano), ExpiresAt: at.Add(time.Minute).Format(time.RFC3339Nano),
		WindowMS: 600_000, MaxDurationMS: 300_000,
	}
	qb, err := canon.Body(market.TypeQuote, q)
	require.NoError(t, err)
	sq := market.SignedQuote{Quote: q, Signature: base64.StdEncoding.EncodeToString(sign(t, sellerKey, qb))}
	require.NoError(t, sq.Verify(seller, buyer, "compute.statistics.mean", at))
	sqJSON, err := json.Marshal(sq)
	require.NoError(t, err)
	quoteReq = "POST /swarmwage/agent/1/quotes\n" + `{"capability":"compute.statistics.mean"}` + "\n200: " + string(sqJSON)

	// The input as the buyer sends it, and the lock that commits to it:
	// input_hash is the sha256 of exactly these bytes.
	input := market.WireInput(json.RawMessage(`{ "data": [1, 2, 3, 4] }`))
	l := &escrow.Lock{
		JobID: "gcm2vt4bnrrb5ppzwbyduzqlgm", QuoteID: q.QuoteID, Capability: q.Capability, Buyer: buyer, Seller: seller,
		Amount: int64(q.Price), Deadline: at.Add(time.Minute), Window: q.Window(), CreatedAt: at, InputHash: escrow.HashHex(input),
	}
	lb, err := l.SigningBytes()
	require.NoError(t, err)
	l.Signature = sign(t, buyerKey, lb)
	lockJSON, err := json.Marshal(l)
	require.NoError(t, err)
	body, err := json.Marshal(market.JobRequest{Quote: sq, Lock: lockJSON, Input: input})
	require.NoError(t, err)

	// What the seller checks of it.
	req, lock, err := market.DecodeJobRequest(body)
	require.NoError(t, err)
	require.NoError(t, lock.Verify())
	require.NoError(t, req.Quote.Verify(seller, buyer, "", at))
	require.Equal(t, lock.InputHash, escrow.HashHex(req.Input), "the input bytes of the body are the hashed ones")
	require.Equal(t, req.Quote.Quote.QuoteID, lock.QuoteID)
	require.Equal(t, int64(req.Quote.Quote.Price), lock.Amount)
	require.NoError(t, verify.ValidateInput(lock.Capability, req.Input))
	request = "POST /swarmwage/agent/1/jobs\n" + string(body)

	output := []byte(`{"result":2.5}`)
	require.NoError(t, verify.ValidateOutput(lock.Capability, output))
	d := &escrow.Delivery{JobID: lock.JobID, OutputHash: escrow.HashHex(output), Seller: seller, DeliveredAt: at.Add(1500 * time.Millisecond)}
	db, err := d.SigningBytes()
	require.NoError(t, err)
	d.Signature = sign(t, sellerKey, db)
	dJSON, err := json.Marshal(d)
	require.NoError(t, err)
	lines := []market.Event{
		{Type: market.EventAccepted, JobID: lock.JobID},
		{Type: market.EventProgress, JobID: lock.JobID, Message: "running", ElapsedMS: 1000},
		{Type: market.EventResult, JobID: lock.JobID, Output: output, Delivery: dJSON},
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // as the seller writes them: the output byte for byte
	for _, ev := range lines {
		require.NoError(t, enc.Encode(ev))
	}
	// What the buyer checks of the last line.
	var last market.Event
	evLines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	require.NoError(t, json.Unmarshal([]byte(evLines[2]), &last))
	got, err := escrow.DecodeDelivery(last.Delivery)
	require.NoError(t, err)
	require.NoError(t, got.Verify())
	require.Equal(t, got.OutputHash, escrow.HashHex(last.Output), "output_hash is of the output bytes of the line")

	failed := market.Event{Type: market.EventError, JobID: "j3", Message: "handler failed with exit 3", Status: 500}
	late := market.Event{Type: market.EventError, JobID: "j4", Message: "no result by the job deadline (the buyer's timeout)", Status: 504}
	for _, ev := range []market.Event{failed, late} {
		require.NoError(t, enc.Encode(ev))
	}
	events = "200 Content-Type: application/x-ndjson\n" + strings.TrimSpace(buf.String())
	return quoteReq, request, events
}
