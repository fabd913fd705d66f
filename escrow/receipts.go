package escrow

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// Receipts: the signed evidence of one settled job, as a seller publishes
// it (market GET /receipts) and as anyone checks it. A receipt is the
// buyer-signed lock (committing to the input's hash), the seller-signed
// delivery (the output's hash; absent if nothing was delivered) and the
// buyer-signed settle, plus what the money moved on. Hashes are always in
// it; the input and output bytes only where the seller chose to publish
// them, or in the evidence of a dispute.

// TypeReceipt tags a receipt on the wire.
const TypeReceipt = "swarmwage/receipt/1"

// MaxReceiptSize caps one encoded receipt without payloads; with payloads
// it may carry up to two MaxPayloadSize documents.
const MaxReceiptSize = 3 * MaxMessageSize

// MaxPaymentSize caps a receipt's payment proof (an evm one is about 450
// bytes).
const MaxPaymentSize = 2 << 10

// Receipt is one settled job's evidence.
type Receipt struct {
	Lock     *Lock
	Delivery *Delivery // nil when nothing was delivered
	Settle   *Settle
	// Rail is the settlement rail the money moved on (RailCredits, "evm").
	Rail string
	// Payment is the rail's proof that money moved, a JSON object of at
	// most MaxPaymentSize bytes; empty on credits. On evm it names the
	// transaction whose Paid event paid the job (package escrow/evm,
	// Payment); the vouchers are in the lock and the settle.
	Payment json.RawMessage
	// Input and Output are the job's bytes, when published. On the wire
	// they are base64, so they arrive byte for byte as their hashes name
	// them whatever re-encodes the JSON around them.
	Input  []byte
	Output []byte
}

type receiptWire struct {
	Type     string          `json:"type"`
	JobID    string          `json:"job_id"`
	Lock     json.RawMessage `json:"lock"`
	Delivery json.RawMessage `json:"delivery,omitempty"`
	Settle   json.RawMessage `json:"settle"`
	Rail     string          `json:"rail"`
	Payment  json.RawMessage `json:"payment,omitempty"`
	Input    []byte          `json:"input,omitempty"`
	Output   []byte          `json:"output,omitempty"`
}

// MarshalJSON encodes the receipt in its wire form: the three messages in
// their own wire forms.
func (r Receipt) MarshalJSON() ([]byte, error) {
	if r.Lock == nil || r.Settle == nil {
		return nil, fmt.Errorf("encode receipt: %w: lock and settle are needed", ErrInvalidMessage)
	}
	w := receiptWire{Type: TypeReceipt, JobID: r.Lock.JobID, Rail: r.Rail, Payment: r.Payment, Input: r.Input, Output: r.Output}
	var err error
	if w.Lock, err = r.Lock.MarshalJSON(); err != nil {
		return nil, err
	}
	if w.Settle, err = r.Settle.MarshalJSON(); err != nil {
		return nil, err
	}
	if r.Delivery != nil {
		if w.Delivery, err = r.Delivery.MarshalJSON(); err != nil {
			return nil, err
		}
	}
	return json.Marshal(w)
}

// UnmarshalJSON decodes the wire form and each message in it; it does not
// check signatures or the chain (Check does).
func (r *Receipt) UnmarshalJSON(data []byte) error {
	var w receiptWire
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("%w: receipt: %v", ErrInvalidMessage, err)
	}
	if w.Type != TypeReceipt {
		return fmt.Errorf("%w: receipt type %q, want %q", ErrInvalidMessage, truncate(w.Type), TypeReceipt)
	}
	if err := checkText("rail", w.Rail); err != nil {
		return err
	}
	if err := checkPayment(w.Payment); err != nil {
		return err
	}
	out := Receipt{Rail: w.Rail, Payment: w.Payment, Input: w.Input, Output: w.Output}
	var err error
	if out.Lock, err = DecodeLock(w.Lock); err != nil {
		return fmt.Errorf("receipt lock: %w", err)
	}
	if out.Settle, err = DecodeSettle(w.Settle); err != nil {
		return fmt.Errorf("receipt settle: %w", err)
	}
	if len(w.Delivery) > 0 && !bytes.Equal(w.Delivery, []byte("null")) {
		if out.Delivery, err = DecodeDelivery(w.Delivery); err != nil {
			return fmt.Errorf("receipt delivery: %w", err)
		}
	}
	if w.JobID != out.Lock.JobID {
		return fmt.Errorf("%w: receipt for job %s carries the lock of %s", ErrInvalidMessage, truncate(w.JobID), out.Lock.JobID)
	}
	*r = out
	return nil
}

