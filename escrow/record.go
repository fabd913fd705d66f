package escrow

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
)

// Role is the side of a job this node is on.
type Role string

// Roles.
const (
	RoleBuyer  Role = "buyer"
	RoleSeller Role = "seller"
)

func validRole(r Role) bool { return r == RoleBuyer || r == RoleSeller }

// State is where a job's escrow stands.
type State string

// States. locked and delivered are open (a timer runs); the rest are final.
const (
	// StateLocked: the buyer holds the amount; no delivery yet.
	StateLocked State = "locked"
	// StateDelivered: the seller delivered; the buyer is verifying.
	StateDelivered State = "delivered"
	// StateReleased: the seller was paid (verification passed or the window
	// closed without a decision).
	StateReleased State = "released"
	// StateRefunded: the hold went back to the buyer with nothing delivered,
	// or (buyer side) after a failed verification.
	StateRefunded State = "refunded"
	// StateDisputed (seller side): the buyer refunded a job the seller
	// delivered. Both sides keep the signed lock, delivery and settle.
	StateDisputed State = "disputed"
	// StateFailed (seller side): the job failed at the seller; the buyer
	// refunds.
	StateFailed State = "failed"
)

// Final reports whether the state admits no further transition. One final
// state still has a timer: a seller's provisional release (see
// Record.Provisional), which the buyer may yet confirm or reverse.
func (s State) Final() bool { return s != StateLocked && s != StateDelivered }

// Reasons the timers write into a Settle and a Record.
const (
	// ReasonDeadline: nothing was delivered by the lock's deadline.
	ReasonDeadline = "deadline"
	// ReasonWindow: the verification window closed without a decision.
	ReasonWindow = "verification window expired"
	// ReasonReverified: the buyer verified a delivery again after a restart
	// found it undecided, and its checks failed.
	ReasonReverified = "verification failed"
	// ReasonFinality: a provisional release became final because the buyer
	// stayed silent past the finality horizon.
	ReasonFinality = "buyer silent past the finality horizon"
)

// Balance is the node's account. Invariant: Available + Held + Paid +
// Withdrawn == Deposited + Earned (Withdrawn is 0 on the credits rail, whose
// credits never leave). Pending sits outside it: what this node's timers
// released on jobs it sold, not yet confirmed by their buyers (it becomes
// Earned and Available on confirmation, or vanishes when the buyer's
// refund reverses it). All amounts are micro-credits; JSON shows decimal
// strings of credits.
type Balance struct {
	Available int64 // free to lock
	Held      int64 // locked for open jobs (buyer side)
	Paid      int64 // released to sellers
	Deposited int64 // test credits deposited
	Earned    int64 // credited for jobs sold
	Pending   int64 // provisionally released to this node, awaiting the buyers
	// Withdrawn is what left the rail to the node's own address: a
	// buyer's deposits withdrawn, a seller's earnings redeemed on chain.
	Withdrawn int64
}

type balanceJSON struct {
	Available string `json:"available"`
	Held      string `json:"held"`
	Paid      string `json:"paid"`
	Deposited string `json:"deposited"`
	Earned    string `json:"earned"`
	Pending   string `json:"pending"`
	// Withdrawn is written only when it is not zero: the credits rail never
	// has it, and its balance JSON stays as it was.
	Withdrawn string `json:"withdrawn,omitempty"`
}

// MarshalJSON renders amounts as decimal strings.
func (b Balance) MarshalJSON() ([]byte, error) {
	j := balanceJSON{
		Available: FormatAmount(b.Available),
		Held:      FormatAmount(b.Held),
		Paid:      FormatAmount(b.Paid),
		Deposited: FormatAmount(b.Deposited),
		Earned:    FormatAmount(b.Earned),
		Pending:   FormatAmount(b.Pending),
	}
	if b.Withdrawn != 0 {
		j.Withdrawn = FormatAmount(b.Withdrawn)
	}
	return json.Marshal(j)
}

// UnmarshalJSON parses the decimal strings MarshalJSON writes.
func (b *Balance) UnmarshalJSON(data []byte) error {
	var j balanceJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return fmt.Errorf("decode balance: %w", err)
	}
	var out Balance
	for _, f := range []struct {
		dst *int64
		s   string
		n   string
	}{{&out.Available, j.Available, "available"}, {&out.Held, j.Held, "held"}, {&out.Paid, j.Paid, "paid"},
		{&out.Deposited, j.Deposited, "deposited"}, {&out.Earned, j.Earned, "earned"}, {&out.Pending, j.Pending, "pending"},
		{&out.Withdrawn, j.Withdrawn, "withdrawn"}} {
		if f.s == "" && (f.n == "pending" || f.n == "withdrawn") {
			continue // pending: written by a release before it existed; withdrawn: written only when set
		}
		v, err := ParseAmount(f.s)
		if err != nil {
			return fmt.Errorf("decode balance %s: %w", f.n, err)
		}
		*f.dst = v
	}
	*b = out
	return nil
}

