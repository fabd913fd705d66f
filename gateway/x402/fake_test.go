package x402

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow/evm"
)

// fakeHirer is the hire service in unit tests: it answers with outcome and
// counts hires.
type fakeHirer struct {
	mu      sync.Mutex
	price   int64
	outcome string // "released" passes
	hires   []HireRequest
	block   chan struct{} // when set, Hire waits for it
}

func (f *fakeHirer) Quote(_ context.Context, capID string, input json.RawMessage) (int64, error) {
	if capID == "no.such" {
		return 0, fmt.Errorf("%w of %s", ErrNoSeller, capID)
	}
	if string(input) == `{"bad":true}` {
		return 0, fmt.Errorf("%w: bad is not allowed", ErrInvalidInput)
	}
	return f.price, nil
}

func (f *fakeHirer) Hire(ctx context.Context, req HireRequest) HireResult {
	f.mu.Lock()
	f.hires = append(f.hires, req)
	block := f.block
	f.mu.Unlock()
	if block != nil {
		select {
		case <-block:
		case <-ctx.Done():
			return HireResult{Outcome: "cancelled", Error: "cancelled"}
		}
	}
	if f.outcome != "released" {
		return HireResult{JobID: "job-1", Capability: req.Capability, Outcome: f.outcome, Error: "the output failed verification",
			Verification: json.RawMessage(`{"passed":false}`)}
	}
	return HireResult{JobID: "job-1", Capability: req.Capability, Seller: "12D3KooSeller", Price: f.price, Passed: true, Outcome: "released",
		Output: json.RawMessage(`{"mean":2}`), Verification: json.RawMessage(`{"passed":true}`)}
}

func (f *fakeHirer) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.hires)
}

// fakeChain is a token with EIP-3009 in memory.
type fakeChain struct {
	mu        sync.Mutex
	terms     Terms
	balances  map[common.Address]*big.Int
	used      map[[32]byte]bool
	transfers int
	failSend  error
	usedTx    map[[32]byte]common.Hash
}

func newFakeChain(payTo common.Address) *fakeChain {
	return &fakeChain{
		terms: Terms{Domain: evm.TokenDomain{Name: "Swarmwage Test USD", Version: "2", ChainID: big.NewInt(31337),
			Token: common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3")}, PayTo: payTo},
		balances: map[common.Address]*big.Int{}, used: map[[32]byte]bool{}, usedTx: map[[32]byte]common.Hash{},
	}
}

func (c *fakeChain) Terms(context.Context) (Terms, error) { return c.terms, nil }

func (c *fakeChain) AuthorizationState(_ context.Context, _ common.Address, nonce [32]byte) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used[nonce], nil
}

func (c *fakeChain) TokenBalance(_ context.Context, a common.Address) (*big.Int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if b := c.balances[a]; b != nil {
		return new(big.Int).Set(b), nil
	}
	return new(big.Int), nil
}

func (c *fakeChain) TransferWithAuthorization(_ context.Context, a evm.Authorization, sig []byte) (common.Hash, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.failSend != nil {
		return common.Hash{}, c.failSend
	}
	if c.used[a.Nonce] {
		return common.Hash{}, errors.New("reverted: AuthorizationUsedOrCanceled")
	}
	if err := evm.CheckAuthorizationSignature(c.terms.Domain, a, sig); err != nil {
		return common.Hash{}, err
	}
	if c.balances[a.From] == nil || c.balances[a.From].Cmp(a.Value) < 0 {
		return common.Hash{}, errors.New("reverted: Insufficient")
	}
	c.used[a.Nonce] = true
	c.balances[a.From].Sub(c.balances[a.From], a.Value)
	if c.balances[a.To] == nil {
		c.balances[a.To] = new(big.Int)
	}
	c.balances[a.To].Add(c.balances[a.To], a.Value)
	c.transfers++
	tx := crypto.Keccak256Hash(a.Nonce[:])
	c.usedTx[a.Nonce] = tx
	return tx, nil
}

func (c *fakeChain) AuthorizationUsedTx(_ context.Context, _ common.Address, nonce [32]byte) (common.Hash, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	tx, ok := c.usedTx[nonce]
	return tx, ok, nil
}

func (c *fakeChain) transferCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.transfers
}

func (c *fakeChain) balance(a common.Address) int64 {
	b, _ := c.TokenBalance(context.Background(), a)
	return b.Int64()
}

// openDB opens a real Badger in dir, as the node does (SyncWrites).
func openDB(t *testing.T, dir string) *badger.DB {
	t.Helper()
	db, err := badger.Open(badger.DefaultOptions(dir).WithSyncWrites(true).WithLogger(nil).WithMemTableSize(4 << 20).WithValueThreshold(64 << 10).
		WithValueLogFileSize(4 << 20).WithNumMemtables(1).WithBlockCacheSize(1 << 20))
	require.NoError(t, err)
	return db
}

// signPayment builds a PAYMENT-SIGNATURE header for req, signed by key,
// as @x402/evm builds it (validAfter 0, validBefore now + maxTimeout,
// random nonce); edit may change the authorization before signing.
func signPayment(t testing.TB, key *ecdsa.PrivateKey, d evm.TokenDomain, req Requirements, now time.Time, edit func(*evm.Authorization)) string {
	t.Helper()
	var nonce [32]byte
	copy(nonce[:], crypto.Keccak256([]byte(fmt.Sprint(time.Now().UnixNano(), req.Amount))))
	value, _ := new(big.Int).SetString(req.Amount, 10)
	a := evm.Authorization{From: crypto.PubkeyToAddress(key.PublicKey), To: common.HexToAddress(req.PayTo), Value: value,
		ValidAfter: big.NewInt(0), ValidBefore: big.NewInt(now.Unix() + req.MaxTimeoutSeconds), Nonce: nonce}
	if edit != nil {
		edit(&a)
	}
	digest, err := d.Digest(a)
	require.NoError(t, err)
	sig, err := crypto.Sign(digest[:], key)
	require.NoError(t, err)
	sig[64] += 27
	p := PaymentPayload{X402Version: 2, Accepted: req, Payload: ExactEVMPayload{Signature: hexutil.Encode(sig), Authorization: Authorization{
		From: a.From.Hex(), To: a.To.Hex(), Value: a.Value.String(), ValidAfter: a.ValidAfter.String(), ValidBefore: a.ValidBefore.String(),
		Nonce: hexutil.Encode(a.Nonce[:]),
	}}}
	h, err := EncodeHeader(p)
	require.NoError(t, err)
	return h
}
