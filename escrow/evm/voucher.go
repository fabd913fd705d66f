package evm

import (
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	gomath "math"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/swarmwage/swarmwage/escrow/evm/contract"
)

// EIP-712 names of the contract's domain and voucher types. They must match
// contracts/SwarmwageEscrow.sol (TestDigestsMatchContract checks it).
const (
	domainName    = "SwarmwageEscrow"
	domainVersion = "1"
	lockType      = "Lock"
	releaseType   = "Release"
)

var (
	// ErrBadSignature: a voucher is not signed by the buyer it names.
	ErrBadSignature = errors.New("evm: voucher signature does not match its buyer")
	// ErrInvalidVoucher: a voucher is malformed (zero address or amount,
	// amount out of range, wrong signature length).
	ErrInvalidVoucher = errors.New("evm: invalid voucher")
)

// maxAmount is the largest amount a voucher carries: amounts are int64 token
// base units on the Go side (micro-units of a 6-decimal stablecoin, the
// escrow package's micro-credits), uint256 on chain.
var maxAmount = big.NewInt(gomath.MaxInt64)

// Domain names the one escrow contract on one chain a voucher is valid for
// (EIP-712 domain: name, version, chainId, verifyingContract). A voucher
// signed for another chain or another contract never verifies here.
type Domain struct {
	ChainID *big.Int
	Escrow  common.Address
}

// JobID maps a swarmwage job ID (escrow.Lock.JobID) to the contract's bytes32
// job id: keccak256 of its bytes.
func JobID(id string) [32]byte { return crypto.Keccak256Hash([]byte(id)) }

// Lock is a buyer's signed lock voucher: Amount is held for the job against
// the buyer's line for Seller, and Seller may claim it from NotBefore (unix
// seconds; the job's deadline plus the verification window) unless the buyer
// cancels on chain before then.
type Lock struct {
	JobID     [32]byte
	Buyer     common.Address
	Seller    common.Address
	Amount    int64 // token base units
	NotBefore uint64
	Signature []byte // 65 bytes r || s || v, v in {27, 28}
}

// Release is a buyer's signed release voucher: Seller may redeem Amount for
// the job at once.
type Release struct {
	JobID     [32]byte
	Buyer     common.Address
	Seller    common.Address
	Amount    int64
	Signature []byte
}

func eip712Types() apitypes.Types {
	return apitypes.Types{
		"EIP712Domain": {
			{Name: "name", Type: "string"},
			{Name: "version", Type: "string"},
			{Name: "chainId", Type: "uint256"},
			{Name: "verifyingContract", Type: "address"},
		},
		lockType: {
			{Name: "jobId", Type: "bytes32"},
			{Name: "buyer", Type: "address"},
			{Name: "seller", Type: "address"},
			{Name: "amount", Type: "uint256"},
			{Name: "notBefore", Type: "uint64"},
		},
		releaseType: {
			{Name: "jobId", Type: "bytes32"},
			{Name: "buyer", Type: "address"},
			{Name: "seller", Type: "address"},
			{Name: "amount", Type: "uint256"},
		},
	}
}

// typedData is the EIP-712 document of one voucher, as a wallet would show it.
func (d Domain) typedData(primary string, msg apitypes.TypedDataMessage) apitypes.TypedData {
	return apitypes.TypedData{
		Types:       eip712Types(),
		PrimaryType: primary,
		Domain: apitypes.TypedDataDomain{
			Name:              domainName,
			Version:           domainVersion,
			ChainId:           (*math.HexOrDecimal256)(new(big.Int).Set(d.ChainID)),
			VerifyingContract: d.Escrow.Hex(),
		},
		Message: msg,
	}
}

func (d Domain) digest(primary string, msg apitypes.TypedDataMessage) (common.Hash, error) {
	if d.ChainID == nil || d.ChainID.Sign() <= 0 {
		return common.Hash{}, fmt.Errorf("%w: domain has no chain ID", ErrInvalidVoucher)
	}
	h, _, err := apitypes.TypedDataAndHash(d.typedData(primary, msg))
	if err != nil {
		return common.Hash{}, fmt.Errorf("hash %s voucher: %w", primary, err)
	}
	return common.BytesToHash(h), nil
}

