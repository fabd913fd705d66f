package evm

import (
	"encoding/json"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"
)

func testDomain() Domain {
	return Domain{ChainID: big.NewInt(8453), Escrow: common.HexToAddress("0x00000000000000000000000000000000000e5c40")}
}

func TestVoucherJSONRoundTripAndVerify(t *testing.T) {
	buyer, err := GenerateKey()
	require.NoError(t, err)
	d := testDomain()
	l := &Lock{JobID: JobID("job-1"), Buyer: buyer.Address(), Seller: common.HexToAddress("0x1111"), Amount: 50_000, NotBefore: 1_800_000_000}
	require.NoError(t, d.SignLock(buyer, l))
	b, err := json.Marshal(l)
	require.NoError(t, err)
	var back Lock
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, *l, back)
	require.NoError(t, d.VerifyLock(&back))

	back.Amount++
	require.ErrorIs(t, d.VerifyLock(&back), ErrBadSignature)

	r := &Release{JobID: l.JobID, Buyer: l.Buyer, Seller: l.Seller, Amount: l.Amount}
	require.NoError(t, d.SignRelease(buyer, r))
	b, err = json.Marshal(r)
	require.NoError(t, err)
	var rback Release
	require.NoError(t, json.Unmarshal(b, &rback))
	require.NoError(t, d.VerifyRelease(&rback))
	// A release's signature is not a lock's.
	asLock := Lock{JobID: r.JobID, Buyer: r.Buyer, Seller: r.Seller, Amount: r.Amount, Signature: r.Signature}
	require.ErrorIs(t, d.VerifyLock(&asLock), ErrBadSignature)

	other, err := GenerateKey()
	require.NoError(t, err)
	require.ErrorIs(t, d.SignLock(other, l), ErrInvalidVoucher, "a key signs only vouchers naming it as buyer")
}

// Golden vector: the EIP-712 digest of a fixed lock. Changing it breaks
// every voucher signed before; it is checked against the contract itself in
// TestDigestsMatchContract.
func TestLockDigestGolden(t *testing.T) {
	l := &Lock{JobID: JobID("golden"), Buyer: common.HexToAddress("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"),
		Seller: common.HexToAddress("0x70997970C51812dc3A010C7d01b50e0d17dc79C8"), Amount: 20_000, NotBefore: 1_800_000_000}
	h, err := testDomain().LockDigest(l)
	require.NoError(t, err)
	require.Equal(t, "0xe910f1bbc47215a1bdf493b8c5a482c0c36a9aaf6a0386365644131640186697", h.Hex())
}

func TestVoucherJSONRejectsBadInput(t *testing.T) {
	for _, in := range []string{
		`{}`,
		`{"job_id":"0x01","buyer":"0x0000000000000000000000000000000000000001","seller":"0x0000000000000000000000000000000000000002","amount":"1","not_before":1,"signature":"0x"}`,
		`{"job_id":"0x` + zeros64 + `","buyer":"0x0000000000000000000000000000000000000001","seller":"0x0000000000000000000000000000000000000002","amount":"-1","not_before":1,"signature":"0x"}`,
		`{"job_id":"0x` + zeros64 + `","buyer":"0x0000000000000000000000000000000000000001","seller":"0x0000000000000000000000000000000000000002","amount":"99999999999999999999","not_before":1,"signature":"0x"}`,
		`{"job_id":"0x` + zeros64 + `","buyer":"0x0000000000000000000000000000000000000000","seller":"0x0000000000000000000000000000000000000002","amount":"1","not_before":1,"signature":"0x"}`,
	} {
		var l Lock
		require.ErrorIs(t, json.Unmarshal([]byte(in), &l), ErrInvalidVoucher, in)
	}
}

const zeros64 = "0000000000000000000000000000000000000000000000000000000000000000"

// Vouchers arrive from peers: decoding and verifying arbitrary bytes never
// panics.
func FuzzVoucherDecodeNoPanic(f *testing.F) {
	buyer, _ := GenerateKey()
	d := testDomain()
	l := &Lock{JobID: JobID("f"), Buyer: buyer.Address(), Seller: common.HexToAddress("0x22"), Amount: 7, NotBefore: 9}
	_ = d.SignLock(buyer, l)
	b, _ := json.Marshal(l)
	f.Add(b)
	f.Add([]byte(`{"job_id":"0x","amount":"1"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var l Lock
		if json.Unmarshal(data, &l) == nil {
			_ = d.VerifyLock(&l)
		}
		var r Release
		if json.Unmarshal(data, &r) == nil {
			_ = d.VerifyRelease(&r)
		}
	})
}
