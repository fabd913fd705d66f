package escrow

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/swarmwage/swarmwage/internal/canon"
)

// Wire message type tags (package internal/canon lists every signed
// message's). The tag is part of the signed body, so a signature made for
// one kind of message never verifies as another kind. A change to a
// message's fields gets a new tag.
const (
	// TypeLock tags a Lock on the wire. Version 2 commits to the input's
	// hash (input_hash); every lock this release signs is version 2.
	TypeLock = canon.TagLock
	// TypeLockV1 tags a lock without input_hash, as releases before it
	// signed them. They still decode (stored evidence), but a seller
	// accepts only version 2 for new jobs.
	TypeLockV1 = canon.TagLockV1
	// TypeLockRail tags a lock settled on a rail other than credits
	// (rail.go): a version 2 lock plus the rail's name, both parties'
	// addresses on it, the time from which the seller may claim it
	// (not_before) and the rail's own signed lock (rail_proof, the evm lock
	// voucher). Credits locks stay version 2.
	TypeLockRail = canon.TagLockRail
	// TypeDelivery tags a Delivery on the wire.
	TypeDelivery = canon.TagDelivery
	// TypeSettle tags a Settle on the wire.
	TypeSettle = canon.TagSettle
	// TypeSettleRail tags a settle of a job on another rail than credits:
	// version 1 plus the rail's name and, for a release, the rail's signed
	// release (rail_proof, the evm release voucher).
	TypeSettleRail = canon.TagSettleRail
)

// Decision values of a Settle.
const (
	// DecisionRelease pays the seller: the output passed verification or
	// the verification window closed without a decision.
	DecisionRelease = "release"
	// DecisionRefund returns the hold to the buyer.
	DecisionRefund = "refund"
)

// Size limits of wire messages. They bound what one peer can make us parse
// and store per job.
const (
	// MaxMessageSize caps the encoded size of one wire message.
	MaxMessageSize = 64 << 10
	// MaxJobIDLen caps a job ID; IDs appear in keys and URLs.
	MaxJobIDLen = 128
	// maxTextLen caps free text: capability, quote ID, reason.
	maxTextLen = 1024
	// maxFailedChecks caps the number of failed checks a refund carries.
	maxFailedChecks = 64
	// maxCheckLen caps the length of one failed-check entry.
	maxCheckLen = 512
	// maxRailProof caps a rail's signed lock or release inside a message:
	// an evm voucher is about 400 bytes.
	maxRailProof = 8 << 10
	// maxRailAddress caps an address on a rail (an evm address is 42
	// characters).
	maxRailAddress = 128
)

// Lock is the buyer's signed promise: Amount is held for JobID until the
// seller delivers by Deadline and the buyer decides within Window of the
// delivery. Buyer is the signer.
type Lock struct {
	JobID      string
	QuoteID    string
	Capability string
	Buyer      peer.ID
	Seller     peer.ID
	Amount     int64         // micro-credits
	Deadline   time.Time     // the seller must deliver by then
	Window     time.Duration // verification window after delivery
	CreatedAt  time.Time
	// InputHash is the lowercase hex sha256 of the job's input bytes: the
	// lock commits to what the buyer asked, so a replayed lock cannot carry
	// another input and a seller can show which input it was paid for.
	// Empty only in version 1 locks.
	InputHash string
	// Rail is the settlement rail of the job: "" for credits, else the
	// rail's name (RailEVM). The fields below are set only on a rail.
	Rail string
	// BuyerAddress and SellerAddress are the parties' addresses on the
	// rail: the buyer's paying address and the payout address of the
	// seller's signed listing.
	BuyerAddress, SellerAddress string
	// NotBefore is when the seller may claim the held amount on the rail
	// if the buyer decided nothing: the deadline plus the window plus the
	// buyer's settle grace.
	NotBefore time.Time
	// RailProof is the rail's signed lock (for evm: the EIP-712 lock
	// voucher, JSON).
	RailProof json.RawMessage
	Signature []byte
}

