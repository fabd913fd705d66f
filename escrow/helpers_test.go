package escrow_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
)

// fakeClock is the injected clock: time moves only when a test says so.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// testNode is one node: its own Badger DB in a temp dir, key and Escrow.
type testNode struct {
	dir   string
	key   crypto.PrivKey
	id    peer.ID
	clock *fakeClock
	opts  []escrow.Option
	db    *badger.DB
	e     *escrow.Escrow

	mu      sync.Mutex
	settled []escrow.Record // what the OnSettle hook saw
}

const testGrace = 5 * time.Second

func openDB(tb testing.TB, dir string) *badger.DB {
	tb.Helper()
	opts := badger.DefaultOptions(dir).
		WithSyncWrites(os.Getenv("NOSYNC") == "").
		WithLogger(nil).
		WithMemTableSize(8 << 20).
		WithValueThreshold(1 << 10).
		WithNumMemtables(2).
		WithValueLogFileSize(8 << 20).
		WithBlockCacheSize(4 << 20).
		WithIndexCacheSize(2 << 20)
	db, err := badger.Open(opts)
	require.NoError(tb, err)
	return db
}

func newKey(tb testing.TB) crypto.PrivKey {
	tb.Helper()
	k, _, err := crypto.GenerateEd25519Key(nil)
	require.NoError(tb, err)
	return k
}

func setupNode(tb testing.TB, clock *fakeClock, opts ...escrow.Option) *testNode {
	tb.Helper()
	key := newKey(tb)
	id, err := peer.IDFromPrivateKey(key)
	require.NoError(tb, err)
	n := &testNode{dir: tb.TempDir(), key: key, id: id, clock: clock, opts: opts}
	n.open(tb)
	tb.Cleanup(func() { n.close(tb) })
	return n
}

func (n *testNode) open(tb testing.TB) {
	tb.Helper()
	n.db = openDB(tb, n.dir)
	opts := append([]escrow.Option{
		escrow.WithClock(n.clock.Now),
		escrow.WithLogger(slog.New(slog.DiscardHandler)),
		escrow.WithSettleGrace(testGrace),
		escrow.WithOnSettle(func(r escrow.Record) {
			n.mu.Lock()
			defer n.mu.Unlock()
			n.settled = append(n.settled, r)
		}),
	}, n.opts...)
	e, err := escrow.New(n.db, n.key, opts...)
	require.NoError(tb, err)
	n.e = e
}

func (n *testNode) close(tb testing.TB) {
	tb.Helper()
	if n.e == nil {
		return
	}
	require.NoError(tb, n.e.Close())
	require.NoError(tb, n.db.Close())
	n.e, n.db = nil, nil
}

// reopen simulates a restart: close the Escrow and the DB, open both again.
func (n *testNode) reopen(tb testing.TB) {
	tb.Helper()
	n.close(tb)
	n.open(tb)
}

func (n *testNode) hooks() []escrow.Record {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]escrow.Record(nil), n.settled...)
}

func (n *testNode) balance(tb testing.TB) escrow.Balance {
	tb.Helper()
	b, err := n.e.Balance(context.Background())
	require.NoError(tb, err)
	return b
}

func (n *testNode) state(tb testing.TB, jobID string, role escrow.Role) escrow.State {
	tb.Helper()
	r, err := n.e.GetRole(context.Background(), jobID, role)
	require.NoError(tb, err)
	return r.State
}

func (n *testNode) requireInvariant(tb testing.TB) {
	tb.Helper()
	require.NoError(tb, n.e.CheckInvariant(context.Background()))
}

func hashOf(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

const (
	credit      = escrow.MicroPerCredit
	testPrice   = 50_000 // 0.05
	testWindow  = time.Minute
	testTimeout = 10 * time.Minute
)

// pair is a buyer with 10 credits and a seller, on one clock.
type pair struct {
	clock  *fakeClock
	buyer  *testNode
	seller *testNode
}

func setupPair(tb testing.TB) *pair {
	tb.Helper()
	clock := newClock()
	p := &pair{clock: clock, buyer: setupNode(tb, clock), seller: setupNode(tb, clock)}
	require.NoError(tb, p.buyer.e.Deposit(context.Background(), 10*credit, "test credits"))
	return p
}

func (p *pair) lockParams(jobID string) escrow.LockParams {
	return escrow.LockParams{
		JobID: jobID, QuoteID: "q-" + jobID, Capability: "compute.statistics.mean",
		Seller: p.seller.id, Amount: testPrice,
		Deadline: p.clock.Now().Add(testTimeout), Window: testWindow,
	}
}

// acceptLock accepts l with an empty input (the locks of these tests commit
// to none).
func acceptLock(e *escrow.Escrow, ctx context.Context, l *escrow.Lock) error {
	_, err := e.AcceptLock(ctx, l, nil)
	return err
}

// lock locks on the buyer and accepts on the seller.
func (p *pair) lock(tb testing.TB, jobID string) *escrow.Lock {
	tb.Helper()
	ctx := context.Background()
	l, err := p.buyer.e.Lock(ctx, p.lockParams(jobID))
	require.NoError(tb, err)
	require.NoError(tb, acceptLock(p.seller.e, ctx, l))
	return l
}

// deliver delivers on the seller and records it on the buyer.
func (p *pair) deliver(tb testing.TB, jobID string) *escrow.Delivery {
	tb.Helper()
	ctx := context.Background()
	d, err := p.seller.e.Deliver(ctx, jobID, []byte("output of "+jobID))
	require.NoError(tb, err)
	require.NoError(tb, p.buyer.e.RecordDelivery(ctx, d, []byte("output of "+jobID)))
	// The buyer verified it; its hold waits for the window (the flow of a
	// capability without a standard verifier).
	require.NoError(tb, p.buyer.e.Accept(ctx, jobID))
	return d
}

type badgerTxn = badger.Txn
