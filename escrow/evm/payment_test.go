package evm

import (
	"crypto/rand"
	"encoding/json"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
)

// receiptParty is one side of a hand-made receipt: its libp2p and evm keys.
type receiptParty struct {
	p2p crypto.PrivKey
	id  peer.ID
	evm *Key
}

func newReceiptParty(t testing.TB) receiptParty {
	t.Helper()
	k, _, err := crypto.GenerateEd25519Key(rand.Reader)
	require.NoError(t, err)
	id, err := peer.IDFromPrivateKey(k)
	require.NoError(t, err)
	ek, err := GenerateKey()
	require.NoError(t, err)
	return receiptParty{p2p: k, id: id, evm: ek}
}

// signedReceipt builds the receipt of one released evm job between buyer
// and seller, its vouchers signed for d, and the payment proof of it on d:
// what an honest seller on d serves.
func signedReceipt(t testing.TB, d Domain, buyer, seller receiptParty, jobID string, amount int64) escrow.Receipt {
	t.Helper()
	at := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	deadline, window := at.Add(10*time.Minute), time.Minute
	notBefore := deadline.Add(window).Add(time.Minute)
	v := &Lock{JobID: JobID(jobID), Buyer: buyer.evm.Address(), Seller: seller.evm.Address(), Amount: amount, NotBefore: uint64(notBefore.Unix())}
	require.NoError(t, d.SignLock(buyer.evm, v))
	vb, err := json.Marshal(v)
	require.NoError(t, err)
	input, output := []byte(`{"data":[1,2,3]}`), []byte(`{"result":2}`)
	l := &escrow.Lock{
		JobID: jobID, QuoteID: "q-" + jobID, Capability: "compute.statistics.mean", Buyer: buyer.id, Seller: seller.id,
		Amount: amount, Deadline: deadline, Window: window, CreatedAt: at, InputHash: escrow.HashHex(input),
		Rail: escrow.RailEVM, BuyerAddress: buyer.evm.Address().Hex(), SellerAddress: seller.evm.Address().Hex(),
		NotBefore: notBefore, RailProof: vb,
	}
	l.Signature = signWith(t, buyer.p2p, l.SigningBytes)
	dl := &escrow.Delivery{JobID: jobID, OutputHash: escrow.HashHex(output), Seller: seller.id, DeliveredAt: at.Add(time.Second)}
	dl.Signature = signWith(t, seller.p2p, dl.SigningBytes)
	rel := &Release{JobID: v.JobID, Buyer: v.Buyer, Seller: v.Seller, Amount: amount}
	require.NoError(t, d.SignRelease(buyer.evm, rel))
	rb, err := json.Marshal(rel)
	require.NoError(t, err)
	s := &escrow.Settle{JobID: jobID, Decision: escrow.DecisionRelease, Amount: amount, Buyer: buyer.id, At: at.Add(2 * time.Second), Rail: escrow.RailEVM, RailProof: rb}
	s.Signature = signWith(t, buyer.p2p, s.SigningBytes)
	p := Payment{Outcome: escrow.RailPaid, ChainID: d.ChainID.Uint64(), Escrow: d.Escrow, JobID: v.JobID, Buyer: v.Buyer, Seller: v.Seller,
		Amount: amount, Tx: common.HexToHash("0x7a3f"), Block: 42}
	pb, err := p.MarshalJSON()
	require.NoError(t, err)
	r := escrow.Receipt{Lock: l, Delivery: dl, Settle: s, Rail: escrow.RailEVM, Payment: pb}
	require.NoError(t, r.Check())
	return r
}

func signWith(t testing.TB, k crypto.PrivKey, body func() ([]byte, error)) []byte {
	t.Helper()
	b, err := body()
	require.NoError(t, err)
	sig, err := k.Sign(b)
	require.NoError(t, err)
	return sig
}

// withPayment is r with its payment proof's JSON fields changed by edit.
func withPayment(t testing.TB, r escrow.Receipt, edit func(map[string]any)) escrow.Receipt {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(r.Payment, &m))
	edit(m)
	b, err := json.Marshal(m)
	require.NoError(t, err)
	r.Payment = b
	return r
}

func validPaymentJSON() map[string]any {
	return map[string]any{
		"type": TypePayment, "outcome": "paid", "chain_id": 8453, "escrow": "0x00000000000000000000000000000000000e5c40",
		"job_id": "0x" + strings.Repeat("ab", 32), "buyer": "0x1111111111111111111111111111111111111111",
		"seller": "0x2222222222222222222222222222222222222222", "amount": "50000",
		"tx": "0x" + strings.Repeat("cd", 32), "block": 42,
	}
}