// Delivery is the seller's signed statement that it returned output whose
// sha256 is OutputHash. Seller is the signer.
type Delivery struct {
	JobID       string
	OutputHash  string // lowercase hex sha256 of the output bytes
	Seller      peer.ID
	DeliveredAt time.Time
	Signature   []byte
}

// Settle is the buyer's signed decision on a job: release pays the seller,
// refund returns the hold. Buyer is the signer.
type Settle struct {
	JobID        string
	Decision     string // DecisionRelease or DecisionRefund
	Amount       int64  // micro-credits; equals the lock's amount
	Reason       string
	FailedChecks []string
	Buyer        peer.ID
	At           time.Time
	// Rail is the job's settlement rail ("" for credits); RailProof is the
	// rail's signed release of a release decision (for evm: the EIP-712
	// release voucher the seller redeems).
	Rail      string
	RailProof json.RawMessage
	Signature []byte
}

type lockWire struct {
	Type       string `json:"type"`
	JobID      string `json:"job_id"`
	QuoteID    string `json:"quote_id"`
	Capability string `json:"capability"`
	Buyer      string `json:"buyer"`
	Seller     string `json:"seller"`
	Amount     string `json:"amount"`
	Deadline   string `json:"deadline"`
	WindowMS   int64  `json:"window_ms"`
	CreatedAt  string `json:"created_at"`
	InputHash  string `json:"input_hash,omitempty"`
	// Rail fields, in TypeLockRail only.
	Rail          string          `json:"rail,omitempty"`
	BuyerAddress  string          `json:"buyer_address,omitempty"`
	SellerAddress string          `json:"seller_address,omitempty"`
	NotBefore     string          `json:"not_before,omitempty"`
	RailProof     json.RawMessage `json:"rail_proof,omitempty"`
	Signature     string          `json:"signature,omitempty"`
}

type deliveryWire struct {
	Type        string `json:"type"`
	JobID       string `json:"job_id"`
	OutputHash  string `json:"output_hash"`
	Seller      string `json:"seller"`
	DeliveredAt string `json:"delivered_at"`
	Signature   string `json:"signature,omitempty"`
}

type settleWire struct {
	Type         string   `json:"type"`
	JobID        string   `json:"job_id"`
	Decision     string   `json:"decision"`
	Amount       string   `json:"amount"`
	Reason       string   `json:"reason,omitempty"`
	FailedChecks []string `json:"failed_checks,omitempty"`
	Buyer        string   `json:"buyer"`
	At           string   `json:"at"`
	// Rail fields, in TypeSettleRail only.
	Rail      string          `json:"rail,omitempty"`
	RailProof json.RawMessage `json:"rail_proof,omitempty"`
	Signature string          `json:"signature,omitempty"`
}

// wireTime is the one time format on the wire: UTC, RFC 3339 with up to
// nanoseconds. It round-trips exactly, which signatures rely on.
func wireTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func parseWireTime(field, s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%w: %s: %v", ErrInvalidMessage, field, err)
	}
	return t.UTC(), nil
}

// msgTime normalizes a time for a new message: UTC, millisecond precision,
// no monotonic reading.
func msgTime(t time.Time) time.Time { return t.UTC().Truncate(time.Millisecond) }

func encodeSig(sig []byte) string {
	if len(sig) == 0 {
		return ""
	}
	return base64.StdEncoding.EncodeToString(sig)
}

func decodeSig(s string) ([]byte, error) {
	if s == "" {
		return nil, fmt.Errorf("%w: signature missing", ErrInvalidMessage)
	}
	sig, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("%w: signature: %v", ErrInvalidMessage, err)
	}
	return sig, nil
}

func parsePeer(field, s string) (peer.ID, error) {
	id, err := peer.Decode(s)
	if err != nil {
		return "", fmt.Errorf("%w: %s %q: %v", ErrInvalidMessage, field, truncate(s), err)
	}
	return id, nil
}