func checkParties(jobBuyer, seller common.Address, amount int64) error {
	switch {
	case jobBuyer == (common.Address{}):
		return fmt.Errorf("%w: buyer is the zero address", ErrInvalidVoucher)
	case seller == (common.Address{}):
		return fmt.Errorf("%w: seller is the zero address", ErrInvalidVoucher)
	case amount <= 0:
		return fmt.Errorf("%w: amount %d: must be positive", ErrInvalidVoucher, amount)
	}
	return nil
}

// LockDigest is the EIP-712 digest the buyer signs for l.
func (d Domain) LockDigest(l *Lock) (common.Hash, error) {
	if err := checkParties(l.Buyer, l.Seller, l.Amount); err != nil {
		return common.Hash{}, err
	}
	return d.digest(lockType, apitypes.TypedDataMessage{
		"jobId":     hexutil.Encode(l.JobID[:]),
		"buyer":     l.Buyer.Hex(),
		"seller":    l.Seller.Hex(),
		"amount":    big.NewInt(l.Amount),
		"notBefore": new(big.Int).SetUint64(l.NotBefore),
	})
}

// ReleaseDigest is the EIP-712 digest the buyer signs for r.
func (d Domain) ReleaseDigest(r *Release) (common.Hash, error) {
	if err := checkParties(r.Buyer, r.Seller, r.Amount); err != nil {
		return common.Hash{}, err
	}
	return d.digest(releaseType, apitypes.TypedDataMessage{
		"jobId":  hexutil.Encode(r.JobID[:]),
		"buyer":  r.Buyer.Hex(),
		"seller": r.Seller.Hex(),
		"amount": big.NewInt(r.Amount),
	})
}

// SignLock signs l with the buyer's key; l.Buyer must be the key's address.
func (d Domain) SignLock(key *Key, l *Lock) error {
	if l.Buyer != key.Address() {
		return fmt.Errorf("%w: lock names buyer %s, key is %s", ErrInvalidVoucher, l.Buyer, key.Address())
	}
	h, err := d.LockDigest(l)
	if err != nil {
		return err
	}
	l.Signature, err = signDigest(key.priv, h)
	return err
}

// SignRelease signs r with the buyer's key; r.Buyer must be the key's address.
func (d Domain) SignRelease(key *Key, r *Release) error {
	if r.Buyer != key.Address() {
		return fmt.Errorf("%w: release names buyer %s, key is %s", ErrInvalidVoucher, r.Buyer, key.Address())
	}
	h, err := d.ReleaseDigest(r)
	if err != nil {
		return err
	}
	r.Signature, err = signDigest(key.priv, h)
	return err
}

// VerifyLock checks that l.Buyer signed l for this domain. The error wraps
// ErrBadSignature or ErrInvalidVoucher.
func (d Domain) VerifyLock(l *Lock) error {
	h, err := d.LockDigest(l)
	if err != nil {
		return err
	}
	return verifyDigest(h, l.Signature, l.Buyer)
}

// VerifyRelease checks that r.Buyer signed r for this domain.
func (d Domain) VerifyRelease(r *Release) error {
	h, err := d.ReleaseDigest(r)
	if err != nil {
		return err
	}
	return verifyDigest(h, r.Signature, r.Buyer)
}

func signDigest(priv *ecdsa.PrivateKey, h common.Hash) ([]byte, error) {
	sig, err := crypto.Sign(h[:], priv)
	if err != nil {
		return nil, fmt.Errorf("sign voucher: %w", err)
	}
	sig[64] += 27 // the contract (and every wallet) wants v in {27, 28}
	return sig, nil
}

// secp256k1halfN: signatures with s above it are the malleable twin of
// another; the contract refuses them, so verification here does too.
var secp256k1halfN = new(big.Int).Rsh(crypto.S256().Params().N, 1)

func verifyDigest(h common.Hash, sig []byte, want common.Address) error {
	if len(sig) != crypto.SignatureLength {
		return fmt.Errorf("%w: signature is %d bytes, want %d", ErrInvalidVoucher, len(sig), crypto.SignatureLength)
	}
	v := sig[64]
	if v >= 27 {
		v -= 27
	}
	if v > 1 || new(big.Int).SetBytes(sig[32:64]).Cmp(secp256k1halfN) > 0 {
		return ErrBadSignature
	}
	norm := append([]byte(nil), sig...)
	norm[64] = v
	pub, err := crypto.SigToPub(h[:], norm)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadSignature, err)
	}
	if got := crypto.PubkeyToAddress(*pub); got != want {
		return fmt.Errorf("%w: signed by %s, not %s", ErrBadSignature, got, want)
	}
	return nil
}

