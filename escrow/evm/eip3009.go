package evm

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// EIP-3009 (transfer with authorization) on the rail's token: what the
// x402 gateway (package gateway/x402) needs to take a client's signed
// payment. USDC (FiatTokenV2) and the TestStablecoin of 'chain deploy
// --test-token' share the functions, events and EIP-712 domain layout used
// here (name, version, chainId, verifyingContract), so the same code takes
// USDC on Base and the test token on a dev chain.

// TransferWithAuthorizationType is the EIP-712 primary type an x402 client
// signs (EIP-3009).
const TransferWithAuthorizationType = "TransferWithAuthorization"

// authorizationLookback bounds how far back AuthorizationUsedTx searches the
// chain's logs: RPCs cap eth_getLogs ranges (often at 10,000 blocks).
const authorizationLookback = 9_000

// ErrBadAuthorization: an EIP-3009 authorization is malformed or not signed
// by the account it names.
var ErrBadAuthorization = errors.New("evm: bad transfer authorization")

// Authorization is an EIP-3009 TransferWithAuthorization: From lets anyone
// move Value of the token to To once, between ValidAfter and ValidBefore
// (unix seconds, both exclusive), under its own Nonce.
type Authorization struct {
	From        common.Address
	To          common.Address
	Value       *big.Int
	ValidAfter  *big.Int
	ValidBefore *big.Int
	Nonce       [32]byte
}

// TokenDomain is the EIP-712 domain of an EIP-3009 token.
type TokenDomain struct {
	Name    string
	Version string
	ChainID *big.Int
	Token   common.Address
}

func (d TokenDomain) typedData(a Authorization) apitypes.TypedData {
	return apitypes.TypedData{
		Types: apitypes.Types{
			"EIP712Domain": {
				{Name: "name", Type: "string"},
				{Name: "version", Type: "string"},
				{Name: "chainId", Type: "uint256"},
				{Name: "verifyingContract", Type: "address"},
			},
			TransferWithAuthorizationType: {
				{Name: "from", Type: "address"},
				{Name: "to", Type: "address"},
				{Name: "value", Type: "uint256"},
				{Name: "validAfter", Type: "uint256"},
				{Name: "validBefore", Type: "uint256"},
				{Name: "nonce", Type: "bytes32"},
			},
		},
		PrimaryType: TransferWithAuthorizationType,
		Domain: apitypes.TypedDataDomain{
			Name: d.Name, Version: d.Version,
			ChainId:           (*math.HexOrDecimal256)(new(big.Int).Set(d.ChainID)),
			VerifyingContract: d.Token.Hex(),
		},
		Message: apitypes.TypedDataMessage{
			"from":        a.From.Hex(),
			"to":          a.To.Hex(),
			"value":       (*math.HexOrDecimal256)(a.Value),
			"validAfter":  (*math.HexOrDecimal256)(a.ValidAfter),
			"validBefore": (*math.HexOrDecimal256)(a.ValidBefore),
			"nonce":       a.Nonce[:],
		},
	}
}

// Separator is the domain's EIP-712 separator, as the token's
// DOMAIN_SEPARATOR() returns it.
func (d TokenDomain) Separator() (common.Hash, error) {
	if d.ChainID == nil || d.ChainID.Sign() <= 0 {
		return common.Hash{}, fmt.Errorf("%w: domain has no chain ID", ErrBadAuthorization)
	}
	td := d.typedData(Authorization{Value: new(big.Int), ValidAfter: new(big.Int), ValidBefore: new(big.Int)})
	h, err := td.HashStruct("EIP712Domain", td.Domain.Map())
	if err != nil {
		return common.Hash{}, fmt.Errorf("%w: domain: %v", ErrBadAuthorization, err)
	}
	return common.BytesToHash(h), nil
}

// Digest is the EIP-712 digest From signs for a.
func (d TokenDomain) Digest(a Authorization) (common.Hash, error) {
	if d.ChainID == nil || d.ChainID.Sign() <= 0 {
		return common.Hash{}, fmt.Errorf("%w: domain has no chain ID", ErrBadAuthorization)
	}
	for _, v := range []*big.Int{a.Value, a.ValidAfter, a.ValidBefore} {
		if v == nil || v.Sign() < 0 || v.BitLen() > 256 {
			return common.Hash{}, fmt.Errorf("%w: value or validity out of uint256 range", ErrBadAuthorization)
		}
	}
	h, _, err := apitypes.TypedDataAndHash(d.typedData(a))
	if err != nil {
		return common.Hash{}, fmt.Errorf("%w: %v", ErrBadAuthorization, err)
	}
	return common.BytesToHash(h), nil
}

// CheckAuthorizationSignature checks that sig (65 bytes r || s || v, v in
// {0, 1, 27, 28}, s in the lower half) is a's From's signature in domain d,
// as the token's ecrecover would accept it.
func CheckAuthorizationSignature(d TokenDomain, a Authorization, sig []byte) error {
	if len(sig) != crypto.SignatureLength {
		return fmt.Errorf("%w: signature is %d bytes, want %d", ErrBadAuthorization, len(sig), crypto.SignatureLength)
	}
	digest, err := d.Digest(a)
	if err != nil {
		return err
	}
	s := append([]byte(nil), sig...)
	if s[64] >= 27 {
		s[64] -= 27
	}
	if s[64] > 1 {
		return fmt.Errorf("%w: signature's v is %d", ErrBadAuthorization, sig[64])
	}
	if !crypto.ValidateSignatureValues(s[64], new(big.Int).SetBytes(s[:32]), new(big.Int).SetBytes(s[32:64]), true) {
		return fmt.Errorf("%w: signature values out of range (high s?)", ErrBadAuthorization)
	}
	pub, err := crypto.SigToPub(digest[:], s)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadAuthorization, err)
	}
	if got := crypto.PubkeyToAddress(*pub); got != a.From {
		return fmt.Errorf("%w: signed by %s, not by %s", ErrBadAuthorization, got, a.From)
	}
	return nil
}

