package evm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/swarmwage/swarmwage/escrow"
)

// Defaults of SettlerConfig.
const (
	// DefaultRedeemInterval is the longest a seller's release voucher
	// waits for its batch: a busy seller redeems as soon as
	// DefaultRedeemBatch vouchers are queued, a quiet one at least this
	// often. Batches cut the gas per voucher from about 85k (alone) to 36k
	// (100 a batch); the money is the seller's either way (a release cannot
	// be taken back), so the wait only delays when it is in its address.
	DefaultRedeemInterval = time.Minute
	// DefaultRedeemBatch is how many vouchers fill a batch.
	DefaultRedeemBatch = 100
	// DefaultReconcileInterval is how often the node reads the escrow's
	// events for its jobs and money.
	DefaultReconcileInterval = 5 * time.Second
	// DefaultLineChunkFactor: without a configured chunk, a buyer grows
	// the line of a seller that accepted a job of it to back this many more
	// jobs at the hire's price (at least what is short), so a run of hires
	// with one seller costs a few allocations. A seller's first allocation
	// is only what its first job needs: a seller that refuses the lock
	// keeps no more than that in its line.
	DefaultLineChunkFactor = 10
	// defaultLookback is how far before the confirmed head a node with no
	// reconcile cursor starts reading events (its deposits through 'wallet
	// deposit' are booked as they are made).
	defaultLookback = 10_000
	// claimMargin: a lock is claimed this long after its not-before, so
	// the block that includes the claim is surely past it.
	claimMargin = 2 * time.Second
	// dialBackoff is the least time between two attempts to reach a chain
	// that was down.
	dialBackoff = 2 * time.Second
	// dialTimeout bounds one attempt to reach the chain.
	dialTimeout = 10 * time.Second
	// maxCancelBatch bounds the jobs of one cancel transaction.
	maxCancelBatch = 100
	// DefaultHireRPCTimeout bounds each RPC request a hire waits on (the
	// buyer's PrepareLock, the seller's CheckLock, reaching the chain): a
	// few seconds, so a hire against an endpoint that accepts connections
	// and never answers fails with "chain unreachable" quickly. The
	// background work (reconcile, redeem) keeps RPCRequestTimeout.
	DefaultHireRPCTimeout = 5 * time.Second
)

// SettlerConfig configures a Settler.
type SettlerConfig struct {
	// Config is the chain, contract and token (Open).
	Config
	// RedeemInterval: 0 means DefaultRedeemInterval.
	RedeemInterval time.Duration
	// RedeemBatch: 0 means DefaultRedeemBatch; at most 200 (a block's gas).
	RedeemBatch int
	// ReconcileInterval: 0 means DefaultReconcileInterval.
	ReconcileInterval time.Duration
	// LineChunk is the least a buyer allocates to a seller's line when it
	// must allocate (token base units); 0 means DefaultLineChunkFactor
	// times the hire's price.
	LineChunk int64
	// WatchDepth is how many blocks past its block a recorded chain
	// outcome or allocation is checked for a reorg; 0 means
	// DefaultWatchDepth.
	WatchDepth uint64
	// HireRPCTimeout bounds each RPC request a hire waits on; 0 means
	// DefaultHireRPCTimeout.
	HireRPCTimeout time.Duration
}

// Settler is the evm rail of one node as its escrow sees it: it implements
// escrow.Rail (lock and release vouchers, coverage checks at the
// confirmation depth), and in the background it reconciles the node's
// jobs and money from the escrow contract's events, redeems release
// vouchers in batches, claims locks of silent buyers after their
// not-before, and cancels refunded jobs on chain until the cancel is
// mined. It reaches the chain lazily: a node starts with the chain down,
// and every chain step fails with escrow.ErrRailUnavailable until it is
// back. Safe for concurrent use.
type Settler struct {
	cfg SettlerConfig
	key *Key
	log *slog.Logger

	railMu  sync.Mutex
	rail    *Rail
	dialErr error
	dialAt  time.Time
	domain  *Domain // known once the chain was reached (or from the stored state)

	escMu sync.Mutex
	esc   *escrow.Escrow

	cacheMu sync.Mutex
	head    *types.Header
	headAt  time.Time
	minHead uint64 // a head older than this misses the node's own latest transaction
	lines   map[[2]common.Address]cachedLine

	paidMu sync.Mutex
	paid   map[common.Address]paidNotBooked // redeemed on chain, not yet in the escrow

	sellerMu sync.Mutex
	sellers  map[common.Address]*sync.Mutex // a buyer allocates to one seller at a time
	topping  map[common.Address]bool        // a background top-up runs
	// fundMu: one allocation from the free deposit at a time (a hire's,
	// a top-up's, a grow's, whatever the seller), so none reads a free
	// balance another is about to take and reverts with Insufficient.
	// Taken after a seller's lock, never before; watchState's allocMu is
	// taken after it.
	fundMu sync.Mutex
	proven map[common.Address]bool // a job of this node's with the seller was released

	kick        chan struct{}
	force       chan struct{} // redeem now
	backoffMu   sync.Mutex
	backoff     map[string]time.Time // job work that failed waits until then
	redeemMu    sync.Mutex           // one redeem pass at a time
	cancelMu    sync.Mutex           // one cancel pass at a time
	down        atomic.Bool          // the chain was last found down (logged once)
	reconcileMu sync.Mutex           // one reconcile at a time

	statsMu sync.Mutex
	stats   Stats

	payments *paymentCache // Paid events of transactions receipts name

	watchState // reorgs deeper than the confirmation depth (watch.go)

	ctx       context.Context
	cancel    context.CancelFunc
	wg        sync.WaitGroup
	started   bool
	closeOnce sync.Once
}