func truncate(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}

func checkJobID(id string) error {
	if id == "" {
		return fmt.Errorf("%w: job_id empty", ErrInvalidMessage)
	}
	if len(id) > MaxJobIDLen {
		return fmt.Errorf("%w: job_id longer than %d bytes", ErrInvalidMessage, MaxJobIDLen)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '-' || c == '_' || c == '.' || c == ':'
		if !ok {
			return fmt.Errorf("%w: job_id %q: only letters, digits and -_.: are allowed", ErrInvalidMessage, truncate(id))
		}
	}
	return nil
}

func checkText(field, s string) error {
	if len(s) > maxTextLen {
		return fmt.Errorf("%w: %s longer than %d bytes", ErrInvalidMessage, field, maxTextLen)
	}
	return nil
}

func checkOutputHash(h string) error { return checkHash("output_hash", h) }

// checkHash checks a lowercase hex sha256 named field.
func checkHash(field, h string) error {
	if len(h) != 64 {
		return fmt.Errorf("%w: %s must be 64 lowercase hex characters (sha256)", ErrInvalidMessage, field)
	}
	if _, err := hex.DecodeString(h); err != nil || h != toLowerASCII(h) {
		return fmt.Errorf("%w: %s must be 64 lowercase hex characters (sha256)", ErrInvalidMessage, field)
	}
	return nil
}

// HashHex is the lowercase hex sha256 of b: the form of input_hash and
// output_hash.
func HashHex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func toLowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func (l *Lock) wire(withSig bool) lockWire {
	w := lockWire{
		Type:       TypeLockV1,
		JobID:      l.JobID,
		QuoteID:    l.QuoteID,
		Capability: l.Capability,
		Buyer:      l.Buyer.String(),
		Seller:     l.Seller.String(),
		Amount:     FormatAmount(l.Amount),
		Deadline:   wireTime(l.Deadline),
		WindowMS:   l.Window.Milliseconds(),
		CreatedAt:  wireTime(l.CreatedAt),
		InputHash:  l.InputHash,
	}
	if l.InputHash != "" {
		w.Type = TypeLock
	}
	if l.Rail != "" {
		w.Type = TypeLockRail
		w.Rail, w.BuyerAddress, w.SellerAddress = l.Rail, l.BuyerAddress, l.SellerAddress
		w.NotBefore = wireTime(l.NotBefore)
		w.RailProof = l.RailProof
	}
	if withSig {
		w.Signature = encodeSig(l.Signature)
	}
	return w
}