// DecodeReceipt parses one receipt of at most MaxReceiptSize bytes plus its
// payloads.
func DecodeReceipt(data []byte) (*Receipt, error) {
	if len(data) > MaxReceiptSize+2*MaxPayloadSize {
		return nil, fmt.Errorf("%w: receipt over the size limit", ErrInvalidMessage)
	}
	var r Receipt
	if err := r.UnmarshalJSON(data); err != nil {
		return nil, err
	}
	return &r, nil
}

// Check verifies every signature of the receipt and that its messages make
// one consistent job: the same job ID, the lock and the settle signed by
// the lock's buyer, the delivery by its seller, the settle's amount the
// lock's, a release only of something delivered, a delivery made by the
// deadline, the lock's rail the settle's and the receipt's, and published
// payloads matching their signed hashes. It does not check the payment
// (CheckPayment does, against the rail). Errors
// wrap ErrForged (a signature) or ErrInvalidMessage (a contradiction).
func (r *Receipt) Check() error {
	l, s, d := r.Lock, r.Settle, r.Delivery
	if l == nil || s == nil {
		return fmt.Errorf("%w: a receipt needs a lock and a settle", ErrInvalidMessage)
	}
	if err := l.Verify(); err != nil {
		return fmt.Errorf("receipt lock: %w", err)
	}
	if err := s.Verify(); err != nil {
		return fmt.Errorf("receipt settle: %w", err)
	}
	switch {
	case s.JobID != l.JobID:
		return fmt.Errorf("%w: the settle is for job %s, the lock for %s", ErrInvalidMessage, s.JobID, l.JobID)
	case s.Buyer != l.Buyer:
		return fmt.Errorf("%w: the settle is signed by %s, the lock by %s", ErrForged, s.Buyer, l.Buyer)
	case s.Amount != l.Amount:
		return fmt.Errorf("%w: the settle moves %s, the lock holds %s", ErrInvalidMessage, FormatAmount(s.Amount), FormatAmount(l.Amount))
	case s.At.Before(l.CreatedAt):
		return fmt.Errorf("%w: settled before it was locked", ErrInvalidMessage)
	case s.Decision == DecisionRelease && d == nil:
		return fmt.Errorf("%w: a release without a delivery", ErrInvalidMessage)
	case s.Rail != l.Rail:
		return fmt.Errorf("%w: the settle is on rail %q, the lock on %q", ErrInvalidMessage, s.Rail, l.Rail)
	case r.Rail != railOrCredits(l.Rail):
		// A receipt relabelled "credits" would skip its rail's check.
		return fmt.Errorf("%w: the receipt says rail %q, its lock %q", ErrInvalidMessage, truncate(r.Rail), railOrCredits(l.Rail))
	}
	if d != nil {
		if err := d.Verify(); err != nil {
			return fmt.Errorf("receipt delivery: %w", err)
		}
		switch {
		case d.JobID != l.JobID:
			return fmt.Errorf("%w: the delivery is for job %s, the lock for %s", ErrInvalidMessage, d.JobID, l.JobID)
		case d.Seller != l.Seller:
			return fmt.Errorf("%w: the delivery is signed by %s, the lock names seller %s", ErrForged, d.Seller, l.Seller)
		case d.DeliveredAt.After(l.Deadline):
			return fmt.Errorf("%w: delivered after the deadline", ErrInvalidMessage)
		}
	}
	if r.Input != nil && HashHex(r.Input) != l.InputHash {
		return fmt.Errorf("%w: the published input is not the one the lock commits to", ErrInvalidMessage)
	}
	if r.Output != nil && (d == nil || HashHex(r.Output) != d.OutputHash) {
		return fmt.Errorf("%w: the published output is not the delivered one", ErrInvalidMessage)
	}
	return nil
}