type cachedLine struct {
	line Line
	head common.Hash // the confirmed head it was read at (a reorg replaces it)
}

var (
	_ escrow.Rail           = (*Settler)(nil)
	_ escrow.PaymentProver  = (*Settler)(nil)
	_ escrow.PaymentChecker = (*Settler)(nil)
)

// NewSettler returns the rail of the node with key. It does not reach the
// chain; Start launches the background work.
func NewSettler(cfg SettlerConfig, key *Key) (*Settler, error) {
	if key == nil {
		return nil, errors.New("evm: new settler: no key")
	}
	if cfg.RPC == "" {
		return nil, errors.New("evm: new settler: no RPC URL")
	}
	if cfg.Escrow == (common.Address{}) || cfg.Token == (common.Address{}) {
		return nil, errors.New("evm: new settler: escrow and token addresses are needed")
	}
	if cfg.RedeemInterval <= 0 {
		cfg.RedeemInterval = DefaultRedeemInterval
	}
	if cfg.RedeemBatch <= 0 {
		cfg.RedeemBatch = DefaultRedeemBatch
	}
	if cfg.RedeemBatch > maxBatch {
		return nil, fmt.Errorf("evm: new settler: redeem batch %d: at most %d", cfg.RedeemBatch, maxBatch)
	}
	if cfg.ReconcileInterval <= 0 {
		cfg.ReconcileInterval = DefaultReconcileInterval
	}
	if cfg.LineChunk < 0 {
		return nil, fmt.Errorf("evm: new settler: line chunk %d: must not be negative", cfg.LineChunk)
	}
	if cfg.Confirmations == 0 {
		cfg.Confirmations = DefaultConfirmations
	}
	if cfg.WatchDepth == 0 {
		cfg.WatchDepth = DefaultWatchDepth
	}
	if cfg.HireRPCTimeout <= 0 {
		cfg.HireRPCTimeout = DefaultHireRPCTimeout
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = DefaultPollInterval
	}
	if cfg.TxTimeout <= 0 {
		cfg.TxTimeout = DefaultTxTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Settler{
		cfg: cfg, key: key,
		log:     cfg.Logger.With("subsystem", "swarmwage/escrow/evm", "escrow", cfg.Escrow.Hex()),
		lines:   make(map[[2]common.Address]cachedLine),
		sellers: make(map[common.Address]*sync.Mutex),
		paid:    make(map[common.Address]paidNotBooked),
		topping: make(map[common.Address]bool),
		proven:  make(map[common.Address]bool),
		kick:    make(chan struct{}, 1),
		force:   make(chan struct{}, 1),
		backoff: make(map[string]time.Time),
		ctx:     ctx, cancel: cancel,
		stats:      Stats{ByKind: map[string]int{}, Fee: new(big.Int)},
		payments:   newPaymentCache(),
		watchState: watchState{watchSeen: make(map[string]uint64)},
	}, nil
}

// Start attaches the node's escrow and launches the background work:
// reconcile at once and every ReconcileInterval, cancels, redemptions and
// claims. It reads the chain's domain stored by an earlier run, so
// releases can be signed while the chain is down.
func (s *Settler) Start(esc *escrow.Escrow) error {
	if esc == nil {
		return errors.New("evm: start settler: no escrow")
	}
	s.escMu.Lock()
	defer s.escMu.Unlock()
	if s.started {
		return errors.New("evm: settler already started")
	}
	s.started, s.esc = true, esc
	s.railMu.Lock()
	reached := s.rail
	s.railMu.Unlock()
	if reached != nil { // reached before the escrow was attached
		s.storeDomain(s.ctx, esc, reached)
	}
	var d storedDomain
	if ok, err := esc.RailState(s.ctx, s.stateName("domain"), &d); err == nil && ok && d.ChainID > 0 {
		s.railMu.Lock()
		if s.domain == nil {
			s.domain = &Domain{ChainID: big.NewInt(d.ChainID), Escrow: s.cfg.Escrow}
		}
		s.railMu.Unlock()
	}
	s.wg.Add(1)
	go s.run()
	return nil
}

// Attach gives the settler the node's escrow without background work: for
// commands that run once (wallet deposit, withdraw, balance offline).
func (s *Settler) Attach(esc *escrow.Escrow) {
	s.escMu.Lock()
	defer s.escMu.Unlock()
	s.esc = esc
}

// Close stops the background work and closes the connection. Idempotent.
func (s *Settler) Close() error {
	s.closeOnce.Do(func() {
		s.cancel()
		s.wg.Wait()
		s.railMu.Lock()
		if s.rail != nil {
			s.rail.Close()
		}
		s.railMu.Unlock()
	})
	return nil
}

func (s *Settler) escrow() *escrow.Escrow {
	s.escMu.Lock()
	defer s.escMu.Unlock()
	return s.esc
}

// stateName scopes a rail state name to this chain deployment.
func (s *Settler) stateName(what string) string {
	return "evm/" + s.cfg.Escrow.Hex() + "/" + what
}

type storedDomain struct {
	ChainID int64 `json:"chain_id"`
	// NoticeS is the escrow's withdrawal notice in seconds (immutable in
	// the contract), so a seller started while the chain is down still
	// knows its accept horizon.
	NoticeS int64 `json:"notice_s,omitempty"`
}

// storeDomain remembers the reached chain's ID and the escrow's notice in
// the escrow's rail state.
func (s *Settler) storeDomain(ctx context.Context, esc *escrow.Escrow, r *Rail) {
	d := r.Domain()
	if esc == nil || !d.ChainID.IsInt64() {
		return
	}
	if err := esc.SetRailState(ctx, s.stateName("domain"), storedDomain{ChainID: d.ChainID.Int64(), NoticeS: int64(r.Notice() / time.Second)}); err != nil {
		s.log.Warn("store the chain ID and the escrow's notice", "err", err)
	}
}

// StoredAcceptHorizon is the accept horizon (Rail.AcceptHorizon: half the
// escrow's notice) from the notice esc stored when this node last reached
// the chain; false if it never did. For a seller that starts while the
// chain is down.
func (s *Settler) StoredAcceptHorizon(ctx context.Context, esc *escrow.Escrow) (time.Duration, bool) {
	var d storedDomain
	if ok, err := esc.RailState(ctx, s.stateName("domain"), &d); err != nil || !ok || d.NoticeS <= 0 {
		return 0, false
	}
	return time.Duration(d.NoticeS) * time.Second / 2, true
}

// Chain returns the connected rail, dialing it if needed (at most every
// dialBackoff). The error wraps escrow.ErrRailUnavailable while the chain
// cannot be reached, and ErrWrongChain when the RPC serves no escrow for
// the token at the address.
func (s *Settler) Chain(ctx context.Context) (*Rail, error) {
	s.railMu.Lock()
	defer s.railMu.Unlock()
	if s.rail != nil {
		return s.rail, nil
	}
	if s.dialErr != nil && time.Since(s.dialAt) < dialBackoff {
		return nil, s.dialErr
	}
	// Reaching the chain is four small reads: each gets the short
	// timeout of a hire's requests, whoever asks (a hire waits on the
	// worker's dial under railMu).
	dctx, cancel := context.WithTimeout(withRPCTimeout(ctx, s.cfg.HireRPCTimeout), dialTimeout)
	defer cancel()
	r, err := Open(dctx, s.cfg.Config, s.key)
	s.dialAt = time.Now()
	if err != nil {
		if errors.Is(err, ErrChainDown) {
			// The message a user reads first: which endpoint is down.
			err = fmt.Errorf("%w: %s (%v)", ErrChainDown, redactURL(s.cfg.RPC), innermost(err))
		}
		s.dialErr = railErr(fmt.Errorf("reach the chain: %w", err))
		return nil, s.dialErr
	}
	if s.domain != nil && s.domain.ChainID.Cmp(r.Domain().ChainID) != 0 {
		r.Close()
		s.dialErr = fmt.Errorf("%w: %s now serves chain %s; this node's jobs are on chain %s", ErrWrongChain, redactURL(s.cfg.RPC), r.Domain().ChainID, s.domain.ChainID)
		return nil, s.dialErr
	}
	r.onMisbehave = func(string) { s.countDisagreement() }
	s.rail, s.dialErr = r, nil
	d := r.Domain()
	s.domain = &d
	s.storeDomain(ctx, s.escrow(), r)
	s.log.Info("chain reached", "rpc", redactURL(s.cfg.RPC), "chain_id", d.ChainID, "notice", r.Notice(), "confirmations", r.Confirmations())
	return r, nil
}

// innermost is the error at the end of err's chain: "connection
// refused", "context deadline exceeded".
func innermost(err error) error {
	for {
		var next error
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			next = u.Unwrap()
		case interface{ Unwrap() []error }:
			if es := u.Unwrap(); len(es) > 0 {
				next = es[len(es)-1]
			}
		}
		if next == nil {
			return err
		}
		err = next
	}
}