func (w *lockWire) lock() (*Lock, error) {
	hasRail := w.Rail != "" || w.BuyerAddress != "" || w.SellerAddress != "" || w.NotBefore != "" || len(w.RailProof) > 0
	switch {
	case (w.Type == TypeLock || w.Type == TypeLockRail) && w.InputHash == "":
		return nil, fmt.Errorf("%w: a %s lock needs input_hash", ErrInvalidMessage, w.Type)
	case w.Type == TypeLockV1 && w.InputHash != "":
		return nil, fmt.Errorf("%w: a %s lock has no input_hash", ErrInvalidMessage, TypeLockV1)
	case w.Type != TypeLockRail && hasRail:
		return nil, fmt.Errorf("%w: a %s lock has no rail fields", ErrInvalidMessage, truncate(w.Type))
	case w.Type != TypeLock && w.Type != TypeLockV1 && w.Type != TypeLockRail:
		return nil, fmt.Errorf("%w: type %q, want %q", ErrInvalidMessage, truncate(w.Type), TypeLock)
	}
	l := &Lock{JobID: w.JobID, QuoteID: w.QuoteID, Capability: w.Capability, InputHash: w.InputHash}
	var err error
	if w.Type == TypeLockRail {
		if err = checkRailName(w.Rail); err != nil {
			return nil, err
		}
		if err = checkRailAddress("buyer_address", w.BuyerAddress); err != nil {
			return nil, err
		}
		if err = checkRailAddress("seller_address", w.SellerAddress); err != nil {
			return nil, err
		}
		if err = checkRailProof(w.RailProof, true); err != nil {
			return nil, err
		}
		if l.NotBefore, err = parseWireTime("not_before", w.NotBefore); err != nil {
			return nil, err
		}
		l.Rail, l.BuyerAddress, l.SellerAddress, l.RailProof = w.Rail, w.BuyerAddress, w.SellerAddress, w.RailProof
	}
	if w.InputHash != "" {
		if err = checkHash("input_hash", w.InputHash); err != nil {
			return nil, err
		}
	}
	if err = checkJobID(w.JobID); err != nil {
		return nil, err
	}
	if err = checkText("quote_id", w.QuoteID); err != nil {
		return nil, err
	}
	if err = checkText("capability", w.Capability); err != nil {
		return nil, err
	}
	if l.Buyer, err = parsePeer("buyer", w.Buyer); err != nil {
		return nil, err
	}
	if l.Seller, err = parsePeer("seller", w.Seller); err != nil {
		return nil, err
	}
	if l.Amount, err = ParseAmount(w.Amount); err != nil {
		return nil, fmt.Errorf("%w: amount: %v", ErrInvalidMessage, err)
	}
	if l.Deadline, err = parseWireTime("deadline", w.Deadline); err != nil {
		return nil, err
	}
	if w.WindowMS <= 0 || w.WindowMS > maxWindow.Milliseconds() {
		return nil, fmt.Errorf("%w: window_ms %d: want 1..%d", ErrInvalidMessage, w.WindowMS, maxWindow.Milliseconds())
	}
	l.Window = time.Duration(w.WindowMS) * time.Millisecond
	if l.CreatedAt, err = parseWireTime("created_at", w.CreatedAt); err != nil {
		return nil, err
	}
	if l.Signature, err = decodeSig(w.Signature); err != nil {
		return nil, err
	}
	return l, nil
}

// MarshalJSON encodes the lock in its wire form (snake_case, decimal amount,
// window in milliseconds, base64 signature).
func (l Lock) MarshalJSON() ([]byte, error) { return json.Marshal(l.wire(true)) }

// UnmarshalJSON decodes and checks the wire form; it does not verify the
// signature (Verify does).
func (l *Lock) UnmarshalJSON(data []byte) error {
	var w lockWire
	if err := strictUnmarshal(data, &w); err != nil {
		return err
	}
	got, err := w.lock()
	if err != nil {
		return err
	}
	*l = *got
	return nil
}

// SigningBytes returns the bytes the buyer signs: the stable JSON of the
// wire form without the signature field.
func (l *Lock) SigningBytes() ([]byte, error) {
	w := l.wire(false)
	return canon.Body(w.Type, w)
}

// Verify checks that Buyer signed the lock with the key its peer ID names.
// The error wraps ErrForged.
func (l *Lock) Verify() error {
	body, err := l.SigningBytes()
	if err != nil {
		return err
	}
	return verifySig(l.Buyer, body, l.Signature)
}

func (l *Lock) sign(key crypto.PrivKey) error {
	body, err := l.SigningBytes()
	if err != nil {
		return err
	}
	l.Signature, err = canon.Sign(key, body)
	if err != nil {
		return fmt.Errorf("sign lock %s: %w", l.JobID, err)
	}
	return nil
}

// sameTerms reports whether two locks describe the same job: everything but
// the creation time and signature.
func (l *Lock) sameTerms(o *Lock) bool {
	return l.JobID == o.JobID && l.QuoteID == o.QuoteID && l.Capability == o.Capability &&
		l.Buyer == o.Buyer && l.Seller == o.Seller && l.Amount == o.Amount &&
		l.Deadline.Equal(o.Deadline) && l.Window == o.Window && l.InputHash == o.InputHash &&
		l.Rail == o.Rail && l.BuyerAddress == o.BuyerAddress && l.SellerAddress == o.SellerAddress
}