func TestDecodePayment(t *testing.T) {
	testCases := []struct {
		name string
		edit func(map[string]any)
		raw  string // instead of the edited JSON
		err  string // "" for valid
	}{
		{name: "paid", edit: func(map[string]any) {}},
		{name: "cancelled without a transaction", edit: func(m map[string]any) {
			m["outcome"] = "cancelled"
			delete(m, "amount")
			delete(m, "tx")
			delete(m, "block")
		}},
		{name: "other type", edit: func(m map[string]any) { m["type"] = "swarmwage/payment/evm/2" }, err: "type"},
		{name: "no type", edit: func(m map[string]any) { delete(m, "type") }, err: "type"},
		{name: "unknown outcome", edit: func(m map[string]any) { m["outcome"] = "refunded" }, err: "outcome"},
		{name: "no chain", edit: func(m map[string]any) { delete(m, "chain_id") }, err: "chain_id"},
		{name: "negative chain", edit: func(m map[string]any) { m["chain_id"] = -1 }, err: "payment"},
		{name: "zero escrow", edit: func(m map[string]any) { m["escrow"] = "0x0000000000000000000000000000000000000000" }, err: "escrow"},
		{name: "short escrow", edit: func(m map[string]any) { m["escrow"] = "0x1234" }, err: "payment"},
		{name: "escrow without 0x", edit: func(m map[string]any) { m["escrow"] = strings.Repeat("12", 20) }, err: "payment"},
		{name: "short job id", edit: func(m map[string]any) { m["job_id"] = "0xabcd" }, err: "job_id"},
		{name: "zero seller", edit: func(m map[string]any) { m["seller"] = "0x0000000000000000000000000000000000000000" }, err: "zero address"},
		{name: "paid without amount", edit: func(m map[string]any) { delete(m, "amount") }, err: "amount"},
		{name: "zero amount", edit: func(m map[string]any) { m["amount"] = "0" }, err: "amount"},
		{name: "negative amount", edit: func(m map[string]any) { m["amount"] = "-5" }, err: "amount"},
		{name: "amount past int64", edit: func(m map[string]any) { m["amount"] = "9223372036854775808" }, err: "amount"},
		{name: "amount as a number", edit: func(m map[string]any) { m["amount"] = 50000 }, err: "payment"},
		{name: "paid without transaction", edit: func(m map[string]any) { delete(m, "tx") }, err: "transaction"},
		{name: "short transaction", edit: func(m map[string]any) { m["tx"] = "0x7a3f" }, err: "payment"},
		{name: "paid without block", edit: func(m map[string]any) { delete(m, "block") }, err: "block"},
		{name: "cancel with an amount", edit: func(m map[string]any) { m["outcome"] = "cancelled" }, err: "no amount"},
		{name: "not an object", raw: `["paid"]`, err: "payment"},
		{name: "not JSON", raw: `{"type":`, err: "payment"},
		{name: "over the size limit", raw: `{"type":"` + strings.Repeat("x", escrow.MaxPaymentSize) + `"}`, err: "over"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			raw := []byte(tc.raw)
			if tc.raw == "" {
				m := validPaymentJSON()
				tc.edit(m)
				var err error
				raw, err = json.Marshal(m)
				require.NoError(t, err)
			}
			p, err := DecodePayment(raw)
			if tc.err != "" {
				require.ErrorIs(t, err, ErrInvalidPayment)
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			again, err := p.MarshalJSON()
			require.NoError(t, err)
			back, err := DecodePayment(again)
			require.NoError(t, err)
			require.Equal(t, p, back, "the wire form round-trips")
		})
	}
}