// knownDomain is the EIP-712 domain, if the chain was ever reached.
func (s *Settler) knownDomain() (Domain, error) {
	s.railMu.Lock()
	defer s.railMu.Unlock()
	if s.domain == nil {
		return Domain{}, fmt.Errorf("%w: the chain at %s was never reached, so its chain ID is unknown", escrow.ErrRailUnavailable, redactURL(s.cfg.RPC))
	}
	return *s.domain, nil
}

// railErr wraps a chain error in the escrow's sentinel its callers branch
// on, keeping the evm one (errors.Is finds both).
func railErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrNotCovered):
		return fmt.Errorf("%w: %w", escrow.ErrNotCovered, err)
	case errors.Is(err, ErrChainDown), errors.Is(err, ErrReorg), errors.Is(err, ErrNoGas):
		return fmt.Errorf("%w: %w", escrow.ErrRailUnavailable, err)
	case errors.Is(err, ErrBadSignature):
		return fmt.Errorf("%w: %w", escrow.ErrForged, err)
	case errors.Is(err, ErrInvalidVoucher):
		return fmt.Errorf("%w: %w", escrow.ErrInvalidMessage, err)
	}
	return err
}

// ---- escrow.Rail ------------------------------------------------------------

// Name is escrow.RailEVM.
func (s *Settler) Name() string { return escrow.RailEVM }