// equal reports whether two locks are the same signed message.
// Equal reports whether o is the very lock l: the same terms, times, rail
// proof and signature.
func (l *Lock) Equal(o *Lock) bool { return l != nil && o != nil && l.equal(o) }

func (l *Lock) equal(o *Lock) bool {
	return l.sameTerms(o) && l.CreatedAt.Equal(o.CreatedAt) && l.NotBefore.Equal(o.NotBefore) &&
		bytes.Equal(l.RailProof, o.RailProof) && bytes.Equal(l.Signature, o.Signature)
}

// checkRailName checks a rail's name: short lowercase letters and digits.
func checkRailName(name string) error {
	if name == "" || len(name) > 32 {
		return fmt.Errorf("%w: rail %q: want 1 to 32 lowercase letters or digits", ErrInvalidMessage, truncate(name))
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return fmt.Errorf("%w: rail %q: want lowercase letters or digits", ErrInvalidMessage, truncate(name))
		}
	}
	return nil
}

// checkRailAddress bounds an address on a rail; its format is the rail's
// to check.
func checkRailAddress(field, addr string) error {
	if addr == "" || len(addr) > maxRailAddress {
		return fmt.Errorf("%w: %s: want 1 to %d characters", ErrInvalidMessage, field, maxRailAddress)
	}
	for i := 0; i < len(addr); i++ {
		if c := addr[i]; c <= ' ' || c > '~' {
			return fmt.Errorf("%w: %s: printable ASCII only", ErrInvalidMessage, field)
		}
	}
	return nil
}

// checkRailProof bounds a rail's signed lock or release: a JSON object of
// at most maxRailProof bytes.
func checkRailProof(p json.RawMessage, required bool) error {
	switch {
	case len(p) == 0 && required:
		return fmt.Errorf("%w: rail_proof missing", ErrInvalidMessage)
	case len(p) == 0:
		return nil
	case len(p) > maxRailProof:
		return fmt.Errorf("%w: rail_proof over %d bytes", ErrInvalidMessage, maxRailProof)
	case p[0] != '{' || !json.Valid(p):
		return fmt.Errorf("%w: rail_proof must be a JSON object", ErrInvalidMessage)
	}
	return nil
}

func (d *Delivery) wire(withSig bool) deliveryWire {
	w := deliveryWire{
		Type:        TypeDelivery,
		JobID:       d.JobID,
		OutputHash:  d.OutputHash,
		Seller:      d.Seller.String(),
		DeliveredAt: wireTime(d.DeliveredAt),
	}
	if withSig {
		w.Signature = encodeSig(d.Signature)
	}
	return w
}

func (w *deliveryWire) delivery() (*Delivery, error) {
	if w.Type != TypeDelivery {
		return nil, fmt.Errorf("%w: type %q, want %q", ErrInvalidMessage, truncate(w.Type), TypeDelivery)
	}
	d := &Delivery{JobID: w.JobID, OutputHash: w.OutputHash}
	var err error
	if err = checkJobID(w.JobID); err != nil {
		return nil, err
	}
	if err = checkOutputHash(w.OutputHash); err != nil {
		return nil, err
	}
	if d.Seller, err = parsePeer("seller", w.Seller); err != nil {
		return nil, err
	}
	if d.DeliveredAt, err = parseWireTime("delivered_at", w.DeliveredAt); err != nil {
		return nil, err
	}
	if d.Signature, err = decodeSig(w.Signature); err != nil {
		return nil, err
	}
	return d, nil
}

// MarshalJSON encodes the delivery in its wire form.
func (d Delivery) MarshalJSON() ([]byte, error) { return json.Marshal(d.wire(true)) }