func railOrCredits(rail string) string {
	if rail == "" {
		return RailCredits
	}
	return rail
}

// ReceiptFilter selects the receipts of jobs this node sold.
type ReceiptFilter struct {
	Capability string    // "" for all
	Since      time.Time // settled at or after; zero for all
	Until      time.Time // settled before; zero for all
	After      string    // cursor: the job ID of the last receipt of the previous page
	Limit      int       // at most this many (1..maxReceiptPage)
	// Payloads adds the input and output bytes (the seller's choice to
	// publish them, or dispute evidence).
	Payloads bool
}

// maxReceiptPage caps a page of receipts.
const maxReceiptPage = 200

// maxReceiptScan caps the records one page reads: GET /receipts is open to
// anyone, and a filter that few records match must not make one request
// read every job this node ever sold. A page that stops there may hold
// fewer than its limit, even none, with a cursor to go on from.
const maxReceiptScan = 4096

// Receipts returns receipts of jobs this node sold that the buyer settled
// with a signed decision, in job ID order after f.After, and the cursor of
// the next page ("" when there is none: only an empty cursor means the
// end, see maxReceiptScan). Jobs settled only by a timer have no
// buyer-signed settle and are no receipt.
func (e *Escrow) Receipts(ctx context.Context, f ReceiptFilter) ([]Receipt, string, error) {
	if f.Limit <= 0 || f.Limit > maxReceiptPage {
		f.Limit = maxReceiptPage
	}
	var out []Receipt
	next, lastID := "", ""
	err := e.view(ctx, func(txn *tx) error {
		prefix := []byte(jobPrefix + string(RoleSeller) + "/")
		opts := badger.DefaultIteratorOptions
		opts.Prefix = prefix
		it := txn.txn.NewIterator(opts)
		defer it.Close()
		start := prefix
		if f.After != "" {
			start = append(jobKey(RoleSeller, f.After), 0)
		}
		scanned := 0
		for it.Seek(start); it.ValidForPrefix(prefix); it.Next() {
			_, id, err := parseJobKey(it.Item().Key())
			if err != nil {
				continue
			}
			if scanned == e.cfg.receiptScan {
				next = lastID
				return nil
			}
			scanned++
			lastID = id
			r, err := loadRecord(txn, RoleSeller, id)
			if err != nil || !f.matches(r) {
				continue
			}
			rec, err := withEvidence(txn, r)
			if err != nil || rec.Settle == nil || rec.Settle.Buyer != rec.Buyer {
				continue
			}
			if len(out) == f.Limit {
				next = out[len(out)-1].Lock.JobID
				return nil
			}
			rc := e.receiptOf(rec)
			if f.Payloads {
				rc.Input, rc.Output = payloadOf(txn, id, PayloadInput), payloadOf(txn, id, PayloadOutput)
			}
			out = append(out, rc)
		}
		return nil
	})
	if err != nil {
		return nil, "", fmt.Errorf("list receipts: %w", err)
	}
	return out, next, nil
}

func (f ReceiptFilter) matches(r *storedRecord) bool {
	if !r.State.Final() || r.SettledAt.IsZero() {
		return false
	}
	if f.Capability != "" && r.Capability != f.Capability {
		return false
	}
	if !f.Since.IsZero() && r.SettledAt.Before(f.Since) {
		return false
	}
	return f.Until.IsZero() || r.SettledAt.Before(f.Until)
}

func payloadOf(txn *tx, jobID, kind string) []byte {
	b, err := txn.get(payloadKey(RoleSeller, jobID, kind))
	if err != nil || len(b) == 0 {
		return nil
	}
	return b
}

