package evm

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow/evm/contract"
)

// signAuth signs a TransferWithAuthorization as an x402 client does.
func signAuth(t *testing.T, k *Key, d TokenDomain, a Authorization) []byte {
	t.Helper()
	digest, err := d.Digest(a)
	require.NoError(t, err)
	sig, err := crypto.Sign(digest[:], k.priv)
	require.NoError(t, err)
	sig[64] += 27
	return sig
}

func vrs(sig []byte) (uint8, [32]byte, [32]byte) {
	var r, s [32]byte
	copy(r[:], sig[:32])
	copy(s[:], sig[32:64])
	return sig[64], r, s
}

type tokenRig struct {
	*simChain
	at  common.Address
	tok *contract.TestStablecoin
	d   TokenDomain
}

func newTokenRig(t *testing.T) *tokenRig {
	s := newSimChain(t, "payer", "payee", "relayer")
	at, tok := s.deployToken()
	r := &tokenRig{simChain: s, at: at, tok: tok,
		d: TokenDomain{Name: "Swarmwage Test USD", Version: "2", ChainID: s.chainID, Token: at}}
	s.ok(func() (*types.Transaction, error) {
		return tok.Mint(s.opts("deployer"), s.key("payer").Address(), big.NewInt(10_000))
	})
	return r
}

func (r *tokenRig) auth(value int64, nonce byte) Authorization {
	return Authorization{From: r.key("payer").Address(), To: r.key("payee").Address(), Value: big.NewInt(value),
		ValidAfter: big.NewInt(0), ValidBefore: big.NewInt(int64(r.head()) + 3600), Nonce: [32]byte{nonce}}
}

func (r *tokenRig) bal(name string) int64 {
	b, err := r.tok.BalanceOf(&bind.CallOpts{Context: r.t.Context()}, r.key(name).Address())
	require.NoError(r.t, err)
	return b.Int64()
}

// The token's EIP-712 domain is USDC's layout, and the Go digest is the
// one the contract verifies.
func TestTokenDomainMatchesContract(t *testing.T) {
	r := newTokenRig(t)
	call := &bind.CallOpts{Context: t.Context()}
	sep, err := r.tok.DOMAINSEPARATOR(call)
	require.NoError(t, err)
	want, err := r.d.Separator()
	require.NoError(t, err)
	require.Equal(t, want, common.Hash(sep))
	v, err := r.tok.Version(call)
	require.NoError(t, err)
	require.Equal(t, "2", v)
	th, err := r.tok.TRANSFERWITHAUTHORIZATIONTYPEHASH(call)
	require.NoError(t, err)
	require.Equal(t, crypto.Keccak256Hash([]byte("TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)")), common.Hash(th))
}

func TestTransferWithAuthorization(t *testing.T) {
	r := newTokenRig(t)
	a := r.auth(700, 1)
	sig := signAuth(t, r.key("payer"), r.d, a)
	require.NoError(t, CheckAuthorizationSignature(r.d, a, sig))
	v, rr, ss := vrs(sig)
	abi, err := contract.TestStablecoinMetaData.GetAbi()
	require.NoError(t, err)
	send := func(o *bind.TransactOpts, a Authorization, sig []byte) (*types.Transaction, error) {
		v, rr, ss := vrs(sig)
		return r.tok.TransferWithAuthorization(o, a.From, a.To, a.Value, a.ValidAfter, a.ValidBefore, a.Nonce, v, rr, ss)
	}
	// Altered in any field, it is not the payer's.
	bad := a
	bad.Value = big.NewInt(701)
	require.Error(t, CheckAuthorizationSignature(r.d, bad, sig))
	r.reverts("InvalidSignature", abi, func(o *bind.TransactOpts) (*types.Transaction, error) { return send(o, bad, sig) }, "relayer")
	// Anyone submits it; the money goes to the payee.
	rc := r.ok(func() (*types.Transaction, error) {
		return r.tok.TransferWithAuthorization(r.opts("relayer"), a.From, a.To, a.Value, a.ValidAfter, a.ValidBefore, a.Nonce, v, rr, ss)
	})
	require.Equal(t, int64(10_000-700), r.bal("payer"))
	require.Equal(t, int64(700), r.bal("payee"))
	var used bool
	for _, l := range rc.Logs {
		if e, err := r.tok.ParseAuthorizationUsed(*l); err == nil {
			used = e.Authorizer == a.From && e.Nonce == a.Nonce
		}
	}
	require.True(t, used, "AuthorizationUsed event")
	st, err := r.tok.AuthorizationState(&bind.CallOpts{Context: t.Context()}, a.From, a.Nonce)
	require.NoError(t, err)
	require.True(t, st)
	// At most once.
	r.reverts("AuthorizationUsedOrCanceled", abi, func(o *bind.TransactOpts) (*types.Transaction, error) { return send(o, a, sig) }, "relayer")
	// The high-s twin of a valid signature is refused.
	b := r.auth(100, 2)
	sig2 := signAuth(t, r.key("payer"), r.d, b)
	twin := append([]byte(nil), sig2...)
	n := crypto.S256().Params().N
	s := new(big.Int).Sub(n, new(big.Int).SetBytes(sig2[32:64]))
	s.FillBytes(twin[32:64])
	twin[64] = 55 - sig2[64] // 27 <-> 28
	require.Error(t, CheckAuthorizationSignature(r.d, b, twin))
	r.reverts("InvalidSignature", abi, func(o *bind.TransactOpts) (*types.Transaction, error) { return send(o, b, twin) }, "relayer")
	// Outside its window.
	late := r.auth(100, 3)
	late.ValidBefore = big.NewInt(int64(r.head()))
	r.reverts("AuthorizationExpired", abi, func(o *bind.TransactOpts) (*types.Transaction, error) {
		return send(o, late, signAuth(t, r.key("payer"), r.d, late))
	}, "relayer")
	early := r.auth(100, 4)
	early.ValidAfter = big.NewInt(int64(r.head()) + 600)
	r.reverts("AuthorizationNotYetValid", abi, func(o *bind.TransactOpts) (*types.Transaction, error) {
		return send(o, early, signAuth(t, r.key("payer"), r.d, early))
	}, "relayer")
	// Another chain's or token's domain does not verify.
	other := r.d
	other.ChainID = big.NewInt(8453)
	r.reverts("InvalidSignature", abi, func(o *bind.TransactOpts) (*types.Transaction, error) {
		c := r.auth(100, 5)
		return send(o, c, signAuth(t, r.key("payer"), other, c))
	}, "relayer")
}

