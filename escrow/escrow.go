package escrow

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
)

const (
	// ServiceName names this subsystem in logs.
	ServiceName = "swarmwage/escrow"
	// maxWindow caps a verification window: a hold longer than a month is
	// a mistake, not a policy.
	maxWindow = 30 * 24 * time.Hour
	// maxConflictRetries bounds the retries of a transaction that lost a
	// badger.ErrConflict race. Changes made through one Escrow are
	// serialized and never conflict; this covers writers we do not know of.
	maxConflictRetries = 8
	// maxMemoLen caps a deposit memo.
	maxMemoLen = 256
	// timerBatch is how many due timers FireDue reads per scan.
	timerBatch = 256
)

// Escrow is one node's ledger and escrow state machine, stored in the node's
// Badger DB under the escrow/, acct/ and receipt/ prefixes. It plays the
// buyer side of the jobs it locks and the seller side of the locks it
// accepts. All methods are safe for concurrent use. Every change is atomic:
// concurrent changes are applied one after the other and committed together
// in one Badger transaction (group commit, one fsync), so the account that
// almost every change touches never conflicts.
type Escrow struct {
	db   *badger.DB
	key  crypto.PrivKey
	self peer.ID
	cfg  config
	log  *slog.Logger

	commit  committer
	closeMu sync.RWMutex
	// accepting counts the locks checked and not yet done with
	// (PrepareAccept until Accepting.Close): commits on their way, which
	// ApplySettle waits to join.
	accepting atomic.Int64
	// lastAccept is when PrepareAccept last checked a lock (Unix ns, the
	// escrow's clock): a seller in a run of hires.
	lastAccept atomic.Int64

	// railMu guards railReserved: amounts being locked on the rail, per
	// role and counterparty, by the rail index key of their job
	// (reserveRail).
	railMu       sync.Mutex
	railReserved map[string]map[string]int64
	// held shared by changes in flight, exclusive by Close
	closed atomic.Bool

	ctx       context.Context
	cancel    context.CancelFunc
	wg        sync.WaitGroup
	started   atomic.Bool
	closeOnce sync.Once
}

// New returns an Escrow over db (opened by the node, with SyncWrites) that
// signs with key, the node's libp2p identity. It checks the stored schema
// version. It starts no goroutine: call Start for the timers. Close does
// not close db.
func New(db *badger.DB, key crypto.PrivKey, opts ...Option) (*Escrow, error) {
	if db == nil {
		return nil, errors.New("new escrow: db is nil")
	}
	if key == nil {
		return nil, errors.New("new escrow: key is nil")
	}
	cfg := defaultConfig()
	if err := cfg.apply(opts...); err != nil {
		return nil, fmt.Errorf("new escrow: %w", err)
	}
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("new escrow: %w", err)
	}
	self, err := peer.IDFromPrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("new escrow: peer ID of key: %w", err)
	}
	if !db.Opts().SyncWrites {
		cfg.logger.Warn("escrow DB opened without SyncWrites: a crash may lose committed money changes")
	}
	ctx, cancel := context.WithCancel(context.Background())
	e := &Escrow{
		db: db, key: key, self: self, cfg: cfg,
		log: cfg.logger.With("subsystem", ServiceName),
		ctx: ctx, cancel: cancel,
		railReserved: make(map[string]map[string]int64),
	}
	if err := e.checkSchema(); err != nil {
		cancel()
		return nil, fmt.Errorf("new escrow: %w", err)
	}
	if err := e.indexCreated(); err != nil {
		cancel()
		return nil, fmt.Errorf("new escrow: %w", err)
	}
	if err := e.buildRailSums(); err != nil {
		cancel()
		return nil, fmt.Errorf("new escrow: sum the rail index: %w", err)
	}
	return e, nil
}

// checkSchema writes the schema version on first use and refuses a store
// written by a newer release.
func (e *Escrow) checkSchema() error {
	return e.update(context.Background(), func(txn *tx) error {
		var s storedSchema
		err := getJSON(txn, schemaKey(), &s)
		switch {
		case errors.Is(err, ErrNotFound):
			return setJSON(txn, schemaKey(), storedSchema{V: schemaVersion})
		case err != nil:
			return err
		case s.V > schemaVersion:
			return fmt.Errorf("escrow store has schema version %d, this binary knows %d: upgrade swarmwage", s.V, schemaVersion)
		}
		return nil
	})
}

// ID returns the peer ID of the node key: the buyer of the jobs this node
// locks and the seller of the locks it accepts.
func (e *Escrow) ID() peer.ID { return e.self }

