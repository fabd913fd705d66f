package escrow_test

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/libp2p/go-libp2p/core/crypto"

	"github.com/swarmwage/swarmwage/escrow"
)

// A hire from lock to release, with the buyer and the seller each on its own
// node (here two in-memory databases; a node opens its Badger DB on disk
// with SyncWrites). Messages travel between the two as JSON.
func Example() {
	ctx := context.Background()
	open := func() (*escrow.Escrow, func()) {
		db, err := badger.Open(badger.DefaultOptions("").WithInMemory(true).WithLogger(nil))
		if err != nil {
			panic(err)
		}
		key, _, _ := crypto.GenerateEd25519Key(nil)
		e, err := escrow.New(db, key, escrow.WithLogger(slog.New(slog.DiscardHandler)))
		if err != nil {
			panic(err)
		}
		return e, func() { _ = e.Close(); _ = db.Close() }
	}
	buyer, closeBuyer := open()
	defer closeBuyer()
	seller, closeSeller := open()
	defer closeSeller()

	price, _ := escrow.ParseAmount("0.05")
	_ = buyer.Deposit(ctx, 10*escrow.MicroPerCredit, "test credits")

	// Buyer: hold the quoted price and send the signed lock with the job.
	lock, _ := buyer.Lock(ctx, escrow.LockParams{
		JobID: "job-1", Capability: "compute.statistics.mean", Seller: seller.ID(),
		Amount: price, Deadline: time.Now().Add(time.Minute), Window: time.Minute,
		Input: []byte(`{"data":[1,2,3]}`),
	})
	// Seller: check and record the lock, run the job, sign the delivery.
	input := []byte(`{"data":[1,2,3]}`)
	_, _ = seller.AcceptLock(ctx, lock, input)
	delivery, _ := seller.Deliver(ctx, "job-1", []byte(`{"mean":2}`))
	// Buyer: record the delivery, verify the output, release.
	_ = buyer.RecordDelivery(ctx, delivery, []byte(`{"mean":2}`))
	settle, _ := buyer.Release(ctx, "job-1")
	// Seller: apply the signed release and get credited.
	_ = seller.ApplySettle(ctx, settle)

	b, _ := buyer.Balance(ctx)
	s, _ := seller.Balance(ctx)
	rec, _ := seller.Get(ctx, "job-1")
	fmt.Println("seller state:", rec.State)
	fmt.Println("buyer available:", escrow.FormatAmount(b.Available), "paid:", escrow.FormatAmount(b.Paid))
	fmt.Println("seller earned:", escrow.FormatAmount(s.Earned))
	// Output:
	// seller state: released
	// buyer available: 9.95 paid: 0.05
	// seller earned: 0.05
}