// Token is the rail's token address.
func (r *Rail) Token() common.Address { return r.cfg.Token }

// TokenDomain reads the token's EIP-712 domain (name() and version(), as
// USDC has them) and checks it against the token's DOMAIN_SEPARATOR(), so a
// client signing for the returned domain signs what the token verifies.
func (r *Rail) TokenDomain(ctx context.Context) (TokenDomain, error) {
	call := &bind.CallOpts{Context: ctx}
	name, err := r.tok.Name(call)
	if err != nil {
		return TokenDomain{}, classify("read the token's name", err, r.abis...)
	}
	version, err := r.tok.Version(call)
	if err != nil {
		return TokenDomain{}, fmt.Errorf("%w: token %s has no version(): not an EIP-3009 token (%v)", ErrWrongChain, r.cfg.Token, err)
	}
	d := TokenDomain{Name: name, Version: version, ChainID: new(big.Int).Set(r.domain.ChainID), Token: r.cfg.Token}
	sep, err := r.tok.DOMAINSEPARATOR(call)
	if err != nil {
		return TokenDomain{}, fmt.Errorf("%w: token %s has no DOMAIN_SEPARATOR(): not an EIP-3009 token (%v)", ErrWrongChain, r.cfg.Token, err)
	}
	want, err := d.Separator()
	if err != nil {
		return TokenDomain{}, err
	}
	if common.Hash(sep) != want {
		return TokenDomain{}, fmt.Errorf("%w: token %s's DOMAIN_SEPARATOR is not EIP712Domain(name %q, version %q, chain %s, itself)",
			ErrWrongChain, r.cfg.Token, name, version, d.ChainID)
	}
	return d, nil
}

// AuthorizationState reports whether authorizer's nonce was used or
// canceled on the token.
func (r *Rail) AuthorizationState(ctx context.Context, authorizer common.Address, nonce [32]byte) (bool, error) {
	used, err := r.tok.AuthorizationState(&bind.CallOpts{Context: ctx}, authorizer, nonce)
	if err != nil {
		return false, classify("read authorization state", err, r.abis...)
	}
	return used, nil
}

// TokenBalance is addr's balance of the token.
func (r *Rail) TokenBalance(ctx context.Context, addr common.Address) (*big.Int, error) {
	b, err := r.tok.BalanceOf(&bind.CallOpts{Context: ctx}, addr)
	if err != nil {
		return nil, classify("read token balance", err, r.abis...)
	}
	return b, nil
}

// TransferWithAuthorization submits a's transfer from the rail's key (which
// pays the gas) and waits for its confirmations. The token refuses an
// authorization that is used, canceled, outside its window or not From's:
// the error wraps ErrReverted and names the token's error.
func (r *Rail) TransferWithAuthorization(ctx context.Context, a Authorization, sig []byte) (*TxResult, error) {
	if len(sig) != crypto.SignatureLength {
		return nil, fmt.Errorf("%w: signature is %d bytes, want %d", ErrBadAuthorization, len(sig), crypto.SignatureLength)
	}
	var rs, ss [32]byte
	copy(rs[:], sig[:32])
	copy(ss[:], sig[32:64])
	v := sig[64]
	if v < 27 {
		v += 27
	}
	res, _, err := r.send(ctx, "transfer with authorization", func(o *bind.TransactOpts) (*types.Transaction, error) {
		return r.tok.TransferWithAuthorization(o, a.From, a.To, a.Value, a.ValidAfter, a.ValidBefore, a.Nonce, v, rs, ss)
	})
	return res, err
}

// AuthorizationUsedTx finds the transaction whose AuthorizationUsed event
// used authorizer's nonce, in the last authorizationLookback blocks; found
// is false if there is none there (the nonce is unused, was canceled, or
// was used earlier).
func (r *Rail) AuthorizationUsedTx(ctx context.Context, authorizer common.Address, nonce [32]byte) (tx common.Hash, found bool, err error) {
	head, err := r.eth.BlockNumber(ctx)
	if err != nil {
		return common.Hash{}, false, classify("block number", err)
	}
	from := uint64(0)
	if head > authorizationLookback {
		from = head - authorizationLookback
	}
	it, err := r.tok.FilterAuthorizationUsed(&bind.FilterOpts{Start: from, Context: ctx}, []common.Address{authorizer}, [][32]byte{nonce})
	if err != nil {
		return common.Hash{}, false, classify("filter AuthorizationUsed", err, r.abis...)
	}
	defer it.Close()
	for it.Next() {
		if it.Event.Raw.Address == r.cfg.Token && !it.Event.Raw.Removed {
			tx, found = it.Event.Raw.TxHash, true
		}
	}
	if err := it.Error(); err != nil {
		return common.Hash{}, false, classify("read AuthorizationUsed", err, r.abis...)
	}
	return tx, found, nil
}
