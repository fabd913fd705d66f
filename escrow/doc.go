// Package escrow owns a node's money: the ledger (one account in int64
// micro-credits) and the escrow state machine of every job the node buys or
// sells, stored in the node's Badger DB, with the signed messages the two
// sides exchange and the timers that settle a job nobody decides on.
//
// The flow is "A hire, end to end" in ../shared/DESIGN.md, for issue 5:
//
//	buyer                                  seller
//	Lock          locked   --- Lock --->   AcceptLock    locked
//	RecordDelivery delivered <- Delivery - Deliver       delivered
//	Release|Refund released|refunded - Settle -> ApplySettle released|refunded|disputed
//	                                       FailJob       failed
//
// Timers (FireDue, run by Start): a buyer's locked job past its deadline is
// refunded (reason "deadline"); a buyer's delivered job past the
// verification window (counted from when the buyer recorded the delivery) is
// released. The seller settles the same way on its side, a settle grace
// later (WithSettleGrace), so the buyer's decision or timer comes first:
// locked past the deadline -> refunded, delivered past the window (and
// past the deadline: a lost delivery never started the buyer's window) ->
// released and credited. A refund must reach the seller within the grace,
// so the market retries sending refunds; a lost release is harmless. Timers are an index in Badger, so they resume after
// a restart.
//
// Ledger invariant, on every node at all times: Available + Held + Paid ==
// Deposited + Earned (CheckInvariant checks it against the records too).
// Every change is atomic and durable when its method returns: concurrent
// changes are applied one after the other and committed together in one
// Badger transaction (group commit: one fsync for the batch), so they never
// conflict on the account, and a change that fails leaves nothing behind.
//
// Wire messages (Lock, Delivery, Settle) are JSON with snake_case fields,
// amounts as decimal strings of credits and a base64 signature by the node's
// libp2p key over the stable JSON (skillcard.StableJSON) of the message
// without its signature. The signer's peer ID must embed its public key
// (Ed25519). The "type" field tags the message kind, so a signature for one
// kind never verifies as another.
//
// Idempotency: repeating an operation or message that already took effect
// returns nil (and the stored message where one is returned) and changes
// nothing. An operation that conflicts with a final state returns an error
// wrapping ErrAlreadySettled (itself wrapping ErrBadState). Rejected
// messages change nothing and wrap ErrForged, ErrUnknownJob,
// ErrWrongAmount, ErrJobIDReused, ErrBadState or ErrInvalidMessage.
//
// Storage (keys.go): escrow/job/<role>/<base32 id> (the record),
// escrow/due/<ms>/<role>/<base32 id> (timer index), escrow/schema,
// acct/balance, acct/deposit/<ns>/<nonce>, receipt/<base32 id>/<role>/<kind>
// (signed lock, delivery, settle). Values are versioned JSON ({"v":1,...}).
package escrow