func TestReceiveAndCancelAuthorization(t *testing.T) {
	r := newTokenRig(t)
	abi, err := contract.TestStablecoinMetaData.GetAbi()
	require.NoError(t, err)
	call := &bind.CallOpts{Context: t.Context()}
	rh, err := r.tok.RECEIVEWITHAUTHORIZATIONTYPEHASH(call)
	require.NoError(t, err)
	ch, err := r.tok.CANCELAUTHORIZATIONTYPEHASH(call)
	require.NoError(t, err)
	sep, err := r.tok.DOMAINSEPARATOR(call)
	require.NoError(t, err)
	signStruct := func(structHash []byte) []byte {
		digest := crypto.Keccak256(append(append([]byte{0x19, 0x01}, sep[:]...), structHash...))
		sig, err := crypto.Sign(digest, r.key("payer").priv)
		require.NoError(t, err)
		sig[64] += 27
		return sig
	}
	word := func(b []byte) []byte { return common.LeftPadBytes(b, 32) }
	a := r.auth(300, 9)
	rsig := signStruct(crypto.Keccak256(rh[:], word(a.From[:]), word(a.To[:]), word(a.Value.Bytes()), word(a.ValidAfter.Bytes()), word(a.ValidBefore.Bytes()), a.Nonce[:]))
	v, rr, ss := vrs(rsig)
	// Only the payee may submit a receive.
	r.reverts("CallerNotPayee", abi, func(o *bind.TransactOpts) (*types.Transaction, error) {
		return r.tok.ReceiveWithAuthorization(o, a.From, a.To, a.Value, a.ValidAfter, a.ValidBefore, a.Nonce, v, rr, ss)
	}, "relayer")
	r.ok(func() (*types.Transaction, error) {
		return r.tok.ReceiveWithAuthorization(r.opts("payee"), a.From, a.To, a.Value, a.ValidAfter, a.ValidBefore, a.Nonce, v, rr, ss)
	})
	require.Equal(t, int64(300), r.bal("payee"))
	// A canceled nonce can no longer move money.
	b := r.auth(400, 10)
	csig := signStruct(crypto.Keccak256(ch[:], word(b.From[:]), b.Nonce[:]))
	cv, cr, cs := vrs(csig)
	rc := r.ok(func() (*types.Transaction, error) {
		return r.tok.CancelAuthorization(r.opts("relayer"), b.From, b.Nonce, cv, cr, cs)
	})
	var canceled bool
	for _, l := range rc.Logs {
		if e, err := r.tok.ParseAuthorizationCanceled(*l); err == nil {
			canceled = e.Authorizer == b.From && e.Nonce == b.Nonce
		}
	}
	require.True(t, canceled, "AuthorizationCanceled event")
	tsig := signAuth(t, r.key("payer"), r.d, b)
	tv, tr, ts := vrs(tsig)
	r.reverts("AuthorizationUsedOrCanceled", abi, func(o *bind.TransactOpts) (*types.Transaction, error) {
		return r.tok.TransferWithAuthorization(o, b.From, b.To, b.Value, b.ValidAfter, b.ValidBefore, b.Nonce, tv, tr, ts)
	}, "relayer")
	r.reverts("AuthorizationUsedOrCanceled", abi, func(o *bind.TransactOpts) (*types.Transaction, error) {
		return r.tok.CancelAuthorization(o, b.From, b.Nonce, cv, cr, cs)
	}, "relayer")
	require.Equal(t, int64(300), r.bal("payee"))
}