// UnmarshalJSON decodes and checks the wire form; it does not verify the
// signature (Verify does).
func (d *Delivery) UnmarshalJSON(data []byte) error {
	var w deliveryWire
	if err := strictUnmarshal(data, &w); err != nil {
		return err
	}
	got, err := w.delivery()
	if err != nil {
		return err
	}
	*d = *got
	return nil
}

// SigningBytes returns the bytes the seller signs.
func (d *Delivery) SigningBytes() ([]byte, error) { return canon.Body(TypeDelivery, d.wire(false)) }

// Verify checks that Seller signed the delivery. The error wraps ErrForged.
func (d *Delivery) Verify() error {
	body, err := d.SigningBytes()
	if err != nil {
		return err
	}
	return verifySig(d.Seller, body, d.Signature)
}

func (d *Delivery) sign(key crypto.PrivKey) error {
	body, err := d.SigningBytes()
	if err != nil {
		return err
	}
	d.Signature, err = canon.Sign(key, body)
	if err != nil {
		return fmt.Errorf("sign delivery %s: %w", d.JobID, err)
	}
	return nil
}

func (d *Delivery) equal(o *Delivery) bool {
	return d.JobID == o.JobID && d.OutputHash == o.OutputHash && d.Seller == o.Seller &&
		d.DeliveredAt.Equal(o.DeliveredAt) && bytes.Equal(d.Signature, o.Signature)
}

func (s *Settle) wire(withSig bool) settleWire {
	w := settleWire{
		Type:         TypeSettle,
		JobID:        s.JobID,
		Decision:     s.Decision,
		Amount:       FormatAmount(s.Amount),
		Reason:       s.Reason,
		FailedChecks: s.FailedChecks,
		Buyer:        s.Buyer.String(),
		At:           wireTime(s.At),
	}
	if len(w.FailedChecks) == 0 {
		w.FailedChecks = nil
	}
	if s.Rail != "" {
		w.Type, w.Rail, w.RailProof = TypeSettleRail, s.Rail, s.RailProof
	}
	if withSig {
		w.Signature = encodeSig(s.Signature)
	}
	return w
}

func (w *settleWire) settle() (*Settle, error) {
	switch {
	case w.Type == TypeSettle && (w.Rail != "" || len(w.RailProof) > 0):
		return nil, fmt.Errorf("%w: a %s settle has no rail fields", ErrInvalidMessage, TypeSettle)
	case w.Type != TypeSettle && w.Type != TypeSettleRail:
		return nil, fmt.Errorf("%w: type %q, want %q", ErrInvalidMessage, truncate(w.Type), TypeSettle)
	}
	s := &Settle{JobID: w.JobID, Decision: w.Decision, Reason: w.Reason, FailedChecks: w.FailedChecks}
	var err error
	if w.Type == TypeSettleRail {
		if err = checkRailName(w.Rail); err != nil {
			return nil, err
		}
		if err = checkRailProof(w.RailProof, false); err != nil {
			return nil, err
		}
		s.Rail, s.RailProof = w.Rail, w.RailProof
	}
	if err = checkJobID(w.JobID); err != nil {
		return nil, err
	}
	if w.Decision != DecisionRelease && w.Decision != DecisionRefund {
		return nil, fmt.Errorf("%w: decision %q: want %q or %q", ErrInvalidMessage, truncate(w.Decision), DecisionRelease, DecisionRefund)
	}
	if err = checkSettleText(w.Reason, w.FailedChecks); err != nil {
		return nil, err
	}
	if s.Amount, err = ParseAmount(w.Amount); err != nil {
		return nil, fmt.Errorf("%w: amount: %v", ErrInvalidMessage, err)
	}
	if s.Buyer, err = parsePeer("buyer", w.Buyer); err != nil {
		return nil, err
	}
	if s.At, err = parseWireTime("at", w.At); err != nil {
		return nil, err
	}
	if s.Signature, err = decodeSig(w.Signature); err != nil {
		return nil, err
	}
	return s, nil
}

