package escrow

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sort"

	"github.com/dgraph-io/badger/v4"
)

// Get returns the escrow record of a job: the buyer-side record if this
// node locked the job, else the seller-side one. ErrNotFound if neither.
func (e *Escrow) Get(ctx context.Context, jobID string) (Record, error) {
	var out Record
	err := e.view(ctx, func(txn *tx) error {
		var err error
		out, err = getRecord(txn, RoleBuyer, jobID)
		if errors.Is(err, ErrNotFound) {
			out, err = getRecord(txn, RoleSeller, jobID)
		}
		return err
	})
	if err != nil {
		return Record{}, fmt.Errorf("get escrow %s: %w", truncate(jobID), err)
	}
	return out, nil
}

// GetRole returns the record of a job in one role; ErrNotFound if this node
// has none.
func (e *Escrow) GetRole(ctx context.Context, jobID string, role Role) (Record, error) {
	var out Record
	err := e.view(ctx, func(txn *tx) error {
		var err error
		out, err = getRecord(txn, role, jobID)
		return err
	})
	if err != nil {
		return Record{}, fmt.Errorf("get %s escrow %s: %w", role, truncate(jobID), err)
	}
	return out, nil
}

// List returns the records matching f, newest first.
func (e *Escrow) List(ctx context.Context, f Filter) ([]Record, error) {
	if f.Role != "" && !validRole(f.Role) {
		return nil, fmt.Errorf("list escrow: unknown role %q", f.Role)
	}
	var out []Record
	err := e.view(ctx, func(txn *tx) error {
		var stored []*storedRecord
		err := scanRecords(txn, f.Role, func(r *storedRecord) error {
			if f.State == "" || r.State == f.State {
				stored = append(stored, r)
			}
			return nil
		})
		if err != nil {
			return err
		}
		pos := func(r *storedRecord) Position { return Position{CreatedAt: r.CreatedAt, JobID: r.JobID, Role: r.Role} }
		sort.Slice(stored, func(i, j int) bool { return pos(stored[i]).Before(pos(stored[j])) })
		if f.After != nil {
			first := sort.Search(len(stored), func(i int) bool { return f.After.Before(pos(stored[i])) })
			stored = stored[first:]
		}
		if f.Limit > 0 && len(stored) > f.Limit {
			stored = stored[:f.Limit]
		}
		out = make([]Record, 0, len(stored))
		for _, r := range stored {
			rec, err := withEvidence(txn, r)
			if err != nil {
				return err
			}
			out = append(out, rec)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list escrow: %w", err)
	}
	return out, nil
}

// scanRecords calls fn for every stored record of role ("" for both).
func scanRecords(txn *tx, role Role, fn func(*storedRecord) error) error {
	prefix := []byte(jobPrefix)
	if role != "" {
		prefix = []byte(jobPrefix + string(role) + "/")
	}
	opts := badger.DefaultIteratorOptions
	opts.Prefix = prefix
	it := txn.txn.NewIterator(opts)
	defer it.Close()
	for it.Seek(prefix); it.ValidForPrefix(prefix); it.Next() {
		role, id, err := parseJobKey(it.Item().Key())
		if err != nil {
			return err
		}
		r, err := loadRecord(txn, role, id)
		if err != nil {
			return err
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

func getRecord(txn *tx, role Role, jobID string) (Record, error) {
	r, err := loadRecord(txn, role, jobID)
	if err != nil {
		return Record{}, err
	}
	return withEvidence(txn, r)
}

// withEvidence turns a stored record into a Record with its receipts.
func withEvidence(txn *tx, r *storedRecord) (Record, error) {
	out := bareRecord(r)
	var err error
	if out.Lock, err = loadLock(txn, r.JobID, r.Role); err != nil {
		return Record{}, err
	}
	if out.Delivery, err = loadDelivery(txn, r.JobID, r.Role); err != nil && !errors.Is(err, ErrNotFound) {
		return Record{}, err
	}
	if out.Settle, err = loadSettle(txn, r.JobID, r.Role); err != nil && !errors.Is(err, ErrNotFound) {
		return Record{}, err
	}
	return out, nil
}

// bareRecord is a stored record as a Record without its evidence.
func bareRecord(r *storedRecord) Record {
	out := Record{
		JobID: r.JobID, Role: r.Role, State: r.State, Amount: r.Amount,
		Capability: r.Capability, QuoteID: r.QuoteID, Buyer: r.Buyer, Seller: r.Seller,
		Counterparty: r.Seller, Deadline: r.Deadline, Window: r.window(),
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, DeliveredAt: r.DeliveredAt, SettledAt: r.SettledAt,
		OutputHash: r.OutputHash, InputHash: r.InputHash, Reason: r.Reason, FailedChecks: r.FailedChecks,
		Accepted: r.Accepted, Provisional: r.Provisional,
		Rail: r.Rail, RailCounterparty: r.RailCounterparty, NotBefore: r.NotBefore,
		RefundPending: r.RefundPending, ChainOutcome: r.ChainOutcome, ChainTx: r.ChainTx, ChainBlock: r.ChainBlock,
		ChainFinal: r.ChainFinal, ChainProvisional: r.ChainProvisional, ChainNote: r.ChainNote,
	}
	if out.Rail == "" {
		out.Rail = RailCredits
	}
	if r.Provisional && r.timed() {
		out.FinalAt = r.DueAt
	}
	if r.Role == RoleSeller {
		out.Counterparty = r.Buyer
	}
	return out
}

// CheckInvariant checks the ledger: no negative field, Available + Held +
// Paid == Deposited + Earned, and the account agrees with the records —
// Held is the sum of open buyer jobs, Paid of released buyer jobs, Earned of
// released seller jobs (confirmed), Pending of provisional ones, Deposited
// of the deposit log — and every open job and provisional release has its
// timer. The error wraps ErrInvariant and says what is off.
func (e *Escrow) CheckInvariant(ctx context.Context) error {
	err := e.view(ctx, func(txn *tx) error {
		b, err := loadBalance(txn)
		if err != nil {
			return err
		}
		if b.Available < 0 || b.Held < 0 || b.Paid < 0 || b.Deposited < 0 || b.Earned < 0 || b.Pending < 0 || b.Withdrawn < 0 {
			return fmt.Errorf("%w: negative field in %+v", ErrInvariant, b)
		}
		left := sum(b.Available, b.Held, b.Paid, b.Withdrawn)
		right := sum(b.Deposited, b.Earned)
		if left.Cmp(right) != 0 {
			return fmt.Errorf("%w: available %s + held %s + paid %s + withdrawn %s != deposited %s + earned %s", ErrInvariant,
				FormatAmount(b.Available), FormatAmount(b.Held), FormatAmount(b.Paid), FormatAmount(b.Withdrawn), FormatAmount(b.Deposited), FormatAmount(b.Earned))
		}
		held, paid, earned, pending := new(big.Int), new(big.Int), new(big.Int), new(big.Int)
		withdrawn, err := sumLog(txn, withdrawalPrefix)
		if err != nil {
			return err
		}
		err = scanRecords(txn, "", func(r *storedRecord) error {
			amt := big.NewInt(r.Amount)
			if r.Role == RoleSeller && r.ChainOutcome == RailPaid {
				withdrawn.Add(withdrawn, amt) // redeemed to the node's address
			}
			if railOpen(r) {
				if _, err := txn.get(railOpenKey(r.Role, r.RailCounterparty, r.JobID, r.Amount)); err != nil {
					return fmt.Errorf("%w: %s job %s open on rail %s is not in the rail index: %v", ErrInvariant, r.Role, r.JobID, r.Rail, err)
				}
			}
			switch {
			case r.Role == RoleBuyer && (!r.State.Final() || r.RefundPending):
				held.Add(held, amt)
			case r.Role == RoleBuyer && r.State == StateReleased:
				paid.Add(paid, amt)
			case r.Role == RoleSeller && r.State == StateReleased && r.Provisional:
				pending.Add(pending, amt)
			case r.Role == RoleSeller && r.State == StateReleased:
				earned.Add(earned, amt)
			}
			if r.timed() {
				if _, err := txn.get(dueKey(r.DueAt, r.Role, r.JobID)); err != nil {
					return fmt.Errorf("%w: open %s job %s has no timer: %v", ErrInvariant, r.Role, r.JobID, err)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		deposited, err := sumDeposits(txn)
		if err != nil {
			return err
		}
		if err := checkRailSums(txn); err != nil {
			return err
		}
		for _, c := range []struct {
			name string
			acct int64
			recs *big.Int
		}{{"held", b.Held, held}, {"paid", b.Paid, paid}, {"earned", b.Earned, earned}, {"pending", b.Pending, pending},
			{"deposited", b.Deposited, deposited}, {"withdrawn", b.Withdrawn, withdrawn}} {
			if big.NewInt(c.acct).Cmp(c.recs) != 0 {
				return fmt.Errorf("%w: account %s is %s, the records add up to %s micro-credits", ErrInvariant, c.name, FormatAmount(c.acct), c.recs)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("check ledger: %w", err)
	}
	return nil
}

func sum(xs ...int64) *big.Int {
	t := new(big.Int)
	for _, x := range xs {
		t.Add(t, big.NewInt(x))
	}
	return t
}

func sumDeposits(txn *tx) (*big.Int, error) { return sumLog(txn, depositPrefix) }

// sumLog sums the amounts of a deposit or withdrawal log.
func sumLog(txn *tx, logPrefix string) (*big.Int, error) {
	total := new(big.Int)
	prefix := []byte(logPrefix)
	opts := badger.DefaultIteratorOptions
	opts.Prefix = prefix
	it := txn.txn.NewIterator(opts)
	defer it.Close()
	for it.Seek(prefix); it.ValidForPrefix(prefix); it.Next() {
		k := it.Item().KeyCopy(nil)
		if _, _, err := parseLogKey(k, logPrefix); err != nil {
			return nil, err
		}
		var d storedDeposit
		if err := getJSON(txn, k, &d); err != nil {
			return nil, err
		}
		total.Add(total, big.NewInt(d.Amount))
	}
	return total, nil
}