// Start launches the timers goroutine: it fires due deadlines and
// verification windows every timer interval, starting with those that fell
// due while the node was down. It stops when ctx is done or on Close.
func (e *Escrow) Start(ctx context.Context) error {
	if e.closed.Load() {
		return ErrClosed
	}
	if !e.started.CompareAndSwap(false, true) {
		return errors.New("escrow: already started")
	}
	e.wg.Add(1)
	go e.runTimers(ctx)
	return nil
}

// Close stops the timers and waits for them and for changes in flight. It
// is idempotent; later calls of other methods return ErrClosed. It does not
// close the DB.
func (e *Escrow) Close() error {
	e.closeOnce.Do(func() {
		e.cancel()
		e.closeMu.Lock() // wait for the changes in flight
		e.closed.Store(true)
		e.closeMu.Unlock()
		e.wg.Wait()
	})
	return nil
}

func (e *Escrow) now() time.Time { return e.cfg.now().UTC() }

// Deposit adds test credits to the available balance and logs the deposit
// with memo. Whether test credits are allowed on the node's network is the
// caller's decision.
func (e *Escrow) Deposit(ctx context.Context, amount int64, memo string) error {
	if e.closed.Load() {
		return ErrClosed
	}
	if amount <= 0 {
		return fmt.Errorf("deposit %s: %w: must be positive", FormatAmount(amount), ErrWrongAmount)
	}
	if len(memo) > maxMemoLen {
		return fmt.Errorf("deposit: memo longer than %d bytes", maxMemoLen)
	}
	nonce := make([]byte, 4)
	if _, err := rand.Read(nonce); err != nil {
		return fmt.Errorf("deposit: %w", err)
	}
	now := e.now()
	err := e.update(ctx, func(txn *tx) error {
		b, err := loadBalance(txn)
		if err != nil {
			return err
		}
		if amount > math.MaxInt64-(b.Deposited+b.Earned) {
			return fmt.Errorf("%w: the ledger total would overflow", ErrWrongAmount)
		}
		b.Available += amount
		b.Deposited += amount
		if err := setJSON(txn, depositKey(now, hex.EncodeToString(nonce)), storedDeposit{V: schemaVersion, Amount: amount, Memo: memo, At: now}); err != nil {
			return err
		}
		return saveBalance(txn, b)
	})
	if err != nil {
		return fmt.Errorf("deposit %s: %w", FormatAmount(amount), err)
	}
	e.log.Info("deposit", "amount", FormatAmount(amount), "memo", memo)
	return nil
}

// Balance returns the node's account.
func (e *Escrow) Balance(ctx context.Context) (Balance, error) {
	var b storedBalance
	err := e.view(ctx, func(txn *tx) error {
		var err error
		b, err = loadBalance(txn)
		return err
	})
	if err != nil {
		return Balance{}, fmt.Errorf("read balance: %w", err)
	}
	return Balance{Available: b.Available, Held: b.Held, Paid: b.Paid, Deposited: b.Deposited, Earned: b.Earned, Pending: b.Pending, Withdrawn: b.Withdrawn}, nil
}

// getJSON reads key into v; a missing key is ErrNotFound.
func getJSON(txn *tx, key []byte, v any) error {
	val, err := txn.get(key)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(val, v); err != nil {
		return fmt.Errorf("decode %s: %w", key, err)
	}
	return nil
}

func setJSON(txn *tx, key []byte, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", key, err)
	}
	if err := txn.set(key, b); err != nil {
		return fmt.Errorf("write %s: %w", key, err)
	}
	return nil
}

func loadBalance(txn *tx) (storedBalance, error) {
	var b storedBalance
	err := getJSON(txn, balanceKey(), &b)
	if errors.Is(err, ErrNotFound) {
		return storedBalance{V: schemaVersion}, nil
	}
	if err != nil {
		return b, err
	}
	if b.V > schemaVersion {
		return b, fmt.Errorf("balance has schema version %d, this binary knows %d: upgrade swarmwage", b.V, schemaVersion)
	}
	return b, nil
}

func saveBalance(txn *tx, b storedBalance) error {
	b.V = schemaVersion
	if b.Available < 0 || b.Held < 0 || b.Paid < 0 || b.Deposited < 0 || b.Earned < 0 || b.Pending < 0 || b.Withdrawn < 0 {
		// A bug, never a peer's doing: refuse to commit it.
		return fmt.Errorf("%w: negative field in %+v", ErrInvariant, b)
	}
	return setJSON(txn, balanceKey(), b)
}