// Address is the node's address (checksummed hex).
func (s *Settler) Address() string { return s.key.Address().Hex() }

// CheckAddress accepts 0x and 40 hex digits, not the zero address, and
// returns the checksummed form.
func (s *Settler) CheckAddress(addr string) (string, error) {
	if !common.IsHexAddress(addr) {
		return "", fmt.Errorf("%q is not an evm address (0x and 40 hex digits)", truncate(addr))
	}
	a := common.HexToAddress(addr)
	if a == (common.Address{}) {
		return "", errors.New("the zero address cannot be paid")
	}
	return a.Hex(), nil
}

// JobRef is the contract's job id of jobID, 0x-hex.
func (s *Settler) JobRef(jobID string) string {
	id := JobID(jobID)
	return hexutil.Encode(id[:])
}

func (s *Settler) sellerLock(seller common.Address) *sync.Mutex {
	s.sellerMu.Lock()
	defer s.sellerMu.Unlock()
	mu, ok := s.sellers[seller]
	if !ok {
		mu = &sync.Mutex{}
		s.sellers[seller] = mu
	}
	return mu
}

// PrepareLock makes the node's line for t's seller back open + t.Amount,
// allocating from the free deposit when it is short (the first time only
// what is short; once the seller has accepted a job, a chunk: see
// coverLine), and signs the lock voucher. The line is read at the confirmation depth; a
// reading is reused while the confirmed head has not moved.
func (s *Settler) PrepareLock(ctx context.Context, t escrow.LockTerms, open int64) (json.RawMessage, error) {
	ctx = withRPCTimeout(ctx, s.cfg.HireRPCTimeout)
	r, err := s.Chain(ctx)
	if err != nil {
		return nil, err
	}
	seller := common.HexToAddress(t.SellerAddress)
	if err := s.coverLine(ctx, r, seller, open+t.Amount, t.Amount); err != nil {
		return nil, err
	}
	l, err := r.SignLock(t.JobID, seller, t.Amount, t.NotBefore)
	if err != nil {
		return nil, railErr(err)
	}
	return json.Marshal(l)
}

