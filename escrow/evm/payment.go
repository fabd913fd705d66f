package evm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/sync/singleflight"

	"github.com/swarmwage/swarmwage/escrow"
)

// Payment proofs. A seller's receipt (escrow.Receipt) on the evm rail
// carries the buyer's signed vouchers in its messages (the lock voucher in
// the lock's rail_proof, the release voucher in the settle's) and, once
// the chain settled the job, a Payment: the chain, the escrow contract and
// the transaction whose Paid event paid it. Vouchers alone prove that a
// buyer promised; only the event proves the money moved, so a buyer
// scoring a seller counts a release as paid only when its own RPC shows
// that event, final, on the chain and contract it uses itself.

// TypePayment tags an evm payment proof on the wire.
const TypePayment = "swarmwage/payment/evm/1"

const (
	// paymentRPCTimeout bounds one chain read of a payment check.
	paymentRPCTimeout = 3 * time.Second
	// paymentCacheSize is how many transactions' Paid events a node keeps:
	// a final transaction never changes, so a seller's batch is read once.
	paymentCacheSize = 8192
	// paymentNegativeTTL is how long "no such payment" is remembered, so a
	// seller serving made-up hashes costs the buyer one read per hash.
	paymentNegativeTTL = 10 * time.Minute
)

// Payment is the proof that one job's money moved on chain (or that the
// buyer's cancel took effect): Outcome escrow.RailPaid or
// escrow.RailCancelled, on chain ChainID at escrow contract Escrow, for
// the contract's job JobID between Buyer and Seller. A paid proof names
// the Amount paid and the transaction Tx, mined in Block, whose Paid event
// paid it; a cancelled one may lack Tx and Block.
type Payment struct {
	Outcome string
	ChainID uint64
	Escrow  common.Address
	JobID   [32]byte
	Buyer   common.Address
	Seller  common.Address
	Amount  int64
	Tx      common.Hash
	Block   uint64
}

type paymentJSON struct {
	Type    string         `json:"type"`
	Outcome string         `json:"outcome"`
	ChainID uint64         `json:"chain_id"`
	Escrow  common.Address `json:"escrow"`
	JobID   hexutil.Bytes  `json:"job_id"`
	Buyer   common.Address `json:"buyer"`
	Seller  common.Address `json:"seller"`
	Amount  string         `json:"amount,omitempty"`
	Tx      *common.Hash   `json:"tx,omitempty"`
	Block   uint64         `json:"block,omitempty"`
}

// MarshalJSON encodes the proof's wire form.
func (p Payment) MarshalJSON() ([]byte, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	w := paymentJSON{Type: TypePayment, Outcome: p.Outcome, ChainID: p.ChainID, Escrow: p.Escrow, JobID: p.JobID[:],
		Buyer: p.Buyer, Seller: p.Seller, Block: p.Block}
	if p.Amount != 0 {
		w.Amount = fmt.Sprint(p.Amount)
	}
	if p.Tx != (common.Hash{}) {
		w.Tx = &p.Tx
	}
	return json.Marshal(w)
}

// UnmarshalJSON decodes and checks the wire form; it does not compare it
// with a receipt (ReceiptPayment) or the chain (Settler.CheckPayment).
func (p *Payment) UnmarshalJSON(b []byte) error {
	var w paymentJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("%w: payment: %v", ErrInvalidPayment, err)
	}
	if w.Type != TypePayment {
		return fmt.Errorf("%w: type %q, want %q", ErrInvalidPayment, truncate(w.Type), TypePayment)
	}
	if len(w.JobID) != 32 {
		return fmt.Errorf("%w: job_id is %d bytes, want 32", ErrInvalidPayment, len(w.JobID))
	}
	out := Payment{Outcome: w.Outcome, ChainID: w.ChainID, Escrow: w.Escrow, Buyer: w.Buyer, Seller: w.Seller, Block: w.Block}
	copy(out.JobID[:], w.JobID)
	if w.Amount != "" {
		amt, err := parseWireAmount(w.Amount)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrInvalidPayment, err)
		}
		out.Amount = amt
	}
	if w.Tx != nil {
		out.Tx = *w.Tx
	}
	if err := out.validate(); err != nil {
		return err
	}
	*p = out
	return nil
}

