package escrow

// SetReceiptScan sets how many records a page of receipts reads at most
// (maxReceiptScan), for tests of that bound.
func SetReceiptScan(e *Escrow, n int) { e.cfg.receiptScan = n }