// lineChunk is what the node allocates to a seller's line when it must: at
// least the line again (a busy seller's line doubles, so a run of hires
// allocates a few times, not every chunk), at least the configured chunk
// or DefaultLineChunkFactor hires.
func (s *Settler) lineChunk(amount int64, line Line) int64 {
	if s.cfg.LineChunk > 0 {
		return s.cfg.LineChunk
	}
	return max(DefaultLineChunkFactor*amount, line.Balance)
}

// coverLine makes the node's line to seller back need, allocating from the
// free deposit if it does not (one seller at a time, so concurrent hires
// allocate once). Until a job with the seller was accepted (this node
// signed its release, see grow), it allocates only what is short: a seller
// that refuses every lock (its accept horizon, its coverage check) then
// holds at most one job's amount of the buyer's deposit, not a chunk.
// After that it allocates at least a chunk, and when what is left after
// need runs below half a chunk it tops the line up in the background, so
// hires do not wait for the allocation's block.
func (s *Settler) coverLine(ctx context.Context, r *Rail, seller common.Address, need, amount int64) error {
	mu := s.sellerLock(seller)
	mu.Lock()
	defer mu.Unlock()
	line, err := s.lineOf(ctx, r, r.Address(), seller, false)
	if err != nil {
		return railErr(fmt.Errorf("read the line to %s: %w", seller, err))
	}
	if line.Available() < need {
		if line, err = s.lineOf(ctx, r, r.Address(), seller, true); err != nil {
			return railErr(fmt.Errorf("read the line to %s: %w", seller, err))
		}
	}
	chunk := s.lineChunk(amount, line)
	proven := s.isProven(seller)
	if line.Available() >= need {
		if proven && line.Available()-need < chunk/2 {
			s.topUp(r, seller, chunk)
		}
		return nil
	}
	if !proven {
		chunk = 0 // only what this job needs
	}
	s.fundMu.Lock()
	res, err := r.EnsureLine(ctx, seller, need, chunk)
	s.fundMu.Unlock()
	s.countTx("allocate", res)
	s.dropLine(r.Address(), seller, blockOf(res))
	if err != nil {
		return railErr(fmt.Errorf("fund the line to %s: %w", seller, err))
	}
	s.watchAlloc(ctx, seller, need, res)
	s.addLineSeller(ctx, seller)
	return nil
}

func (s *Settler) isProven(seller common.Address) bool {
	s.sellerMu.Lock()
	defer s.sellerMu.Unlock()
	return s.proven[seller]
}

// grow notes that seller accepted a job of amount of this node's (its
// release is signed) and, the first time, if the line is below half a
// chunk, tops it up in the background to back the next jobs: a seller
// earns a larger line by doing jobs, never before. Best effort: a chain that is down leaves the
// next hire to allocate what it needs.
func (s *Settler) grow(seller common.Address, amount int64) {
	s.sellerMu.Lock()
	was := s.proven[seller]
	s.proven[seller] = true
	s.sellerMu.Unlock()
	if was {
		// coverLine tops a proven seller's line up as hires use it. A
		// fresh read of the line here, under the seller's lock, on every
		// release held every other hire of the seller up (issue 25).
		return
	}
	s.railMu.Lock()
	r := s.rail
	s.railMu.Unlock()
	if r == nil {
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		// Under the seller's lock, as coverLine: a hire allocating at the
		// same time must see this allocation, not race it for the same
		// free deposit.
		mu := s.sellerLock(seller)
		mu.Lock()
		defer mu.Unlock()
		line, err := s.lineOf(s.ctx, r, r.Address(), seller, true)
		if err != nil {
			return
		}
		chunk := s.lineChunk(amount, line)
		if line.Available() >= chunk/2 {
			return
		}
		s.fundMu.Lock()
		defer s.fundMu.Unlock()
		free, err := r.esc.Free(&bind.CallOpts{Context: s.ctx}, r.Address())
		if err != nil {
			return
		}
		if amount := min(chunk, amountOf(free)); amount > 0 {
			res, err := r.Allocate(s.ctx, seller, amount)
			s.countTx("allocate", res)
			s.dropLine(r.Address(), seller, blockOf(res))
			if err != nil {
				s.log.Debug("grow a line", "seller", seller, "err", err)
			}
		}
	}()
}