// validate checks the fields every proof of its outcome must have.
func (p *Payment) validate() error {
	switch {
	case p.ChainID == 0:
		return fmt.Errorf("%w: chain_id is missing", ErrInvalidPayment)
	case p.Escrow == (common.Address{}):
		return fmt.Errorf("%w: escrow is the zero address", ErrInvalidPayment)
	case p.Buyer == (common.Address{}) || p.Seller == (common.Address{}):
		return fmt.Errorf("%w: buyer and seller must not be the zero address", ErrInvalidPayment)
	}
	switch p.Outcome {
	case escrow.RailPaid:
		switch {
		case p.Amount <= 0:
			return fmt.Errorf("%w: a payment needs a positive amount", ErrInvalidPayment)
		case p.Tx == (common.Hash{}):
			return fmt.Errorf("%w: a payment needs its transaction", ErrInvalidPayment)
		case p.Block == 0:
			return fmt.Errorf("%w: a payment needs its block", ErrInvalidPayment)
		}
	case escrow.RailCancelled:
		if p.Amount != 0 {
			return fmt.Errorf("%w: a cancel moves no amount", ErrInvalidPayment)
		}
	default:
		return fmt.Errorf("%w: outcome %q, want %q or %q", ErrInvalidPayment, truncate(p.Outcome), escrow.RailPaid, escrow.RailCancelled)
	}
	return nil
}

// DecodePayment parses one payment proof of at most escrow.MaxPaymentSize
// bytes.
func DecodePayment(b []byte) (*Payment, error) {
	if len(b) > escrow.MaxPaymentSize {
		return nil, fmt.Errorf("%w: over %d bytes", ErrInvalidPayment, escrow.MaxPaymentSize)
	}
	var p Payment
	if err := p.UnmarshalJSON(b); err != nil {
		return nil, err
	}
	return &p, nil
}

// Payment is the proof of rec's chain outcome for its receipt (this
// node's own job, settled on chain): escrow.PaymentProver.
func (s *Settler) Payment(rec escrow.Record) (json.RawMessage, error) {
	if rec.Rail != escrow.RailEVM || rec.Lock == nil {
		return nil, fmt.Errorf("payment proof of %s: not an evm job", truncate(rec.JobID))
	}
	var l Lock
	if err := json.Unmarshal(rec.Lock.RailProof, &l); err != nil {
		return nil, fmt.Errorf("payment proof of %s: the lock voucher: %w", truncate(rec.JobID), err)
	}
	d, err := s.knownDomain()
	if err != nil {
		return nil, err
	}
	if !d.ChainID.IsUint64() {
		return nil, fmt.Errorf("payment proof of %s: chain ID %s out of range", truncate(rec.JobID), d.ChainID)
	}
	p := Payment{Outcome: rec.ChainOutcome, ChainID: d.ChainID.Uint64(), Escrow: d.Escrow, JobID: l.JobID,
		Buyer: l.Buyer, Seller: l.Seller, Block: rec.ChainBlock}
	if rec.ChainTx != "" {
		b, err := hexutil.Decode(rec.ChainTx)
		if err != nil || len(b) != common.HashLength {
			return nil, fmt.Errorf("payment proof of %s: transaction %q is no hash", truncate(rec.JobID), truncate(rec.ChainTx))
		}
		p.Tx = common.BytesToHash(b)
	}
	if p.Outcome == escrow.RailPaid {
		p.Amount = l.Amount
	}
	return p.MarshalJSON()
}

