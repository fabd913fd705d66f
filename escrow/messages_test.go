package escrow_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
)

// TestWireFormat pins the field names and encodings other implementations
// read: a change here is a protocol change (bump the type tag).
func TestWireFormat(t *testing.T) {
	p := setupPair(t)
	l := p.lock(t, "job-1")
	d := p.deliver(t, "job-1")
	s, err := p.buyer.e.Refund(t.Context(), "job-1", "verification failed", []string{"schema: mean missing"})
	require.NoError(t, err)

	testCases := []struct {
		name   string
		msg    any
		fields map[string]any
	}{
		{"lock", l, map[string]any{
			"type": escrow.TypeLock, "job_id": "job-1", "quote_id": "q-job-1", "capability": "compute.statistics.mean",
			"buyer": p.buyer.id.String(), "seller": p.seller.id.String(), "amount": "0.05",
			"deadline": "2026-11-29T12:10:00Z", "window_ms": float64(60000), "created_at": "2026-11-29T12:00:00Z",
			"input_hash": hashOf(""),
		}},
		{"delivery", d, map[string]any{
			"type": escrow.TypeDelivery, "job_id": "job-1", "output_hash": hashOf("output of job-1"),
			"seller": p.seller.id.String(), "delivered_at": "2026-11-29T12:00:00Z",
		}},
		{"settle", s, map[string]any{
			"type": escrow.TypeSettle, "job_id": "job-1", "decision": "refund", "amount": "0.05",
			"reason": "verification failed", "failed_checks": []any{"schema: mean missing"},
			"buyer": p.buyer.id.String(), "at": "2026-11-29T12:00:00Z",
		}},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(tc.msg)
			require.NoError(t, err)
			var m map[string]any
			require.NoError(t, json.Unmarshal(b, &m))
			require.NotEmpty(t, m["signature"])
			delete(m, "signature")
			require.Equal(t, tc.fields, m)
		})
	}

	// Decoding the wire bytes gives a message whose signature verifies.
	lb, _ := json.Marshal(l)
	l2, err := escrow.DecodeLock(lb)
	require.NoError(t, err)
	require.NoError(t, l2.Verify())
	db, _ := json.Marshal(d)
	d2, err := escrow.DecodeDelivery(db)
	require.NoError(t, err)
	require.NoError(t, d2.Verify())
	sb, _ := json.Marshal(s)
	s2, err := escrow.DecodeSettle(sb)
	require.NoError(t, err)
	require.NoError(t, s2.Verify())
	require.Equal(t, s.FailedChecks, s2.FailedChecks)

	// A signature never verifies as another kind of message.
	_, err = escrow.DecodeSettle(lb)
	require.ErrorIs(t, err, escrow.ErrInvalidMessage)
}

func TestDecodeRejects(t *testing.T) {
	p := setupPair(t)
	l := p.lock(t, "job-1")
	good, err := json.Marshal(l)
	require.NoError(t, err)
	edit := func(from, to string) []byte {
		require.Contains(t, string(good), from)
		return []byte(strings.Replace(string(good), from, to, 1))
	}
	testCases := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"not JSON", []byte("lock please")},
		{"array", []byte("[]")},
		{"unknown field", edit(`"type"`, `"extra":1,"type"`)},
		{"trailing data", append(append([]byte{}, good...), []byte(" {}")...)},
		{"wrong type", edit(escrow.TypeLock, escrow.TypeSettle)},
		{"negative amount", edit(`"amount":"0.05"`, `"amount":"-0.05"`)},
		{"exponent amount", edit(`"amount":"0.05"`, `"amount":"5e-2"`)},
		{"numeric amount", edit(`"amount":"0.05"`, `"amount":0.05`)},
		{"bad buyer", edit(p.buyer.id.String(), "not-a-peer")},
		{"bad time", edit(`"deadline":"2026-11-29T12:10:00Z"`, `"deadline":"tomorrow"`)},
		{"zero window", edit(`"window_ms":60000`, `"window_ms":0`)},
		{"job ID with a slash", edit(`"job_id":"job-1"`, `"job_id":"job/1"`)},
		{"no signature", edit(`"signature":"`, `"sig":"`)},
		{"too large", append(good, make([]byte, escrow.MaxMessageSize)...)},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := escrow.DecodeLock(tc.data)
			require.ErrorIs(t, err, escrow.ErrInvalidMessage)
		})
	}
}