// Record is one job's escrow as this node sees it, with the signed evidence
// it holds. Times are zero when the event has not happened.
type Record struct {
	JobID        string
	Role         Role
	State        State
	Amount       int64 // micro-credits
	Capability   string
	QuoteID      string
	Buyer        peer.ID
	Seller       peer.ID
	Counterparty peer.ID // Seller for a buyer record, Buyer for a seller record
	Deadline     time.Time
	Window       time.Duration
	CreatedAt    time.Time
	UpdatedAt    time.Time
	DeliveredAt  time.Time // local time the delivery was made (seller) or recorded (buyer)
	SettledAt    time.Time // local time the job reached a final state
	OutputHash   string
	InputHash    string
	Reason       string // why it was refunded, failed or auto-settled
	FailedChecks []string
	// Accepted (buyer side): the delivered output passed this node's
	// verification and waits for the window (capabilities without a
	// standard verifier). A buyer's timer releases only accepted outputs.
	Accepted bool
	// Provisional (seller side, state released): this node's timer released
	// the job; the buyer has not confirmed. A buyer's refund may still
	// reverse it until FinalAt.
	Provisional bool
	// FinalAt is when a provisional release becomes final without the
	// buyer.
	FinalAt time.Time
	// Rail is the job's settlement rail: RailCredits or another rail's
	// name (RailEVM).
	Rail string
	// RailCounterparty is the other party's address on the rail (the
	// seller's payout address for a buyer record, the buyer's address for
	// a seller record); empty on credits.
	RailCounterparty string
	// NotBefore is when the seller may claim the job on the rail (zero on
	// credits).
	NotBefore time.Time
	// RefundPending (buyer side, state refunded): the rail has not yet
	// confirmed the refund (on evm: the cancel is not mined); the amount
	// stays held until it does.
	RefundPending bool
	// ChainOutcome is the job's outcome as the rail's chain has it:
	// RailPaid or RailCancelled, empty while the chain shows none; ChainTx
	// is the transaction that settled it and ChainBlock its block (0 when
	// not known).
	ChainOutcome string
	ChainTx      string
	ChainBlock   uint64
	// ChainFinal: the rail no longer watches the chain outcome for a
	// reorg (it is deep enough); until then a recorded outcome that
	// vanishes from the canonical chain is reverted (RevertRailOutcome).
	ChainFinal bool
	// ChainProvisional: the chain outcome this node had recorded vanished
	// in a reorg; the rail re-sends it (a release redeemed again, a claim,
	// a cancel) and the job is provisional until the chain shows an
	// outcome again.
	ChainProvisional bool
	// ChainNote is the last thing the rail noticed about the job and did
	// not act on (an event that did not match the lock, a chain read that
	// disagreed), or the vanished outcome; empty when there is none.
	ChainNote string
	Lock      *Lock
	Delivery  *Delivery
	Settle    *Settle
}

type recordJSON struct {
	JobID        string    `json:"job_id"`
	Role         Role      `json:"role"`
	State        State     `json:"state"`
	Amount       string    `json:"amount"`
	Capability   string    `json:"capability,omitempty"`
	QuoteID      string    `json:"quote_id,omitempty"`
	Buyer        string    `json:"buyer"`
	Seller       string    `json:"seller"`
	Counterparty string    `json:"counterparty"`
	Deadline     time.Time `json:"deadline"`
	WindowMS     int64     `json:"window_ms"`
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
	DeliveredAt  *string   `json:"delivered_at,omitempty"`
	SettledAt    *string   `json:"settled_at,omitempty"`
	OutputHash   string    `json:"output_hash,omitempty"`
	InputHash    string    `json:"input_hash,omitempty"`
	Reason       string    `json:"reason,omitempty"`
	FailedChecks []string  `json:"failed_checks,omitempty"`
	Accepted     bool      `json:"accepted,omitempty"`
	Provisional  bool      `json:"provisional,omitempty"`
	FinalAt      *string   `json:"final_at,omitempty"`
	Rail         string    `json:"rail"`
	RailPeer     string    `json:"rail_counterparty,omitempty"`
	NotBefore    *string   `json:"not_before,omitempty"`
	RefundPend   bool      `json:"refund_pending,omitempty"`
	ChainOutcome string    `json:"chain_outcome,omitempty"`
	ChainTx      string    `json:"chain_tx,omitempty"`
	ChainBlock   uint64    `json:"chain_block,omitempty"`
	ChainFinal   bool      `json:"chain_final,omitempty"`
	ChainProv    bool      `json:"chain_provisional,omitempty"`
	ChainNote    string    `json:"chain_note,omitempty"`
	Lock         *Lock     `json:"lock,omitempty"`
	Delivery     *Delivery `json:"delivery,omitempty"`
	Settle       *Settle   `json:"settle,omitempty"`
}

