package escrow

import (
	"context"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
)

// SetReceiptScan sets how many records a page of receipts reads at most
// (maxReceiptScan), for tests of that bound.
func SetReceiptScan(e *Escrow, n int) { e.cfg.receiptScan = n }

// ReserveRail is reserveRail, for tests of what a lock in flight counts.
func ReserveRail(ctx context.Context, e *Escrow, role Role, counterparty, jobID string, amount int64) (open int64, release func(), err error) {
	return e.reserveRail(ctx, role, counterparty, jobID, amount)
}

// QueuedChanges is how many changes wait for a batch's commit.
func QueuedChanges(e *Escrow) int {
	e.commit.mu.Lock()
	defer e.commit.mu.Unlock()
	return len(e.commit.queue)
}

// JobKey is the key of role's record of jobID.
func JobKey(role Role, jobID string) []byte { return jobKey(role, jobID) }

// SignSettle signs s with key, for tests of settles a buyer signed wrong.
func SignSettle(s *Settle, key crypto.PrivKey) error { return s.sign(key) }

// SetSettleCommitWait sets how long ApplySettle waits for a batch to join
// (settleCommitWait); 0 commits it at once.
func SetSettleCommitWait(e *Escrow, d time.Duration) { e.cfg.settleWait = d }

// SettleCommitWait is the wait a node is made with.
const SettleCommitWait = settleCommitWait