func checkSettleText(reason string, checks []string) error {
	if err := checkText("reason", reason); err != nil {
		return err
	}
	if len(checks) > maxFailedChecks {
		return fmt.Errorf("%w: more than %d failed_checks", ErrInvalidMessage, maxFailedChecks)
	}
	for _, c := range checks {
		if len(c) > maxCheckLen {
			return fmt.Errorf("%w: a failed_checks entry is longer than %d bytes", ErrInvalidMessage, maxCheckLen)
		}
	}
	return nil
}

// MarshalJSON encodes the settle in its wire form.
func (s Settle) MarshalJSON() ([]byte, error) { return json.Marshal(s.wire(true)) }

// UnmarshalJSON decodes and checks the wire form; it does not verify the
// signature (Verify does).
func (s *Settle) UnmarshalJSON(data []byte) error {
	var w settleWire
	if err := strictUnmarshal(data, &w); err != nil {
		return err
	}
	got, err := w.settle()
	if err != nil {
		return err
	}
	*s = *got
	return nil
}

// SigningBytes returns the bytes the buyer signs.
func (s *Settle) SigningBytes() ([]byte, error) {
	w := s.wire(false)
	return canon.Body(w.Type, w)
}

// Verify checks that Buyer signed the settle. The error wraps ErrForged.
func (s *Settle) Verify() error {
	body, err := s.SigningBytes()
	if err != nil {
		return err
	}
	return verifySig(s.Buyer, body, s.Signature)
}

func (s *Settle) sign(key crypto.PrivKey) error {
	body, err := s.SigningBytes()
	if err != nil {
		return err
	}
	s.Signature, err = canon.Sign(key, body)
	if err != nil {
		return fmt.Errorf("sign settle %s: %w", s.JobID, err)
	}
	return nil
}

// DecodeLock decodes a wire lock of at most MaxMessageSize bytes and checks
// its fields. It does not verify the signature: call Verify, or hand the lock
// to Escrow.AcceptLock, which does.
func DecodeLock(data []byte) (*Lock, error) {
	var l Lock
	if err := decodeCapped(data, &l); err != nil {
		return nil, fmt.Errorf("decode lock: %w", err)
	}
	return &l, nil
}

// DecodeDelivery decodes a wire delivery of at most MaxMessageSize bytes and
// checks its fields, not its signature.
func DecodeDelivery(data []byte) (*Delivery, error) {
	var d Delivery
	if err := decodeCapped(data, &d); err != nil {
		return nil, fmt.Errorf("decode delivery: %w", err)
	}
	return &d, nil
}

// DecodeSettle decodes a wire settle of at most MaxMessageSize bytes and
// checks its fields, not its signature.
func DecodeSettle(data []byte) (*Settle, error) {
	var s Settle
	if err := decodeCapped(data, &s); err != nil {
		return nil, fmt.Errorf("decode settle: %w", err)
	}
	return &s, nil
}

func decodeCapped(data []byte, v json.Unmarshaler) error {
	if len(data) > MaxMessageSize {
		return fmt.Errorf("%w: %d bytes, limit %d", ErrInvalidMessage, len(data), MaxMessageSize)
	}
	return v.UnmarshalJSON(data)
}

// strictUnmarshal decodes one JSON object and rejects unknown fields and
// trailing data: a field we do not know is not covered by our signature
// check, so it must not ride along silently.
func strictUnmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidMessage, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("%w: trailing data after the JSON object", ErrInvalidMessage)
	}
	return nil
}

// verifySig checks sig over body by the key signer's peer ID is derived
// from (canon.Verify). Only peer IDs that embed their public key (Ed25519)
// can be checked. The error wraps ErrForged.
func verifySig(signer peer.ID, body, sig []byte) error {
	if err := canon.Verify(signer, body, sig); err != nil {
		return fmt.Errorf("%w: %w", ErrForged, err)
	}
	return nil
}