// MarshalJSON renders the record for `escrow show --json`: snake_case,
// decimal amount, window in milliseconds, evidence in wire form.
func (r Record) MarshalJSON() ([]byte, error) {
	if r.Rail == "" {
		r.Rail = RailCredits
	}
	j := recordJSON{
		JobID:        r.JobID,
		Role:         r.Role,
		State:        r.State,
		Amount:       FormatAmount(r.Amount),
		Capability:   r.Capability,
		QuoteID:      r.QuoteID,
		Buyer:        r.Buyer.String(),
		Seller:       r.Seller.String(),
		Counterparty: r.Counterparty.String(),
		Deadline:     r.Deadline.UTC(),
		WindowMS:     r.Window.Milliseconds(),
		CreatedAt:    r.CreatedAt.UTC(),
		UpdatedAt:    r.UpdatedAt.UTC(),
		DeliveredAt:  optTime(r.DeliveredAt),
		SettledAt:    optTime(r.SettledAt),
		OutputHash:   r.OutputHash,
		InputHash:    r.InputHash,
		Reason:       r.Reason,
		FailedChecks: r.FailedChecks,
		Accepted:     r.Accepted,
		Provisional:  r.Provisional,
		FinalAt:      optTime(r.FinalAt),
		Rail:         r.Rail,
		RailPeer:     r.RailCounterparty,
		NotBefore:    optTime(r.NotBefore),
		RefundPend:   r.RefundPending,
		ChainOutcome: r.ChainOutcome,
		ChainTx:      r.ChainTx,
		ChainBlock:   r.ChainBlock,
		ChainFinal:   r.ChainFinal,
		ChainProv:    r.ChainProvisional,
		ChainNote:    r.ChainNote,
		Lock:         r.Lock,
		Delivery:     r.Delivery,
		Settle:       r.Settle,
	}
	return json.Marshal(j)
}

// UnmarshalJSON parses what MarshalJSON writes (for control-API clients).
func (r *Record) UnmarshalJSON(data []byte) error {
	var j recordJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return fmt.Errorf("decode escrow record: %w", err)
	}
	amount, err := ParseAmount(j.Amount)
	if err != nil {
		return fmt.Errorf("decode escrow record amount: %w", err)
	}
	out := Record{
		JobID: j.JobID, Role: j.Role, State: j.State, Amount: amount,
		Capability: j.Capability, QuoteID: j.QuoteID,
		Deadline: j.Deadline, Window: time.Duration(j.WindowMS) * time.Millisecond,
		CreatedAt: j.CreatedAt, UpdatedAt: j.UpdatedAt,
		OutputHash: j.OutputHash, InputHash: j.InputHash, Reason: j.Reason, FailedChecks: j.FailedChecks,
		Accepted: j.Accepted, Provisional: j.Provisional,
		Rail: j.Rail, RailCounterparty: j.RailPeer, RefundPending: j.RefundPend,
		ChainOutcome: j.ChainOutcome, ChainTx: j.ChainTx, ChainBlock: j.ChainBlock,
		ChainFinal: j.ChainFinal, ChainProvisional: j.ChainProv, ChainNote: j.ChainNote,
		Lock: j.Lock, Delivery: j.Delivery, Settle: j.Settle,
	}
	for _, p := range []struct {
		dst *peer.ID
		s   string
	}{{&out.Buyer, j.Buyer}, {&out.Seller, j.Seller}, {&out.Counterparty, j.Counterparty}} {
		if p.s == "" {
			continue
		}
		if *p.dst, err = peer.Decode(p.s); err != nil {
			return fmt.Errorf("decode escrow record peer %q: %w", truncate(p.s), err)
		}
	}
	for _, t := range []struct {
		dst *time.Time
		s   *string
	}{{&out.DeliveredAt, j.DeliveredAt}, {&out.SettledAt, j.SettledAt}, {&out.FinalAt, j.FinalAt}, {&out.NotBefore, j.NotBefore}} {
		if t.s == nil {
			continue
		}
		if *t.dst, err = time.Parse(time.RFC3339Nano, *t.s); err != nil {
			return fmt.Errorf("decode escrow record time: %w", err)
		}
	}
	*r = out
	return nil
}

func optTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := wireTime(t)
	return &s
}