// topUp allocates chunk (or what the free deposit has) to seller's line in
// the background, once at a time per seller.
func (s *Settler) topUp(r *Rail, seller common.Address, chunk int64) {
	s.sellerMu.Lock()
	if s.topping[seller] {
		s.sellerMu.Unlock()
		return
	}
	s.topping[seller] = true
	s.sellerMu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer func() {
			s.sellerMu.Lock()
			delete(s.topping, seller)
			s.sellerMu.Unlock()
		}()
		s.fundMu.Lock()
		free, err := r.esc.Free(&bind.CallOpts{Context: s.ctx}, r.Address())
		if err != nil {
			s.fundMu.Unlock()
			return
		}
		amount := min(chunk, amountOf(free))
		if amount <= 0 {
			s.fundMu.Unlock()
			return // nothing to allocate: the next hire that needs it says so
		}
		res, err := r.Allocate(s.ctx, seller, amount)
		s.fundMu.Unlock()
		s.countTx("allocate", res)
		s.dropLine(r.Address(), seller, blockOf(res))
		if err != nil {
			s.log.Debug("top up a line", "seller", seller, "err", err)
			return
		}
		s.watchAlloc(s.ctx, seller, amount, res)
		s.addLineSeller(s.ctx, seller)
	}()
}

// CheckLock checks a buyer's lock voucher before the job starts: it is the
// lock's own (job, parties, amount, not-before), signed by the buyer for
// this escrow and chain, its not-before within the accept horizon (half
// the escrow's notice), the job is open on chain, and the buyer's line
// covers it with open (this node's unsettled locks from the buyer) at the
// confirmation depth.
func (s *Settler) CheckLock(ctx context.Context, t escrow.LockTerms, proof json.RawMessage, open int64) error {
	l, err := s.voucherOf(t, proof)
	if err != nil {
		return err
	}
	ctx = withRPCTimeout(ctx, s.cfg.HireRPCTimeout)
	r, err := s.Chain(ctx)
	if err != nil {
		return err
	}
	if err := r.domain.VerifyLock(l); err != nil {
		return railErr(err)
	}
	now := time.Now()
	if horizon := unixCeil(now.Add(r.AcceptHorizon())); l.NotBefore > horizon {
		return fmt.Errorf("%w: %w: not-before %s lies beyond this seller's accept horizon (%s, half the escrow's notice); the job's deadline and verification window must fit in it",
			escrow.ErrInvalidMessage, ErrInvalidVoucher, time.Unix(int64(l.NotBefore), 0).UTC().Format(time.RFC3339), r.AcceptHorizon())
	}
	for attempt := 0; ; attempt++ {
		head, err := s.confirmedHead(ctx, r, attempt > 0)
		if err != nil {
			return railErr(fmt.Errorf("check lock: %w", err))
		}
		if attempt == 0 {
			call := &bind.CallOpts{Context: ctx, BlockHash: head.Hash()}
			j, err := r.esc.Job(call, l.Buyer, l.Seller, l.JobID)
			if err != nil {
				return railErr(classify("read the job on chain", err, r.abis...))
			}
			if j.State != 0 {
				return fmt.Errorf("%w: %w: job %x is already %s on chain", escrow.ErrInvalidMessage, ErrInvalidVoucher, l.JobID[:6], jobStateName(j.State))
			}
		}
		line, err := s.lineAt(ctx, r, head, l.Buyer, l.Seller)
		if err != nil {
			return railErr(fmt.Errorf("check lock: %w", err))
		}
		avail := line.Available() - open
		if p := s.pendingPaid(l.Buyer); p.amount > 0 && line.Block >= p.block {
			// This node's redeem of that block paid p.amount from the line
			// and the escrow does not know yet: open still counts it.
			avail += p.amount
		}
		if avail >= l.Amount {
			return nil
		}
		if attempt > 0 {
			return railErr(fmt.Errorf("%w: buyer %s's line covers %s at block %d (balance %s, withdrawing %s, this seller's open locks %s), the lock wants %s",
				ErrNotCovered, l.Buyer, escrow.FormatAmount(max(avail, 0)), line.Block, escrow.FormatAmount(line.Balance), escrow.FormatAmount(line.Withdrawing), escrow.FormatAmount(open), escrow.FormatAmount(l.Amount)))
		}
	}
}

