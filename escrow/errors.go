package escrow

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error an Escrow method returns for a rejected
// message or operation wraps one of these, so callers branch with errors.Is;
// the wrapping text says what exactly was wrong. A rejected operation changes
// nothing.
var (
	// ErrNotFound is returned by Get when no escrow record exists for a job.
	ErrNotFound = errors.New("escrow record not found")
	// ErrUnknownJob is returned when a message or operation names a job this
	// node holds no escrow record for (in the role the operation needs).
	ErrUnknownJob = errors.New("unknown job")
	// ErrForged is returned when a message's signature does not verify, its
	// signer is not the party the job names, or it is addressed to another
	// node.
	ErrForged = errors.New("forged or misdirected message")
	// ErrWrongAmount is returned when an amount is not positive, does not
	// match the lock, or would overflow the ledger.
	ErrWrongAmount = errors.New("wrong amount")
	// ErrJobIDReused is returned when a lock reuses a job ID this node already
	// holds with different terms.
	ErrJobIDReused = errors.New("job ID reused with different terms")
	// ErrBadState is returned when an operation is not allowed in the job's
	// current state (a delivery after the deadline, a release before any
	// delivery, a refund after the verification window closed, ...).
	ErrBadState = errors.New("operation not allowed in this escrow state")
	// ErrAlreadySettled is returned when an operation conflicts with a final
	// state the job already reached (a refund after a release, a release
	// after a refund). It wraps ErrBadState. Repeating the operation that
	// settled the job is not an error: it returns the stored result and nil.
	ErrAlreadySettled = fmt.Errorf("job already settled: %w", ErrBadState)
	// ErrPastDeadline is returned by RecordDelivery for a delivery that
	// reached the buyer after the job's deadline: the deadline refunds it.
	ErrPastDeadline = fmt.Errorf("delivery after the deadline: %w", ErrBadState)
	// ErrInsufficientFunds is returned by Lock when the available balance is
	// smaller than the amount.
	ErrInsufficientFunds = errors.New("insufficient funds")
	// ErrInvalidMessage is returned when a wire message cannot be decoded or
	// a field is malformed (bad peer ID, hash, time, size).
	ErrInvalidMessage = errors.New("invalid escrow message")
	// ErrInvariant is returned by CheckInvariant when the ledger does not
	// balance.
	ErrInvariant = errors.New("ledger invariant violated")
	// ErrClosed is returned by every method after Close.
	ErrClosed = errors.New("escrow closed")
	// ErrNotCovered is returned when the settlement rail does not cover a
	// lock: the buyer's money on the rail (on evm: its line for the seller,
	// at the confirmation depth) is short.
	ErrNotCovered = errors.New("not covered on the settlement rail")
	// ErrRailUnavailable is returned when the settlement rail cannot be
	// reached or cannot act now (on evm: the chain is down, reorganized
	// within the confirmation depth, or the node has no gas money).
	// Nothing was locked or paid; try again when it is back.
	ErrRailUnavailable = errors.New("settlement rail unavailable")
	// ErrNotPaid is returned by CheckPayment when a receipt's payment is
	// not shown on its rail: no proof yet (a release waiting for its
	// redeem batch), not final, on a chain or contract this node does not
	// watch, or the rail could not be asked. Not a forgery: the release
	// just does not count as paid.
	ErrNotPaid = errors.New("payment not shown on the rail")
)
