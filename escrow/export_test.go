package escrow

import "context"

// SetReceiptScan sets how many records a page of receipts reads at most
// (maxReceiptScan), for tests of that bound.
func SetReceiptScan(e *Escrow, n int) { e.cfg.receiptScan = n }

// ReserveRail is reserveRail, for tests of what a lock in flight counts.
func ReserveRail(ctx context.Context, e *Escrow, role Role, counterparty, jobID string, amount int64) (open int64, release func(), err error) {
	return e.reserveRail(ctx, role, counterparty, jobID, amount)
}