// ReceiptPayment decodes the payment proof of r, a receipt that passed
// Check, and checks it against the receipt's signed messages, without a
// chain: a payment of the lock's job, buyer, seller and amount, on a chain
// and contract the buyer's lock voucher (and release voucher, if any) was
// signed for. The error wraps escrow.ErrNotPaid when there is nothing to
// check yet (no proof, or the chain shows a cancel), escrow.ErrForged when
// the proof is malformed or contradicts the receipt.
func ReceiptPayment(r *escrow.Receipt) (*Payment, error) {
	if r.Lock == nil || r.Settle == nil || r.Rail != escrow.RailEVM || r.Lock.Rail != escrow.RailEVM {
		return nil, fmt.Errorf("%w: not an evm receipt", escrow.ErrNotPaid)
	}
	if len(r.Payment) == 0 {
		return nil, fmt.Errorf("%w: the receipt has no payment proof (yet)", escrow.ErrNotPaid)
	}
	p, err := DecodePayment(r.Payment)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", escrow.ErrForged, err)
	}
	var l Lock
	if err := json.Unmarshal(r.Lock.RailProof, &l); err != nil {
		return nil, fmt.Errorf("%w: the lock voucher: %w", escrow.ErrForged, err)
	}
	lie := func(format string, args ...any) error {
		return fmt.Errorf("%w: %w: "+format, append([]any{escrow.ErrForged, ErrInvalidPayment}, args...)...)
	}
	switch {
	case l.JobID != JobID(r.Lock.JobID) || p.JobID != l.JobID:
		return nil, lie("it pays another job than the lock's")
	case l.Buyer.Hex() != r.Lock.BuyerAddress || p.Buyer != l.Buyer:
		return nil, lie("it names buyer %s, the lock %s", p.Buyer, r.Lock.BuyerAddress)
	case l.Seller.Hex() != r.Lock.SellerAddress || p.Seller != l.Seller:
		return nil, lie("it pays %s, the lock %s", p.Seller, r.Lock.SellerAddress)
	case l.Amount != r.Lock.Amount:
		return nil, lie("the lock voucher holds %d, the lock %d", l.Amount, r.Lock.Amount)
	case p.Outcome == escrow.RailPaid && p.Amount != l.Amount:
		return nil, lie("it pays %d, the lock holds %d", p.Amount, l.Amount)
	}
	d := Domain{ChainID: new(big.Int).SetUint64(p.ChainID), Escrow: p.Escrow}
	if err := d.VerifyLock(&l); err != nil {
		return nil, lie("the lock voucher is not the buyer's for chain %d escrow %s: %v", p.ChainID, p.Escrow, err)
	}
	if r.Settle.Decision == escrow.DecisionRelease && len(r.Settle.RailProof) > 0 {
		var rel Release
		if err := json.Unmarshal(r.Settle.RailProof, &rel); err != nil {
			return nil, fmt.Errorf("%w: the release voucher: %w", escrow.ErrForged, err)
		}
		if rel.JobID != l.JobID || rel.Buyer != l.Buyer || rel.Seller != l.Seller || rel.Amount != l.Amount {
			return nil, lie("the release voucher does not match the lock voucher")
		}
		if err := d.VerifyRelease(&rel); err != nil {
			return nil, lie("the release voucher is not the buyer's for chain %d escrow %s: %v", p.ChainID, p.Escrow, err)
		}
	}
	if p.Outcome != escrow.RailPaid {
		return nil, fmt.Errorf("%w: the chain shows the job %s", escrow.ErrNotPaid, p.Outcome)
	}
	return p, nil
}

// paymentCache remembers the escrow's Paid events of transactions, final
// ones for good and made-up ones for paymentNegativeTTL.
type paymentCache struct {
	txs    *lru.Cache[common.Hash, txPayments]
	flight singleflight.Group
}

// txPayments is what one transaction did: its Paid events from the
// escrow, or why it is no payment (noPayment, until expires).
type txPayments struct {
	events    []paidEvent
	noPayment string
	expires   time.Time
}

type paidEvent struct {
	job           [32]byte
	buyer, seller common.Address
	amount        *big.Int
}

func newPaymentCache() *paymentCache {
	c, err := lru.New[common.Hash, txPayments](paymentCacheSize)
	if err != nil {
		panic("evm: payment cache: " + err.Error()) // only for a size below 1
	}
	return &paymentCache{txs: c}
}

// CheckPayment checks r's payment against this node's chain:
// escrow.PaymentChecker. Paid (nil) only if ReceiptPayment accepts the
// proof, it names this node's chain and escrow, and the transaction, at
// the confirmation depth and in a canonical block, carries the escrow's
// Paid event of the job with the buyer, seller and amount. A proof the
// chain contradicts (no such transaction, a reverted one, no such event,
// another amount) wraps escrow.ErrForged; one on another chain or
// contract, not final yet, or unreadable now wraps escrow.ErrNotPaid.
// Every chain read has a deadline; results are cached.
func (s *Settler) CheckPayment(ctx context.Context, r *escrow.Receipt) error {
	p, err := ReceiptPayment(r)
	if err != nil {
		return err
	}
	rail, err := s.Chain(ctx)
	if err != nil {
		return fmt.Errorf("%w: %w", escrow.ErrNotPaid, err)
	}
	d := rail.Domain()
	if !d.ChainID.IsUint64() || d.ChainID.Uint64() != p.ChainID || d.Escrow != p.Escrow {
		return fmt.Errorf("%w: the payment is on chain %d escrow %s; this node checks chain %s escrow %s",
			escrow.ErrNotPaid, p.ChainID, p.Escrow, d.ChainID, d.Escrow)
	}
	got, err := s.txPayments(ctx, rail, p.Tx, p.Block)
	if err != nil {
		return err
	}
	if got.noPayment != "" {
		return fmt.Errorf("%w: %w: %s", escrow.ErrForged, ErrInvalidPayment, got.noPayment)
	}
	for _, e := range got.events {
		if e.job != p.JobID || e.buyer != p.Buyer || e.seller != p.Seller {
			continue
		}
		if !e.amount.IsInt64() || e.amount.Int64() != p.Amount {
			return fmt.Errorf("%w: %w: transaction %s paid %s for the job, the proof says %d", escrow.ErrForged, ErrInvalidPayment, p.Tx.Hex(), e.amount, p.Amount)
		}
		return nil
	}
	return fmt.Errorf("%w: %w: transaction %s has no Paid event of job %x from %s to %s", escrow.ErrForged, ErrInvalidPayment, p.Tx.Hex(), p.JobID[:6], p.Buyer, p.Seller)
}

