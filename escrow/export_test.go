package escrow

import "context"

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