// TestReceiptPayment: offline, a proof must name the lock's job, buyer,
// seller and amount, and a chain and contract the buyer's vouchers were
// signed for; anything else is a forgery. No proof, or a cancel, is not
// (yet) a payment.
func TestReceiptPayment(t *testing.T) {
	d := testDomain()
	buyer, seller := newReceiptParty(t), newReceiptParty(t)
	honest := signedReceipt(t, d, buyer, seller, "job-1", 50_000)
	other := signedReceipt(t, d, buyer, seller, "job-2", 50_000)
	elsewhere := Domain{ChainID: big.NewInt(84532), Escrow: d.Escrow}
	onOtherChain := signedReceipt(t, elsewhere, buyer, seller, "job-1", 50_000)
	testCases := []struct {
		name string
		r    escrow.Receipt
		want error // nil: a payment of the receipt
	}{
		{"honest", honest, nil},
		{"honest on another chain (checked against the chain later)", onOtherChain, nil},
		{"no proof yet", func() escrow.Receipt { r := honest; r.Payment = nil; return r }(), escrow.ErrNotPaid},
		{"cancelled on chain", withPayment(t, honest, func(m map[string]any) {
			m["outcome"] = "cancelled"
			delete(m, "amount")
		}), escrow.ErrNotPaid},
		{"amount raised", withPayment(t, honest, func(m map[string]any) { m["amount"] = "5000000" }), escrow.ErrForged},
		{"paid to another seller", withPayment(t, honest, func(m map[string]any) { m["seller"] = buyer.evm.Address().Hex() }), escrow.ErrForged},
		{"paid by another buyer", withPayment(t, honest, func(m map[string]any) { m["buyer"] = seller.evm.Address().Hex() }), escrow.ErrForged},
		{"another job's payment", func() escrow.Receipt { r := honest; r.Payment = other.Payment; return r }(), escrow.ErrForged},
		{"chain changed", withPayment(t, honest, func(m map[string]any) { m["chain_id"] = 1 }), escrow.ErrForged},
		{"contract changed", withPayment(t, honest, func(m map[string]any) { m["escrow"] = "0x00000000000000000000000000000000000e5c41" }), escrow.ErrForged},
		{"garbled", func() escrow.Receipt {
			r := honest
			r.Payment = json.RawMessage(`{"type":"swarmwage/payment/evm/1"}`)
			return r
		}(), escrow.ErrForged},
		{"a release voucher of another chain", func() escrow.Receipt {
			r := honest
			s := *r.Settle
			s.RailProof = onOtherChain.Settle.RailProof
			s.Signature = signWith(t, buyer.p2p, s.SigningBytes)
			r.Settle = &s
			require.NoError(t, r.Check())
			return r
		}(), escrow.ErrForged},
		{"not an evm receipt", func() escrow.Receipt { r := honest; r.Rail = escrow.RailCredits; return r }(), escrow.ErrNotPaid},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ReceiptPayment(&tc.r)
			if tc.want != nil {
				require.ErrorIs(t, err, tc.want)
				require.Nil(t, p)
				return
			}
			require.NoError(t, err)
			require.Equal(t, JobID(tc.r.Lock.JobID), p.JobID)
			require.Equal(t, tc.r.Lock.Amount, p.Amount)
			require.Equal(t, tc.r.Lock.SellerAddress, p.Seller.Hex())
		})
	}
}

// FuzzDecodePayment: any bytes decode or fail with ErrInvalidPayment,
// never panic, and what decodes round-trips.
func FuzzDecodePayment(f *testing.F) {
	b, _ := json.Marshal(validPaymentJSON())
	f.Add(b)
	f.Add([]byte(`{"type":"swarmwage/payment/evm/1","outcome":"cancelled","chain_id":1,"escrow":"0x00000000000000000000000000000000000e5c40","job_id":"0x` + strings.Repeat("00", 32) + `","buyer":"0x1111111111111111111111111111111111111111","seller":"0x2222222222222222222222222222222222222222"}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := DecodePayment(data)
		if err != nil {
			require.ErrorIs(t, err, ErrInvalidPayment)
			return
		}
		again, err := p.MarshalJSON()
		require.NoError(t, err)
		back, err := DecodePayment(again)
		require.NoError(t, err)
		require.Equal(t, p, back)
	})
}

// FuzzReceiptPayment: whatever a seller puts in an honest receipt's
// payment, ReceiptPayment never panics, and a proof it accepts names
// exactly the receipt's job, parties, amount, chain and contract.
func FuzzReceiptPayment(f *testing.F) {
	d := testDomain()
	r := signedReceipt(f, d, newReceiptParty(f), newReceiptParty(f), "job-1", 50_000)
	want, err := ReceiptPayment(&r)
	require.NoError(f, err)
	f.Add([]byte(r.Payment))
	f.Add([]byte(strings.Replace(string(r.Payment), `"50000"`, `"50001"`, 1)))
	f.Add([]byte(`{"type":"swarmwage/payment/evm/1","outcome":"paid"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		rc := r
		rc.Payment = data
		p, err := ReceiptPayment(&rc)
		if err != nil {
			return
		}
		require.Equal(t, want.JobID, p.JobID)
		require.Equal(t, want.Buyer, p.Buyer)
		require.Equal(t, want.Seller, p.Seller)
		require.Equal(t, want.Amount, p.Amount)
		require.Equal(t, want.ChainID, p.ChainID)
		require.Equal(t, want.Escrow, p.Escrow)
	})
}