// txPayments returns what tx paid through the escrow, from the cache or
// the chain, one read per transaction however many checks want it.
func (s *Settler) txPayments(ctx context.Context, r *Rail, tx common.Hash, claimed uint64) (txPayments, error) {
	if got, ok := s.payments.txs.Get(tx); ok && (got.expires.IsZero() || time.Now().Before(got.expires)) {
		return got, nil
	}
	ch := s.payments.flight.DoChan(tx.Hex(), func() (any, error) {
		got, final, err := s.readTx(ctx, r, tx, claimed)
		if err == nil && final {
			s.payments.txs.Add(tx, got)
		}
		return got, err
	})
	select {
	case res := <-ch:
		if res.Err != nil {
			return txPayments{}, res.Err
		}
		return res.Val.(txPayments), nil
	case <-ctx.Done():
		return txPayments{}, fmt.Errorf("%w: check transaction %s: %w", escrow.ErrNotPaid, tx.Hex(), ctx.Err())
	}
}

// readTx reads tx's receipt and keeps the escrow's Paid events of it.
// final says the answer will not change (cache it). Errors wrap
// escrow.ErrNotPaid: the chain cannot say yet.
func (s *Settler) readTx(ctx context.Context, r *Rail, tx common.Hash, claimed uint64) (got txPayments, final bool, err error) {
	notPaid := func(what string, err error) (txPayments, bool, error) {
		return txPayments{}, false, fmt.Errorf("%w: %w", escrow.ErrNotPaid, classify(what, err))
	}
	cctx, cancel := context.WithTimeout(ctx, paymentRPCTimeout)
	defer cancel()
	head, err := s.confirmedHead(cctx, r, false)
	if err != nil {
		return notPaid("check a payment: confirmed head", err)
	}
	depth := head.Number.Uint64()
	rc, err := r.eth.TransactionReceipt(cctx, tx)
	if errors.Is(err, ethereum.NotFound) {
		if claimed > depth {
			return txPayments{}, false, fmt.Errorf("%w: transaction %s (block %d) is not final on this node's chain yet (block %d)", escrow.ErrNotPaid, tx.Hex(), claimed, depth)
		}
		return txPayments{noPayment: fmt.Sprintf("no transaction %s on chain %s, though its block %d is final", tx.Hex(), r.domain.ChainID, claimed),
			expires: time.Now().Add(paymentNegativeTTL)}, true, nil
	}
	if err != nil {
		return notPaid("check a payment: receipt of "+tx.Hex(), err)
	}
	n := rc.BlockNumber.Uint64()
	if n > depth {
		return txPayments{}, false, fmt.Errorf("%w: transaction %s (block %d) has not the confirmation depth yet (block %d)", escrow.ErrNotPaid, tx.Hex(), n, depth)
	}
	h, err := r.eth.HeaderByNumber(cctx, rc.BlockNumber)
	if err != nil {
		return notPaid(fmt.Sprintf("check a payment: header %d", n), err)
	}
	if h.Hash() != rc.BlockHash {
		return txPayments{}, false, fmt.Errorf("%w: transaction %s: block %d was replaced", escrow.ErrNotPaid, tx.Hex(), n)
	}
	if rc.Status != types.ReceiptStatusSuccessful {
		return txPayments{noPayment: fmt.Sprintf("transaction %s reverted", tx.Hex())}, true, nil
	}
	for _, l := range rc.Logs {
		if l.Address != s.cfg.Escrow || len(l.Topics) == 0 || l.Topics[0] != paidTopic || l.Removed {
			continue
		}
		e, err := r.esc.ParsePaid(*l)
		if err != nil {
			continue
		}
		got.events = append(got.events, paidEvent{job: e.JobId, buyer: e.Buyer, seller: e.Seller, amount: e.Amount})
	}
	return got, true, nil
}