// Filter selects records for List. Zero fields match everything.
type Filter struct {
	Role  Role
	State State
	Limit int // at most this many, newest first; 0 means all
	// After, for paging, starts the list after this position: that of the
	// last record of the previous page.
	After *Position
}

// Position is a record's place in List's order: newest first, then by job
// ID, then by role (a node that sold to itself has both).
type Position struct {
	CreatedAt time.Time
	JobID     string
	Role      Role
}

// Before reports whether p comes before q in List's order.
func (p Position) Before(q Position) bool {
	if !p.CreatedAt.Equal(q.CreatedAt) {
		return p.CreatedAt.After(q.CreatedAt)
	}
	if p.JobID != q.JobID {
		return p.JobID < q.JobID
	}
	return p.Role < q.Role
}

// Position is r's place in List's order.
func (r Record) Position() Position {
	return Position{CreatedAt: r.CreatedAt, JobID: r.JobID, Role: r.Role}
}

// schemaVersion is the version of every value this package stores.
const schemaVersion = 1

// storedRecord is the value under jobKey. The signed messages live under
// receipt keys; the record keeps what the state machine and List need.
type storedRecord struct {
	V            int       `json:"v"`
	JobID        string    `json:"job_id"`
	Role         Role      `json:"role"`
	State        State     `json:"state"`
	Amount       int64     `json:"amount"`
	Capability   string    `json:"capability,omitempty"`
	QuoteID      string    `json:"quote_id,omitempty"`
	Buyer        peer.ID   `json:"buyer"`
	Seller       peer.ID   `json:"seller"`
	Deadline     time.Time `json:"deadline"`
	WindowMS     int64     `json:"window_ms"`
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
	DeliveredAt  time.Time `json:"delivered_at,omitzero"`
	SettledAt    time.Time `json:"settled_at,omitzero"`
	DueAt        time.Time `json:"due_at,omitzero"` // when the open state's timer fires
	OutputHash   string    `json:"output_hash,omitempty"`
	InputHash    string    `json:"input_hash,omitempty"`
	Reason       string    `json:"reason,omitempty"`
	FailedChecks []string  `json:"failed_checks,omitempty"`
	Accepted     bool      `json:"accepted,omitempty"`
	Provisional  bool      `json:"provisional,omitempty"`
	// Rail fields (rail.go); empty on credits.
	Rail             string    `json:"rail,omitempty"`
	RailCounterparty string    `json:"rail_counterparty,omitempty"`
	NotBefore        time.Time `json:"not_before,omitzero"`
	RefundPending    bool      `json:"refund_pending,omitempty"`
	ChainOutcome     string    `json:"chain_outcome,omitempty"`
	ChainTx          string    `json:"chain_tx,omitempty"`
	ChainBlock       uint64    `json:"chain_block,omitempty"`
	// ChainUndo says how the recorded chain outcome changed the record
	// and the account, so a reorg that takes the outcome away can undo
	// exactly that (RevertRailOutcome); nil when no outcome is recorded.
	ChainUndo        *chainUndo `json:"chain_undo,omitempty"`
	ChainFinal       bool       `json:"chain_final,omitempty"`
	ChainProvisional bool       `json:"chain_provisional,omitempty"`
	ChainNote        string     `json:"chain_note,omitempty"`
}

func (s *storedRecord) window() time.Duration { return time.Duration(s.WindowMS) * time.Millisecond }

// timed reports whether the record has a timer: an open state, or a
// provisional release that becomes final at DueAt. On a rail a
// provisional release has none: the chain settles it (the seller claims
// its lock at NotBefore), never a horizon.
func (s *storedRecord) timed() bool {
	return !s.State.Final() || s.Provisional && s.Rail == ""
}

// storedBalance is the value under balanceKey.
type storedBalance struct {
	V         int   `json:"v"`
	Available int64 `json:"available"`
	Held      int64 `json:"held"`
	Paid      int64 `json:"paid"`
	Deposited int64 `json:"deposited"`
	Earned    int64 `json:"earned"`
	Pending   int64 `json:"pending,omitempty"`
	Withdrawn int64 `json:"withdrawn,omitempty"`
}

// storedDeposit is the value under depositKey.
type storedDeposit struct {
	V      int       `json:"v"`
	Amount int64     `json:"amount"`
	Memo   string    `json:"memo,omitempty"`
	At     time.Time `json:"at"`
}

// storedReceipt is the value under receiptKey: one signed message in wire
// form.
type storedReceipt struct {
	V   int             `json:"v"`
	Msg json.RawMessage `json:"msg"`
}

// storedSchema is the value under schemaKey.
type storedSchema struct {
	V int `json:"v"`
}