func fuzzSeeds(f *testing.F) (lock, delivery, settle []byte) {
	clock := newClock()
	p := setupPair(f)
	p.clock = clock
	ctx := f.Context()
	l, err := p.buyer.e.Lock(ctx, escrow.LockParams{JobID: "job-1", Seller: p.seller.id, Amount: testPrice,
		Deadline: p.buyer.clock.Now().Add(time.Minute), Window: time.Minute})
	require.NoError(f, err)
	require.NoError(f, acceptLock(p.seller.e, ctx, l))
	d, err := p.seller.e.Deliver(ctx, "job-1", []byte("x"))
	require.NoError(f, err)
	require.NoError(f, p.buyer.e.RecordDelivery(ctx, d, []byte("x")))
	s, err := p.buyer.e.Refund(ctx, "job-1", "bad", []string{"a", "b"})
	require.NoError(f, err)
	lock, _ = json.Marshal(l)
	delivery, _ = json.Marshal(d)
	settle, _ = json.Marshal(s)
	return lock, delivery, settle
}

func addSeeds(f *testing.F, seeds ...[]byte) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Add([]byte(`{}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"type":"swarmwage/escrow/lock/1","amount":"1e999"}`))
}

// FuzzDecodeLockNoPanic: whatever the bytes, DecodeLock returns a lock or
// an error; a decoded lock re-encodes to bytes that decode to the same lock.
func FuzzDecodeLockNoPanic(f *testing.F) {
	l, d, s := fuzzSeeds(f)
	addSeeds(f, l, d, s)
	f.Add([]byte(railLockSeed))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := escrow.DecodeLock(data)
		if err != nil {
			return
		}
		_ = got.Verify()
		b, err := json.Marshal(got)
		require.NoError(t, err)
		again, err := escrow.DecodeLock(b)
		require.NoError(t, err)
		require.Equal(t, got.JobID, again.JobID)
		require.Equal(t, got.Amount, again.Amount)
		require.True(t, got.Deadline.Equal(again.Deadline))
		require.Equal(t, got.Rail, again.Rail)
		require.True(t, got.NotBefore.Equal(again.NotBefore))
	})
}

// Seeds of the rail messages (lock/3, settle/2); their signatures are not
// valid, which decoding does not check.
const (
	railLockSeed = `{"type":"swarmwage/escrow/lock/3","job_id":"j1","quote_id":"q","capability":"compute.statistics.mean",` +
		`"buyer":"12D3KooWK99VoVxNE7XzyBwXEzW7xhK7Gpv85r9F3V3fyKSUKPH5","seller":"12D3KooWJWoaqZhDaoEFshF7Rh1bpY9ohihFhzcW6d69Lr2NASuq",` +
		`"amount":"0.05","deadline":"2026-11-29T12:10:00Z","window_ms":60000,"created_at":"2026-11-29T12:00:00Z",` +
		`"input_hash":"056159c2e651f9fe87b841f4b040b599c0cdc9c2a274a9805db9a4f7fadf00bb","rail":"evm",` +
		`"buyer_address":"0x1111111111111111111111111111111111111111","seller_address":"0x2222222222222222222222222222222222222222",` +
		`"not_before":"2026-11-29T12:11:05Z","rail_proof":{"job_id":"0x00","amount":"50000"},"signature":"AAAA"}`
	railSettleSeed = `{"type":"swarmwage/escrow/settle/2","job_id":"j1","decision":"release","amount":"0.05",` +
		`"buyer":"12D3KooWK99VoVxNE7XzyBwXEzW7xhK7Gpv85r9F3V3fyKSUKPH5","at":"2026-11-29T12:00:02Z","rail":"evm",` +
		`"rail_proof":{"job_id":"0x00"},"signature":"AAAA"}`
)

func TestRailSeedsDecode(t *testing.T) {
	l, err := escrow.DecodeLock([]byte(railLockSeed))
	require.NoError(t, err)
	require.Equal(t, "evm", l.Rail)
	s, err := escrow.DecodeSettle([]byte(railSettleSeed))
	require.NoError(t, err)
	require.Equal(t, "evm", s.Rail)
}

// FuzzDecodeDeliveryNoPanic is FuzzDecodeLockNoPanic for deliveries.
func FuzzDecodeDeliveryNoPanic(f *testing.F) {
	l, d, s := fuzzSeeds(f)
	addSeeds(f, d, l, s)
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := escrow.DecodeDelivery(data)
		if err != nil {
			return
		}
		_ = got.Verify()
		b, err := json.Marshal(got)
		require.NoError(t, err)
		again, err := escrow.DecodeDelivery(b)
		require.NoError(t, err)
		require.Equal(t, got.OutputHash, again.OutputHash)
	})
}

// FuzzDecodeSettleNoPanic is FuzzDecodeLockNoPanic for settles.
func FuzzDecodeSettleNoPanic(f *testing.F) {
	l, d, s := fuzzSeeds(f)
	addSeeds(f, s, l, d)
	f.Add([]byte(railSettleSeed))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := escrow.DecodeSettle(data)
		if err != nil {
			return
		}
		_ = got.Verify()
		b, err := json.Marshal(got)
		require.NoError(t, err)
		again, err := escrow.DecodeSettle(b)
		require.NoError(t, err)
		require.Equal(t, got.Decision, again.Decision)
		require.Equal(t, got.Amount, again.Amount)
	})
}