// voucherOf decodes a lock voucher and checks it is the one of t.
func (s *Settler) voucherOf(t escrow.LockTerms, proof json.RawMessage) (*Lock, error) {
	var l Lock
	if err := json.Unmarshal(proof, &l); err != nil {
		return nil, fmt.Errorf("%w: the evm lock voucher: %v", escrow.ErrInvalidMessage, err)
	}
	switch {
	case l.JobID != JobID(t.JobID):
		return nil, fmt.Errorf("%w: the evm lock voucher is for another job", escrow.ErrInvalidMessage)
	case l.Amount != t.Amount:
		return nil, fmt.Errorf("%w: the evm lock voucher holds %d, the lock %d", escrow.ErrInvalidMessage, l.Amount, t.Amount)
	case l.Buyer.Hex() != t.BuyerAddress || l.Seller.Hex() != t.SellerAddress:
		return nil, fmt.Errorf("%w: the evm lock voucher names other parties than the lock", escrow.ErrInvalidMessage)
	case l.NotBefore != unixCeil(t.NotBefore):
		return nil, fmt.Errorf("%w: the evm lock voucher's not-before %d is not the lock's %s", escrow.ErrInvalidMessage, l.NotBefore, t.NotBefore.UTC().Format(time.RFC3339Nano))
	}
	return &l, nil
}

// Release signs the release voucher of a job's lock. It needs no chain
// connection, only the chain ID (known since the lock was made).
func (s *Settler) Release(_ context.Context, t escrow.LockTerms, lockProof json.RawMessage) (json.RawMessage, error) {
	l, err := s.voucherOf(t, lockProof)
	if err != nil {
		return nil, err
	}
	if l.Buyer != s.key.Address() {
		return nil, fmt.Errorf("%w: the lock's buyer is %s, this node is %s", escrow.ErrBadState, l.Buyer, s.key.Address())
	}
	d, err := s.knownDomain()
	if err != nil {
		return nil, err
	}
	rel := &Release{JobID: l.JobID, Buyer: l.Buyer, Seller: l.Seller, Amount: l.Amount}
	if err := d.SignRelease(s.key, rel); err != nil {
		return nil, railErr(err)
	}
	s.grow(l.Seller, l.Amount)
	return json.Marshal(rel)
}

// CheckRelease checks a buyer's release voucher against the job's lock.
func (s *Settler) CheckRelease(_ context.Context, t escrow.LockTerms, lockProof, release json.RawMessage) error {
	l, err := s.voucherOf(t, lockProof)
	if err != nil {
		return err
	}
	var rel Release
	if err := json.Unmarshal(release, &rel); err != nil {
		return fmt.Errorf("%w: the evm release voucher: %v", escrow.ErrInvalidMessage, err)
	}
	if rel.JobID != l.JobID || rel.Buyer != l.Buyer || rel.Seller != l.Seller || rel.Amount != l.Amount {
		return fmt.Errorf("%w: the evm release voucher does not match the job's lock", escrow.ErrInvalidMessage)
	}
	if rel.Seller != s.key.Address() {
		return fmt.Errorf("%w: the release pays %s, this node is %s", escrow.ErrForged, rel.Seller, s.key.Address())
	}
	d, err := s.knownDomain()
	if err != nil {
		return err
	}
	return railErr(d.VerifyRelease(&rel))
}

// Refund has the background work cancel the job on chain soon; it retries
// until the cancel is mined.
func (s *Settler) Refund(escrow.LockTerms) { s.wake() }

func (s *Settler) wake() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// RedeemSoon has the background work redeem every queued release now.
func (s *Settler) RedeemSoon() {
	select {
	case s.force <- struct{}{}:
	default:
	}
	s.wake()
}

// ---- chain reads with a short cache ------------------------------------------

// confirmedHead is the newest block at the confirmation depth, read again
// once PollInterval old (or when fresh is set).
func (s *Settler) confirmedHead(ctx context.Context, r *Rail, fresh bool) (*types.Header, error) {
	s.cacheMu.Lock()
	h, at, minHead := s.head, s.headAt, s.minHead
	s.cacheMu.Unlock()
	if h != nil && !fresh && time.Since(at) < s.cfg.PollInterval && h.Number.Uint64() >= minHead {
		return h, nil
	}
	h, err := r.confirmedHead(ctx)
	if err != nil {
		return nil, err
	}
	s.cacheMu.Lock()
	if h.Number.Uint64() >= s.minHead && (s.head == nil || h.Number.Cmp(s.head.Number) >= 0) {
		s.head, s.headAt = h, time.Now()
	}
	s.cacheMu.Unlock()
	return h, nil
}