// Evidence returns the receipt of one job this node sold with its input
// and output: what a seller shows a third party when a buyer refunded
// output the capability's verifier accepts (swarmwage verify --evidence).
func (e *Escrow) Evidence(ctx context.Context, jobID string) (Receipt, error) {
	rec, err := e.GetRole(ctx, jobID, RoleSeller)
	if err != nil {
		return Receipt{}, err
	}
	if rec.Settle == nil {
		return Receipt{}, fmt.Errorf("evidence of %s: %w: the buyer has not settled it with a signed decision", truncate(jobID), ErrBadState)
	}
	out := e.receiptOf(rec)
	err = e.view(ctx, func(txn *tx) error {
		out.Input, out.Output = payloadOf(txn, jobID, PayloadInput), payloadOf(txn, jobID, PayloadOutput)
		return nil
	})
	return out, err
}

// receiptOf is a record's receipt: its signed messages and, when the
// rail proves payments (PaymentProver), the chain's outcome as the
// payment. A record on a rail this node does not run has none.
func (e *Escrow) receiptOf(rec Record) Receipt {
	rc := Receipt{Lock: rec.Lock, Delivery: rec.Delivery, Settle: rec.Settle, Rail: rec.Rail}
	if rc.Rail == "" {
		rc.Rail = RailCredits
	}
	if rec.ChainOutcome == "" || e.cfg.rail == nil || e.cfg.rail.Name() != rc.Rail {
		return rc
	}
	p, ok := e.cfg.rail.(PaymentProver)
	if !ok {
		return rc
	}
	proof, err := p.Payment(rec)
	if err != nil || checkPayment(proof) != nil {
		e.log.Debug("receipt without payment proof", "job", rec.JobID, "err", err)
		return rc
	}
	rc.Payment = proof
	return rc
}

// checkPayment bounds a payment proof: absent, or a JSON object of at
// most MaxPaymentSize bytes.
func checkPayment(p json.RawMessage) error {
	switch {
	case len(p) == 0:
		return nil
	case len(p) > MaxPaymentSize:
		return fmt.Errorf("%w: payment over %d bytes", ErrInvalidMessage, MaxPaymentSize)
	case p[0] != '{':
		return fmt.Errorf("%w: payment is not a JSON object", ErrInvalidMessage)
	}
	return nil
}

// PaymentProver is a Rail that proves, for a seller's receipts, how a
// settled job's money moved (on evm: the transaction and its Paid event).
type PaymentProver interface {
	// Payment returns the proof of rec, a record whose ChainOutcome is set.
	Payment(rec Record) (json.RawMessage, error)
}

// PaymentChecker is a Rail that checks a receipt's payment proof against
// its own chain, for a buyer scoring a seller.
type PaymentChecker interface {
	// CheckPayment returns nil if r's money moved on the rail, an error
	// wrapping ErrForged if the proof contradicts the receipt or the
	// chain, and one wrapping ErrNotPaid if it cannot be shown. Safe for
	// concurrent use.
	CheckPayment(ctx context.Context, r *Receipt) error
}

// CheckPayment reports whether the money of r, a receipt that passed
// Check, moved on its rail as far as this node can tell: nil on credits
// (a credits receipt proves signatures, not value; package reputation
// weighs that); on this node's own rail, what the rail's chain says
// (PaymentChecker); ErrNotPaid on any rail this node cannot check.
// Errors wrap ErrForged (the proof is false) or ErrNotPaid.
func (e *Escrow) CheckPayment(ctx context.Context, r *Receipt) error {
	if r.Rail == RailCredits {
		return nil
	}
	if e.cfg.rail == nil || e.cfg.rail.Name() != r.Rail {
		return fmt.Errorf("%w: the receipt settled on rail %q, which this node does not run", ErrNotPaid, truncate(r.Rail))
	}
	c, ok := e.cfg.rail.(PaymentChecker)
	if !ok {
		return fmt.Errorf("%w: rail %s cannot check payments", ErrNotPaid, r.Rail)
	}
	return c.CheckPayment(ctx, r)
}
