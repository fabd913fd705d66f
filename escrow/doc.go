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
//	(Decide: RecordDelivery and the decision in one commit)
//	                                       FailJob       failed
//
// Precedence: how both sides of a job reach the same final state after any
// crash or partition.
//
//  1. A delivery counts only once the buyer has it. The seller stores its
//     output with its signed delivery (Deliver) and serves it again until
//     the buyer decides; the buyer stores the output with the delivery
//     (RecordDelivery) in one transaction, so a restart can verify it again,
//     or with the delivery and its decision (Decide), which is what a live
//     hire does: one commit instead of two, and a crash before it leaves the
//     job locked, as if the delivery had not arrived (the seller serves it
//     again).
//  2. The buyer's signed decision (Settle) is the job's outcome. A lock
//     commits to the input's hash, a delivery to the output's, so the
//     decision is about exactly those bytes.
//  3. A buyer never pays for output it has not verified: its timers release
//     a delivery only if the buyer accepted it (Accept, for capabilities
//     whose hold waits for the window). A delivery left undecided by a crash
//     is handed to the WithUndecided hook, which verifies the stored output
//     again and releases or refunds; the market also does this at start-up.
//     Locked past the deadline (nothing received) is refunded (reason
//     "deadline").
//  4. The seller's timers act a settle grace after the buyer's: locked past
//     the deadline -> refunded; delivered past the window and the deadline
//     -> released provisionally (Record.Provisional, Balance.Pending: not
//     spendable). A buyer's refund that arrives later reverses it (->
//     disputed), a release confirms it. Only after the finality horizon
//     (WithFinality, default 72 h) with no word from the buyer does it become
//     final; a buyer silent for that long can no longer object, and its
//     refund then gets ErrAlreadySettled.
//  5. The buyer resends its decision until the seller acknowledges it (the
//     market's outbox, from start-up on, with backoff). Decisions are
//     idempotent, so replays change nothing.
//
// Outcome equivalence, as the fault-injection suite checks it: buyer
// released == seller released (not provisional); buyer refunded == seller
// refunded, disputed or failed. Money moves only as those states say. Timers
// are an index in Badger, so they resume after a restart.
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
// libp2p key over the stable JSON of the message without its signature,
// as package internal/canon signs and checks every signed message. The
// signer's peer ID must embed its public key (Ed25519). The "type" field
// tags the message kind, so a signature for one kind never verifies as
// another.
//
// Idempotency: repeating an operation or message that already took effect
// returns nil (and the stored message where one is returned) and changes
// nothing. An operation that conflicts with a final state returns an error
// wrapping ErrAlreadySettled (itself wrapping ErrBadState). Rejected
// messages change nothing and wrap ErrForged, ErrUnknownJob,
// ErrWrongAmount, ErrJobIDReused, ErrBadState or ErrInvalidMessage.
//
// Settlement rails (rail.go): without WithRail the ledger is the money
// (credits). With a Rail (package escrow/evm) a lock carries the rail's
// signed lock (TypeLockRail), a release the rail's signed release
// (TypeSettleRail), and the rail's chain is the arbiter: its outcome wins
// in both ledgers (ApplyRailOutcome), a buyer's refund stays held
// (Record.RefundPending) until the rail confirms it, and a seller's
// provisional release waits for the chain instead of the finality horizon.
// Money that leaves the rail to the node's address is Withdrawn, and the
// invariant reads Available + Held + Paid + Withdrawn == Deposited + Earned.
// A recorded chain outcome stays in the rail's watch index until the rail
// declares it final (RailFinal); one a reorg takes away is undone exactly
// as it was applied (RevertRailOutcome, rail_reorg.go): the job is
// ChainProvisional and open on the rail again until the chain shows
// another outcome.
//
// Spend caps (spendcap.go): a Lock may carry SpendCaps; its transaction
// refuses it (*SpendCapError, ErrSpendCap) when the buyer locks of the
// cap's scope created since the cap's start and not refunded, plus this
// one, would pass the limit. Changes run one after the other, so
// concurrent locks cannot together pass a cap; a refund frees its share.
// Spent sums a scope from an index, reading only the period's records.
//
// Storage (keys.go): escrow/job/<role>/<base32 id> (the record),
// escrow/payload/<role>/<base32 id>/input|output (the job's bytes, stored
// once, with the message committing to their hash),
// escrow/due/<ms>/<role>/<base32 id> (timer index),
// escrow/created/<ms>/<base32 id> (buyer records by creation time, written
// with the record; built at open for stores older than it),
// escrow/scope/<base32 scope>/<ms>/<base32 id> (buyer locks by spend
// scope), escrow/schema,
// escrow/railopen/<role>/<base32 address>/<base32 id>/<amount> (jobs the
// rail may still pay), escrow/railref/<base32 rail ref>/<role>,
// escrow/railstate/<base32 name> (a rail's cursor and such),
// escrow/railwatch/<role>/<base32 id> (chain outcomes not final yet),
// acct/balance, acct/deposit/<ns>/<nonce>, acct/withdrawal/<ns>/<nonce>,
// acct/rail/<base32 ref> (rail entries booked), receipt/<base32 id>/<role>/<kind>
// (signed lock, delivery, settle). Values are versioned JSON ({"v":1,...}).
package escrow