func loadRecord(txn *tx, role Role, jobID string) (*storedRecord, error) {
	var r storedRecord
	if err := getJSON(txn, jobKey(role, jobID), &r); err != nil {
		return nil, err
	}
	if r.V > schemaVersion {
		return nil, fmt.Errorf("escrow record %s has schema version %d, this binary knows %d: upgrade swarmwage", jobID, r.V, schemaVersion)
	}
	return &r, nil
}

// saveRecord writes r and moves its timer index entry: the old one (if
// prev was open) goes, a new one at r.DueAt comes if r is open. On a rail
// it also moves the record's entry in the rail's open index (rail.go).
func saveRecord(txn *tx, prev, r *storedRecord) error {
	if err := moveRailOpen(txn, prev, r); err != nil {
		return err
	}
	if err := moveRailWatch(txn, prev, r); err != nil {
		return err
	}
	if prev != nil && prev.timed() {
		if err := txn.delete(dueKey(prev.DueAt, prev.Role, prev.JobID)); err != nil {
			return fmt.Errorf("delete timer of %s: %w", prev.JobID, err)
		}
	}
	if r.timed() {
		if err := txn.set(dueKey(r.DueAt, r.Role, r.JobID), nil); err != nil {
			return fmt.Errorf("write timer of %s: %w", r.JobID, err)
		}
	} else {
		r.DueAt = time.Time{}
	}
	r.V = schemaVersion
	return setJSON(txn, jobKey(r.Role, r.JobID), r)
}

func putReceipt(txn *tx, jobID string, role Role, kind string, msg json.Marshaler) error {
	b, err := msg.MarshalJSON()
	if err != nil {
		return fmt.Errorf("encode %s receipt of %s: %w", kind, jobID, err)
	}
	return setJSON(txn, receiptKey(jobID, role, kind), storedReceipt{V: schemaVersion, Msg: b})
}

func hasReceipt(txn *tx, jobID string, role Role, kind string) (bool, error) {
	_, err := txn.get(receiptKey(jobID, role, kind))
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

func loadLock(txn *tx, jobID string, role Role) (*Lock, error) {
	var r storedReceipt
	if err := getJSON(txn, receiptKey(jobID, role, receiptLock), &r); err != nil {
		return nil, fmt.Errorf("lock receipt of %s: %w", jobID, err)
	}
	var l Lock
	if err := l.UnmarshalJSON(r.Msg); err != nil {
		return nil, fmt.Errorf("lock receipt of %s: %w", jobID, err)
	}
	return &l, nil
}

func loadDelivery(txn *tx, jobID string, role Role) (*Delivery, error) {
	var r storedReceipt
	if err := getJSON(txn, receiptKey(jobID, role, receiptDelivery), &r); err != nil {
		return nil, fmt.Errorf("delivery receipt of %s: %w", jobID, err)
	}
	var d Delivery
	if err := d.UnmarshalJSON(r.Msg); err != nil {
		return nil, fmt.Errorf("delivery receipt of %s: %w", jobID, err)
	}
	return &d, nil
}

func loadSettle(txn *tx, jobID string, role Role) (*Settle, error) {
	var r storedReceipt
	if err := getJSON(txn, receiptKey(jobID, role, receiptSettle), &r); err != nil {
		return nil, fmt.Errorf("settle receipt of %s: %w", jobID, err)
	}
	var s Settle
	if err := s.UnmarshalJSON(r.Msg); err != nil {
		return nil, fmt.Errorf("settle receipt of %s: %w", jobID, err)
	}
	return &s, nil
}

// notify calls the OnSettle hook with the committed record of a job that
// just reached a final state, read back with its evidence.
func (e *Escrow) notify(ctx context.Context, role Role, jobID string) {
	if e.cfg.onSettle == nil {
		return
	}
	rec, err := e.GetRole(context.WithoutCancel(ctx), jobID, role)
	if err != nil {
		e.log.Warn("read settled job for the settle hook", "job", jobID, "role", role, "err", err)
		return
	}
	e.cfg.onSettle(rec)
}

// notifySettled calls the OnSettle hook with rec, the record a hire's
// settle (the buyer's decision, the seller's applying it) just committed,
// with that settle and without the lock and delivery: reading them back
// was most of what the hook cost a hire (issue 25).
func (e *Escrow) notifySettled(rec Record) {
	if e.cfg.onSettle != nil {
		e.cfg.onSettle(rec)
	}
}