// lineAt reads buyer's line for seller at head, once per head.
func (s *Settler) lineAt(ctx context.Context, r *Rail, head *types.Header, buyer, seller common.Address) (Line, error) {
	k := [2]common.Address{buyer, seller}
	n := head.Number.Uint64()
	s.cacheMu.Lock()
	c, ok := s.lines[k]
	s.cacheMu.Unlock()
	if ok && c.head == head.Hash() {
		return c.line, nil
	}
	l, err := r.esc.Line(&bind.CallOpts{Context: ctx, BlockHash: head.Hash()}, buyer, seller)
	if err != nil {
		return Line{}, classify(fmt.Sprintf("read line %s -> %s", buyer, seller), err, r.abis...)
	}
	out := Line{WithdrawAt: l.WithdrawAt, Block: n, BlockTime: head.Time}
	if out.Balance, err = toInt64("line balance", l.Balance); err != nil {
		return Line{}, err
	}
	if out.Withdrawing, err = toInt64("line withdrawal", l.Withdrawing); err != nil {
		out.Withdrawing = out.Balance
	}
	s.cacheMu.Lock()
	if len(s.lines) > 4096 {
		s.lines = make(map[[2]common.Address]cachedLine) // a stranger's worth of lines is cheap to forget
	}
	s.lines[k] = cachedLine{line: out, head: head.Hash()}
	s.cacheMu.Unlock()
	return out, nil
}

// lineOf is lineAt at the (cached, or with fresh a new) confirmed head.
func (s *Settler) lineOf(ctx context.Context, r *Rail, buyer, seller common.Address, fresh bool) (Line, error) {
	head, err := s.confirmedHead(ctx, r, fresh)
	if err != nil {
		return Line{}, err
	}
	return s.lineAt(ctx, r, head, buyer, seller)
}

// dropLine forgets a cached line and the cached head: the node changed
// the line on chain in a transaction of block (0: unknown). Heads before
// that block are never used again, so no reading misses the change.
func (s *Settler) dropLine(buyer, seller common.Address, block uint64) {
	s.cacheMu.Lock()
	delete(s.lines, [2]common.Address{buyer, seller})
	s.head = nil
	s.minHead = max(s.minHead, block)
	s.cacheMu.Unlock()
}

func blockOf(res *TxResult) uint64 {
	if res == nil {
		return 0
	}
	return res.Block
}

// ---- statistics ---------------------------------------------------------------

// Stats counts what the node did on chain since it started.
type Stats struct {
	// Txs and Gas are the node's transactions and the gas they used; Fee is
	// what they cost in wei.
	Txs    int
	Gas    uint64
	Fee    *big.Int
	ByKind map[string]int
	// Redeemed is how many vouchers paid this node; Batches how many redeem
	// transactions carried them.
	Redeemed, Batches int
	// ReleaseToPaid is, for every release voucher redeemed, the time from
	// the release reaching this node to the money in its address.
	ReleaseToPaid []time.Duration
	// Disagreements counts chain answers the node did not act on: job
	// events that did not match their lock or that the chain did not
	// confirm (each noted on its job), deposits and withdrawals whose
	// receipt does not hold them, heads lower than one the endpoint
	// reported before, and outcomes the reconcile's eth_getLogs left out
	// (found later on chain).
	Disagreements int
	// Vanished counts recorded chain outcomes (payouts, cancels) and
	// allocations that a reorg took away, each re-sent.
	Vanished int
}

// Stats returns a copy of the node's chain statistics.
func (s *Settler) Stats() Stats {
	s.statsMu.Lock()
	defer s.statsMu.Unlock()
	out := s.stats
	out.Fee = new(big.Int).Set(s.stats.Fee)
	out.ByKind = make(map[string]int, len(s.stats.ByKind))
	for k, v := range s.stats.ByKind {
		out.ByKind[k] = v
	}
	out.ReleaseToPaid = append([]time.Duration(nil), s.stats.ReleaseToPaid...)
	return out
}

func (s *Settler) countTx(kind string, res *TxResult) {
	if res == nil {
		return
	}
	s.statsMu.Lock()
	defer s.statsMu.Unlock()
	s.stats.Txs++
	s.stats.Gas += res.GasUsed
	if res.Fee != nil {
		s.stats.Fee.Add(s.stats.Fee, res.Fee)
	}
	s.stats.ByKind[kind]++
}

func (s *Settler) countDisagreement() {
	s.statsMu.Lock()
	defer s.statsMu.Unlock()
	s.stats.Disagreements++
}

// paidNotBooked is what one redeem paid out of a buyer's line, from its
// block until the escrow has booked it.
type paidNotBooked struct {
	block  uint64
	amount int64
}

func (s *Settler) pendingPaid(buyer common.Address) paidNotBooked {
	s.paidMu.Lock()
	defer s.paidMu.Unlock()
	return s.paid[buyer]
}

func (s *Settler) setPendingPaid(buyer common.Address, p paidNotBooked) {
	s.paidMu.Lock()
	defer s.paidMu.Unlock()
	if p.amount <= 0 {
		delete(s.paid, buyer)
		return
	}
	s.paid[buyer] = p
}