// Wire forms: JSON with hex strings, amounts as decimal strings of base
// units (the escrow package carries these inside its own signed messages).

type lockJSON struct {
	JobID     hexutil.Bytes  `json:"job_id"`
	Buyer     common.Address `json:"buyer"`
	Seller    common.Address `json:"seller"`
	Amount    string         `json:"amount"`
	NotBefore uint64         `json:"not_before"`
	Signature hexutil.Bytes  `json:"signature"`
}

type releaseJSON struct {
	JobID     hexutil.Bytes  `json:"job_id"`
	Buyer     common.Address `json:"buyer"`
	Seller    common.Address `json:"seller"`
	Amount    string         `json:"amount"`
	Signature hexutil.Bytes  `json:"signature"`
}

// MarshalJSON encodes the voucher's wire form.
func (l Lock) MarshalJSON() ([]byte, error) {
	return json.Marshal(lockJSON{l.JobID[:], l.Buyer, l.Seller, fmt.Sprint(l.Amount), l.NotBefore, l.Signature})
}

// UnmarshalJSON decodes and checks the wire form; it does not verify the
// signature (Domain.VerifyLock does).
func (l *Lock) UnmarshalJSON(b []byte) error {
	var w lockJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("%w: lock: %v", ErrInvalidVoucher, err)
	}
	amt, err := parseWireAmount(w.Amount)
	if err != nil {
		return err
	}
	if len(w.JobID) != 32 {
		return fmt.Errorf("%w: job_id is %d bytes, want 32", ErrInvalidVoucher, len(w.JobID))
	}
	*l = Lock{Buyer: w.Buyer, Seller: w.Seller, Amount: amt, NotBefore: w.NotBefore, Signature: w.Signature}
	copy(l.JobID[:], w.JobID)
	return checkParties(l.Buyer, l.Seller, l.Amount)
}

// MarshalJSON encodes the voucher's wire form.
func (r Release) MarshalJSON() ([]byte, error) {
	return json.Marshal(releaseJSON{r.JobID[:], r.Buyer, r.Seller, fmt.Sprint(r.Amount), r.Signature})
}

// UnmarshalJSON decodes and checks the wire form; it does not verify the
// signature (Domain.VerifyRelease does).
func (r *Release) UnmarshalJSON(b []byte) error {
	var w releaseJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("%w: release: %v", ErrInvalidVoucher, err)
	}
	amt, err := parseWireAmount(w.Amount)
	if err != nil {
		return err
	}
	if len(w.JobID) != 32 {
		return fmt.Errorf("%w: job_id is %d bytes, want 32", ErrInvalidVoucher, len(w.JobID))
	}
	*r = Release{Buyer: w.Buyer, Seller: w.Seller, Amount: amt, Signature: w.Signature}
	copy(r.JobID[:], w.JobID)
	return checkParties(r.Buyer, r.Seller, r.Amount)
}

func parseWireAmount(s string) (int64, error) {
	n, ok := new(big.Int).SetString(s, 10)
	if !ok || n.Sign() <= 0 || n.Cmp(maxAmount) > 0 {
		return 0, fmt.Errorf("%w: amount %q: want a positive integer of base units up to %d", ErrInvalidVoucher, truncate(s), int64(gomath.MaxInt64))
	}
	return n.Int64(), nil
}

func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// lockVoucher is l as the contract's redeem takes it.
func lockVoucher(l *Lock) contract.SwarmwageEscrowVoucher {
	return contract.SwarmwageEscrowVoucher{
		JobId: l.JobID, Buyer: l.Buyer, Amount: big.NewInt(l.Amount), NotBefore: l.NotBefore, Signature: l.Signature,
	}
}

// releaseVoucher is r as the contract's redeem takes it.
func releaseVoucher(r *Release) contract.SwarmwageEscrowVoucher {
	return contract.SwarmwageEscrowVoucher{
		Release: true, JobId: r.JobID, Buyer: r.Buyer, Amount: big.NewInt(r.Amount), Signature: r.Signature,
	}
}
