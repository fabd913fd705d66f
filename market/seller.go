package market

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/libp2p/go-libp2p/core/peer"
	"golang.org/x/time/rate"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/internal/failpoint"
	"github.com/swarmwage/swarmwage/verify"
)

const (
	// maxQuoteRequest caps the body of POST /quotes.
	maxQuoteRequest = 4 << 10
	// maxJobRequest caps the body of POST /jobs: the input carries base64
	// images up to verify.MaxInputSize, plus the quote and the lock.
	maxJobRequest = verify.MaxInputSize + 64<<10
	// maxSettleRequest caps the body of POST /jobs/{id}/settle.
	maxSettleRequest = 16 << 10
	// bodyReadTimeout bounds reading a request body, so a peer that sends
	// slowly cannot hold a handler forever.
	bodyReadTimeout = 30 * time.Second
	// heartbeat is how often a running job reports progress.
	heartbeat = time.Second
	// deadlineSlack is how far past MaxDuration a lock's deadline may lie:
	// the buyer computes it a network round trip before the seller checks.
	deadlineSlack = 30 * time.Second
)

// Event is one line of the NDJSON stream POST /jobs answers with.
type Event struct {
	// Type is "accepted", "progress", "result" or "error"; "delivery"
	// and "durable" only to a buyer that asked for them (EarlyDelivery).
	Type    string          `json:"type"`
	JobID   string          `json:"job_id"`
	Message string          `json:"message,omitempty"`
	Output  json.RawMessage `json:"output,omitempty"`
	// Delivery is the seller's signed statement of the output's hash.
	Delivery json.RawMessage `json:"delivery,omitempty"`
	// Status is the HTTP-like status of an error event (400 bad input, 415
	// page too large, 500 handler failure).
	Status  int      `json:"status,omitempty"`
	Reasons []string `json:"reasons,omitempty"`
	// ElapsedMS is the time since the job was accepted.
	ElapsedMS int64 `json:"elapsed_ms,omitempty"`
}

// Event types.
const (
	EventAccepted = "accepted"
	// EventLocked is the buyer's own first event of a job: the price is
	// held (so the job ID exists) and the job goes to the seller.
	EventLocked   = "locked"
	EventProgress = "progress"
	EventResult   = "result"
	EventError    = "error"
	// EventDelivery carries the output and its signed delivery while the
	// seller is still writing them; EventDurable follows once they are
	// durable, and only then may the buyer act on them. A stream that
	// ends between the two delivered nothing: the buyer asks GET
	// /jobs/{id}, as for a stream broken before a result.
	EventDelivery = "delivery"
	EventDurable  = "durable"
)

// Early delivery: a buyer that sends this header with value
// EarlyDelivery on POST /jobs may get a job done within the accept grace
// as "delivery" then "durable" instead of "result", so that it checks the
// output and the delivery while the seller's commit is under way.
const (
	DeliveryHeader = "Swarmwage-Delivery"
	EarlyDelivery  = "early"
)

// JobRequest is the body of POST /jobs.
type JobRequest struct {
	Quote SignedQuote     `json:"quote"`
	Lock  json.RawMessage `json:"lock"`
	Input json.RawMessage `json:"input"`
}

// JobStatus is the answer of GET /jobs/{id}.
type JobStatus struct {
	JobID    string          `json:"job_id"`
	Status   string          `json:"status"`
	State    string          `json:"state"`
	Output   json.RawMessage `json:"output,omitempty"`
	Delivery json.RawMessage `json:"delivery,omitempty"`
	Error    string          `json:"error,omitempty"`
}

// seller is the seller's side of a market, the unit a buyer's hire meets
// at the agent endpoint: it serves quotes (handleQuote), accepts a job's
// lock (checkJob), runs the job's handler (runJob), delivers the output
// with its signed delivery (finish), and claims the money when the
// buyer's settle arrives (handleSettle) or its escrow timers release it;
// it also serves its receipts (receipts.go). It shares the market's parts
// (shared) with the Buyer and owns its handlers and slots.
type seller struct {
	*shared
	handlers *handlers
	// quoteSigs holds the quotes whose signature checked out, so that a
	// quote a buyer reuses for many jobs costs one Ed25519 verification.
	quoteSigs *lru.Cache[SignedQuote, struct{}]

	inflight atomic.Int64
	slots    chan struct{}

	// Per-peer limits, so that one buyer cannot take every slot or keep
	// the node signing quotes.
	mu       sync.Mutex
	perPeer  map[peer.ID]int                    // jobs in flight per buyer
	limiters map[peer.ID]*rate.Limiter          // quote requests per buyer
	running  map[string]context.CancelCauseFunc // jobs whose handler runs, to stop one the buyer refunded (cause: refundedError)
	taken    map[string]*takenJob               // jobs taken and running, their locks perhaps not written yet
}

const (
	// quoteRate and quoteBurst bound one buyer's quote requests. A hire
	// needs one quote, and buyers keep quotes until they near expiry.
	quoteRate  = 50
	quoteBurst = 100
	// maxLimiters bounds the per-peer limiter table; past it the table
	// starts afresh (a stranger's worth of limits is cheap to forget).
	maxLimiters = 4096
)

func newSeller(sh *shared, h *handlers, quoteSigs *lru.Cache[SignedQuote, struct{}]) *seller {
	return &seller{
		shared:    sh,
		handlers:  h,
		quoteSigs: quoteSigs,
		slots:     make(chan struct{}, sh.cfg.concurrency),
		perPeer:   make(map[peer.ID]int),
		limiters:  make(map[peer.ID]*rate.Limiter),
		running:   make(map[string]context.CancelCauseFunc),
		taken:     make(map[string]*takenJob),
	}
}

// allowQuote reports whether buyer may ask for another quote now.
func (s *seller) allowQuote(buyer peer.ID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.limiters[buyer]
	if !ok {
		if len(s.limiters) >= maxLimiters {
			s.limiters = make(map[peer.ID]*rate.Limiter)
		}
		l = rate.NewLimiter(quoteRate, quoteBurst)
		s.limiters[buyer] = l
	}
	return l.Allow()
}

// perPeerMax is how many jobs one buyer may have in flight: half of what
// the node takes at all, so a second buyer always finds room.
func (s *seller) perPeerMax() int {
	return max(4, (s.cfg.concurrency+s.cfg.queue)/2)
}

// acquire counts a job of buyer, or reports that buyer has too many.
func (s *seller) acquire(buyer peer.ID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.perPeer[buyer] >= s.perPeerMax() {
		return false
	}
	s.perPeer[buyer]++
	return true
}

func (s *seller) release(buyer peer.ID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.perPeer[buyer]--; s.perPeer[buyer] <= 0 {
		delete(s.perPeer, buyer)
	}
}

func (s *seller) register(mux *http.ServeMux) {
	mux.HandleFunc("POST /quotes", s.handleQuote)
	mux.HandleFunc("POST /jobs", s.handleJob)
	mux.HandleFunc("GET /jobs/{id}", s.handleJobStatus)
	mux.HandleFunc("POST /jobs/{id}/settle", s.handleSettle)
	mux.HandleFunc("GET /receipts", s.handleReceipts)
}

// readBody reads at most limit bytes of the request body within
// bodyReadTimeout; a larger body is an error, not a truncation.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(bodyReadTimeout))
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return nil, fmt.Errorf("request body over the %d byte limit", limit)
	}
	if err != nil {
		return nil, fmt.Errorf("read request body: %w", err)
	}
	_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
	return data, nil
}

// buyerOf is the authenticated peer that sent r (set by libp2p's HTTP
// transport); plain-HTTP requests have none and cannot hire.
func buyerOf(w http.ResponseWriter, r *http.Request) (peer.ID, bool) {
	p := remotePeer(r)
	if p == "" {
		writeError(w, http.StatusUnauthorized, "hiring needs a libp2p stream: the buyer's peer ID signs the escrow")
		return "", false
	}
	return p, true
}

func newQuoteID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b))
}

func (s *seller) handleQuote(w http.ResponseWriter, r *http.Request) {
	if err := s.cfg.admission(r.Context()); err != nil {
		// The reason stays in this node's log; a buyer learns the class.
		s.log.Debug("quote refused by admission", "err", err)
		w.Header().Set("Retry-After", "60")
		writeError(w, http.StatusInsufficientStorage, "seller is low on disk space and takes no new jobs; try another seller")
		return
	}
	buyer, ok := buyerOf(w, r)
	if !ok {
		return
	}
	if s.refuseBuyer(w, buyer) {
		return
	}
	if !s.allowQuote(buyer) {
		s.log.Debug("quote rate limit", "remote_peer", buyer)
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusTooManyRequests, "too many quote requests; retry later")
		return
	}
	body, err := readBody(w, r, maxQuoteRequest)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	req, err := decodeQuoteRequest(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	o, err := s.store.Get(r.Context(), req.Capability)
	if errors.Is(err, ErrNotListed) {
		writeError(w, http.StatusNotFound, "capability not sold here: "+req.Capability)
		return
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, "cannot read listing")
		return
	}
	cfg := s.cfg
	queued := s.inflight.Load()
	if queued >= int64(cfg.concurrency+cfg.queue) {
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusTooManyRequests, fmt.Sprintf("queue full (%d jobs); retry later", queued))
		return
	}
	now := cfg.now().UTC()
	q := Quote{
		Version:         quoteVersion,
		QuoteID:         newQuoteID(),
		Capability:      req.Capability,
		Price:           o.Signed.Listing.Price,
		Seller:          s.host.ID(),
		Buyer:           buyer,
		CreatedAt:       now.Format(time.RFC3339Nano),
		ExpiresAt:       now.Add(cfg.quoteTTL).Format(time.RFC3339Nano),
		WindowMS:        cfg.window.Milliseconds(),
		MaxDurationMS:   cfg.maxDuration.Milliseconds(),
		QueueEstimateMS: max(0, queued-int64(cfg.concurrency)+1) * 1000,
	}
	if cfg.quotePrice != nil {
		q.Price = cfg.quotePrice(q.Price) // a dishonest seller (tests only)
	}
	if v, ok := failpoint.Value("seller/quote-price"); ok {
		q.Price = Credits(v) // the fault suite's dishonest seller
	}
	signed, err := signQuote(s.key, q)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "cannot sign quote")
		return
	}
	if cfg.tamperQuote != nil {
		cfg.tamperQuote(&signed) // an older release's seller (tests only)
	}
	writeJSON(w, http.StatusOK, signed)
}

// refuseBuyer answers 403 to a buyer shown to have refunded valid output,
// when this seller refuses such buyers, and reports whether it did.
func (s *seller) refuseBuyer(w http.ResponseWriter, buyer peer.ID) bool {
	if !s.cfg.refuseFalseRefunders {
		return false
	}
	job := s.falseRefunder(buyer)
	if job == "" {
		return false
	}
	s.log.Debug("buyer refused: false refunder", "remote_peer", buyer, "job", job)
	writeError(w, http.StatusForbidden, "this seller refuses buyers that refunded output the capability's verifier accepts (job "+job+")")
	return true
}

// DecodeJobRequest parses the body of POST /jobs.
func DecodeJobRequest(data []byte) (JobRequest, *escrow.Lock, error) {
	if len(data) > maxJobRequest {
		return JobRequest{}, nil, fmt.Errorf("job request over the %d byte limit", maxJobRequest)
	}
	var req JobRequest
	if err := json.Unmarshal(data, &req); err != nil {
		return JobRequest{}, nil, fmt.Errorf("decode job request: %w", err)
	}
	return checkJobRequest(req)
}

// checkJobRequest checks a decoded job request and decodes its lock.
func checkJobRequest(req JobRequest) (JobRequest, *escrow.Lock, error) {
	if len(req.Input) == 0 {
		return JobRequest{}, nil, errors.New("decode job request: input is missing")
	}
	lock, err := escrow.DecodeLock(req.Lock)
	if err != nil {
		return JobRequest{}, nil, fmt.Errorf("decode job request: lock: %w", err)
	}
	return req, lock, nil
}

// jobRequestBody reads a POST /jobs body: the job request, then the body's end.
// A buyer may send the request while its lock is still being written and
// end the body once the lock is durable: the seller checks the request
// meanwhile, and accepts the lock only at the end (confirmed). The whole
// body is read within bodyReadTimeout and is at most maxJobRequest bytes.
type jobRequestBody struct {
	rc  *http.ResponseController // nil: no deadline to lift
	dec *json.Decoder
}

func newJobRequestBody(w http.ResponseWriter, r *http.Request) *jobRequestBody {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(bodyReadTimeout))
	return &jobRequestBody{rc: rc, dec: json.NewDecoder(http.MaxBytesReader(w, r.Body, maxJobRequest))}
}

// request decodes the job request at the start of the body.
func (b *jobRequestBody) request() (JobRequest, *escrow.Lock, error) {
	var req JobRequest
	if err := b.dec.Decode(&req); err != nil {
		return JobRequest{}, nil, bodyError("decode job request", err)
	}
	return checkJobRequest(req)
}

// confirmed reads the rest of the body, which must end without more
// data: the buyer's word that its lock is durable. A body that breaks off
// instead is a lock the buyer did not write.
func (b *jobRequestBody) confirmed() error {
	var extra json.RawMessage
	err := b.dec.Decode(&extra)
	if err == nil {
		return errors.New("data after the job request")
	}
	if !errors.Is(err, io.EOF) {
		return bodyError("the body ended before the buyer confirmed its lock", err)
	}
	if b.rc != nil {
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return nil
}

// bodyError says what reading a job body failed at.
func bodyError(what string, err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return fmt.Errorf("request body over the %d byte limit", maxJobRequest)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// checkJob checks that the quote is ours and still valid, that the lock
// matches it, and that the input fits the listing.
func (s *seller) checkJob(ctx context.Context, buyer peer.ID, req JobRequest, lock *escrow.Lock) (Offer, int, []string, error) {
	now := s.cfg.now()
	q := req.Quote.Quote
	if err := req.Quote.verify(s.host.ID(), buyer, "", now, s.quoteSigs); err != nil {
		return Offer{}, http.StatusForbidden, nil, err
	}
	if req.Quote.Untagged() {
		s.noteUntagged(TypeQuote, s.host.ID())
	}
	switch {
	case lock.QuoteID != q.QuoteID:
		return Offer{}, http.StatusBadRequest, nil, fmt.Errorf("lock is for quote %s, not %s", lock.QuoteID, q.QuoteID)
	case lock.Capability != q.Capability:
		return Offer{}, http.StatusBadRequest, nil, fmt.Errorf("lock is for %s, the quote for %s", lock.Capability, q.Capability)
	case lock.Amount != int64(q.Price):
		return Offer{}, http.StatusBadRequest, nil, fmt.Errorf("lock holds %s, the quote asks %s", escrow.FormatAmount(lock.Amount), q.Price)
	case lock.Buyer != buyer:
		return Offer{}, http.StatusForbidden, nil, fmt.Errorf("lock is signed for buyer %s, request comes from %s", lock.Buyer, buyer)
	case !lock.Deadline.After(now):
		return Offer{}, http.StatusBadRequest, nil, errors.New("lock deadline has already passed")
	case lock.Deadline.After(now.Add(time.Duration(q.MaxDurationMS)*time.Millisecond + deadlineSlack)):
		return Offer{}, http.StatusBadRequest, nil, fmt.Errorf("lock deadline is past the quote's max duration of %d ms", q.MaxDurationMS)
	case lock.Window != q.Window():
		return Offer{}, http.StatusBadRequest, nil, fmt.Errorf("lock window %s differs from the quote's %s", lock.Window, q.Window())
	}
	o, err := s.store.Get(ctx, q.Capability)
	if err != nil {
		return Offer{}, http.StatusNotFound, nil, fmt.Errorf("capability no longer sold here: %s", q.Capability)
	}
	if err := validateInput(o.Signed.Listing, req.Input); err != nil {
		var se *verify.SchemaError
		if errors.As(err, &se) {
			return Offer{}, http.StatusBadRequest, se.Reasons, fmt.Errorf("input does not match the input schema of %s", q.Capability)
		}
		return Offer{}, http.StatusBadRequest, nil, err
	}
	return o, 0, nil, nil
}

// validateInput checks input against the listing: the taxonomy's schema for
// standard capabilities, the seller's published one for the others.
func validateInput(l Listing, input []byte) error {
	err := verify.ValidateInput(l.Capability, input)
	if errors.Is(err, verify.ErrNoStandardSchema) || errors.Is(err, verify.ErrUnknownCapability) {
		return verify.ValidateWithSchema(l.Capability, l.InputSchema, input)
	}
	return err
}

func (s *seller) handleJob(w http.ResponseWriter, r *http.Request) {
	buyer, ok := buyerOf(w, r)
	if !ok || s.refuseBuyer(w, buyer) {
		return
	}
	body := newJobRequestBody(w, r)
	req, lock, err := body.request()
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	o, status, reasons, err := s.checkJob(r.Context(), buyer, req, lock)
	if err != nil && s.replayOf(w, r, buyer, lock, req.Input) {
		return
	}
	if err != nil {
		s.log.Debug("job refused", "remote_peer", buyer, "err", err)
		writeError(w, status, err.Error(), reasons...)
		return
	}
	if !s.acquire(buyer) {
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusTooManyRequests, fmt.Sprintf("at most %d jobs per buyer at once; retry later", s.perPeerMax()))
		return
	}
	defer s.release(buyer)
	if n := s.inflight.Add(1); n > int64(s.cfg.concurrency+s.cfg.queue) {
		s.inflight.Add(-1)
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusTooManyRequests, "queue full; retry later")
		return
	}
	defer s.inflight.Add(-1)
	// The job's record is written with the accepted lock, in its commit.
	rec := JobRecord{
		JobID: lock.JobID, Role: RoleSeller, Capability: lock.Capability, Seller: s.host.ID(), Buyer: buyer,
		Price: Credits(lock.Amount), QuoteID: lock.QuoteID, Status: StatusRunning, Rail: s.escrow.RailName(),
		CreatedAt: s.cfg.now().UTC(),
	}
	rec.UpdatedAt = rec.CreatedAt
	prep, fresh, err := s.escrow.PrepareAccept(r.Context(), lock, req.Input)
	if err != nil {
		writeError(w, lockStatus(err), "lock refused: "+err.Error())
		return
	}
	if !fresh {
		// A lock is accepted once: a replay never runs the handler again
		// or touches the job's record.
		s.replay(w, r, lock.JobID)
		return
	}
	defer prep.Close()
	job := &takenJob{prep: prep, lock: lock, rec: rec}
	if !s.take(job) {
		writeError(w, http.StatusConflict, fmt.Sprintf("this lock was accepted already; the job is running: GET /jobs/%s", lock.JobID))
		return
	}
	defer s.untake(job)
	if err := body.confirmed(); err != nil {
		s.log.Debug("job not confirmed", "remote_peer", buyer, "job", lock.JobID, "err", err)
		writeError(w, http.StatusBadRequest, "lock not confirmed: "+err.Error())
		return
	}
	failpoint.Inject("seller/after-accept-lock")
	s.rememberCounterparty(buyer)
	// Early delivery saves a lone job the buyer's checks after the
	// commit; a busy seller's commits are shared and its CPU is better
	// spent on one event write a job. It holds for the job however long
	// its handler runs (finishEarly, deliverEarly).
	job.early = r.Header.Get(DeliveryHeader) == EarlyDelivery && s.inflight.Load() == 1
	s.runJob(w, r, o, job, req.Input)
}

// acceptGrace is how long a job's handler may run before its lock is
// written on its own. A job done by then has its lock written with its
// delivery, in one commit (escrow.Accepting.AcceptDelivered), and the
// buyer gets the accepted and result events together; a longer one has
// its lock written when the grace ends, and the buyer is told it was
// accepted then.
const acceptGrace = 50 * time.Millisecond

// takenJob is a job whose lock this seller checked and took, whose
// handler runs, and whose lock may not be written yet (acceptGrace).
type takenJob struct {
	prep *escrow.Accepting
	lock *escrow.Lock
	rec  JobRecord // the job's record, written with the lock
	// early: the buyer takes the delivery before it is durable
	// (EarlyDelivery).
	early bool

	mu       sync.Mutex
	accepted bool  // the lock is written
	err      error // why writing it failed
}

// take claims job's ID while it runs; false if a request with the same
// lock runs it already.
func (s *seller) take(job *takenJob) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.taken[job.lock.JobID]; ok {
		return false
	}
	s.taken[job.lock.JobID] = job
	return true
}

func (s *seller) untake(job *takenJob) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.taken, job.lock.JobID)
}

// takenBy returns the taken job jobID of buyer, or nil.
func (s *seller) takenBy(jobID string, buyer peer.ID) *takenJob {
	s.mu.Lock()
	defer s.mu.Unlock()
	if j := s.taken[jobID]; j != nil && j.lock.Buyer == buyer {
		return j
	}
	return nil
}

// accept writes job's lock on its own, once, and reports why not: when its
// handler runs past acceptGrace or fails, or a settle for the job arrives
// before its delivery.
func (s *seller) accept(ctx context.Context, job *takenJob) error {
	_, err := s.writeTaken(job, job.rec, func(also escrow.Also) (bool, error) {
		return job.prep.Accept(ctx, also)
	})
	return err
}

// acceptDelivered writes job's lock with its delivery of out, in one
// commit, if the lock was not written on its own meanwhile (ok false, with
// nothing written: the caller delivers as for a job accepted before).
func (s *seller) acceptDelivered(ctx context.Context, job *takenJob, out json.RawMessage, took time.Duration) (d *escrow.Delivery, ok bool, err error) {
	rec := job.rec
	rec.Status, rec.DurationMS, rec.UpdatedAt = StatusDelivered, took.Milliseconds(), time.Now().UTC()
	ok, err = s.writeTaken(job, rec, func(also escrow.Also) (fresh bool, err error) {
		d, fresh, err = job.prep.AcceptDelivered(ctx, out, also)
		return fresh, err
	})
	return d, ok, err
}

// writeTaken writes job's lock once, with the job's record rec, through
// write; ok is false when it was written (or failed) before.
func (s *seller) writeTaken(job *takenJob, rec JobRecord, write func(escrow.Also) (fresh bool, err error)) (ok bool, err error) {
	job.mu.Lock()
	defer job.mu.Unlock()
	if job.accepted || job.err != nil {
		return false, job.err
	}
	also, recorded := s.jobs.putWith(rec)
	fresh, err := write(also)
	if err == nil && !fresh {
		err = fmt.Errorf("%w: the lock was accepted by another request", escrow.ErrJobIDReused)
	}
	if err != nil {
		job.err = err
		return true, err
	}
	recorded()
	job.accepted = true
	return true, nil
}

// replayOf answers a POST /jobs that checkJob refused if its lock is one
// this seller accepted from buyer before, and reports whether it did: a
// replay gets the job as it is (or 409 with another input), as AcceptLock
// would, even once the lock's deadline or its quote has passed. Fresh
// locks never come here, so the hot path reads nothing more.
func (s *seller) replayOf(w http.ResponseWriter, r *http.Request, buyer peer.ID, lock *escrow.Lock, input []byte) bool {
	er, err := s.escrow.GetRole(r.Context(), lock.JobID, escrow.RoleSeller)
	if err != nil || er.Buyer != buyer || !er.Lock.Equal(lock) {
		return false
	}
	if er.InputHash != escrow.HashHex(input) {
		writeError(w, http.StatusConflict, "lock refused: "+escrow.ErrJobIDReused.Error()+": the lock was accepted with another input")
		return true
	}
	s.replay(w, r, lock.JobID)
	return true
}

// replay answers a POST /jobs whose lock was accepted before: with the
// job's result if it was delivered, else 409 and where to look.
func (s *seller) replay(w http.ResponseWriter, r *http.Request, jobID string) {
	er, err := s.escrow.GetRole(r.Context(), jobID, escrow.RoleSeller)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "cannot read the job")
		return
	}
	if er.Delivery != nil {
		out, err := s.escrow.Payload(r.Context(), escrow.RoleSeller, jobID, escrow.PayloadOutput)
		if err == nil {
			w.Header().Set("Content-Type", "application/x-ndjson")
			w.WriteHeader(http.StatusOK)
			dj, _ := json.Marshal(er.Delivery)
			stream := &eventWriter{w: w, rc: http.NewResponseController(w)}
			stream.send(Event{Type: EventResult, JobID: jobID, Output: out, Delivery: dj})
			return
		}
	}
	writeError(w, http.StatusConflict, fmt.Sprintf("this lock was accepted already; the job is %s: GET /jobs/%s", er.State, jobID))
}

// lockStatus maps an escrow error on AcceptLock to a status code.
func lockStatus(err error) int {
	switch {
	case errors.Is(err, escrow.ErrNotCovered):
		return http.StatusPaymentRequired
	case errors.Is(err, escrow.ErrRailUnavailable):
		// Not 503: a buyer retries 503 with the same lock; this one waits
		// for the seller's chain, so it should try another seller.
		return http.StatusBadGateway
	case errors.Is(err, escrow.ErrForged):
		return http.StatusForbidden
	case errors.Is(err, escrow.ErrJobIDReused), errors.Is(err, escrow.ErrBadState):
		return http.StatusConflict
	default:
		return http.StatusBadRequest
	}
}

// runJob streams the job's events while its handler runs, then delivers.
// The job runs under the lock's deadline, not the request's context: a
// buyer that disconnects can still fetch the result with GET /jobs/{id}.
// Nothing is sent before the lock is written: with the delivery, for a job
// done within acceptGrace, else on its own when the grace ends.
func (s *seller) runJob(w http.ResponseWriter, r *http.Request, o Offer, job *takenJob, input json.RawMessage) {
	lock := job.lock
	w.Header().Set("Content-Type", "application/x-ndjson")
	stream := &eventWriter{w: w, rc: http.NewResponseController(w)}
	start := time.Now()

	refunded, stop := context.WithCancelCause(s.ctx)
	defer stop(nil)
	ctx, cancel := context.WithDeadline(refunded, lock.Deadline)
	defer cancel()
	s.mu.Lock()
	s.running[lock.JobID] = stop
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.running, lock.JobID)
		s.mu.Unlock()
	}()
	done := make(chan outcome, 1)
	go func() {
		select {
		case s.slots <- struct{}{}:
		case <-ctx.Done():
			done <- outcome{err: fmt.Errorf("%w: job deadline passed while queued", ErrHandler)}
			return
		}
		defer func() { <-s.slots }()
		// An exec handler's stderr goes to this log, a line at a time.
		hctx := withHandlerLog(ctx, s.log.With("job", lock.JobID, "capability", lock.Capability))
		done <- s.safeRun(hctx, o, input)
	}()
	grace := time.NewTimer(s.cfg.acceptGrace)
	defer grace.Stop()
	told := false
	// accepted writes the lock on its own, if it is not yet, and tells the
	// buyer; false if it could not be written (the buyer was told why).
	accepted := func() bool {
		if told {
			return true
		}
		if err := s.accept(context.WithoutCancel(r.Context()), job); err != nil {
			stop(err)
			writeError(w, lockStatus(err), "lock refused: "+err.Error())
			return false
		}
		w.WriteHeader(http.StatusOK)
		stream.send(Event{Type: EventAccepted, JobID: lock.JobID})
		told = true
		return true
	}
	tick := time.NewTicker(heartbeat)
	defer tick.Stop()
	for {
		select {
		case res := <-done:
			if !told && res.err == nil && s.finishTaken(stream, w, job, res, time.Since(start)) {
				return
			}
			if !accepted() {
				return
			}
			s.recordAttempts(lock.JobID, res)
			if res.err != nil && ctx.Err() == context.Canceled && s.ctx.Err() == nil {
				s.cancelled(ctx, stream, lock, time.Since(start))
				return
			}
			if res.err != nil && !s.cfg.now().Before(lock.Deadline) {
				s.timedOut(stream, lock, time.Since(start))
				return
			}
			s.finish(stream, job, res.out, res.err, time.Since(start))
			return
		case <-grace.C:
			if !accepted() {
				return
			}
		case <-ctx.Done():
			if s.ctx.Err() != nil {
				return // shutting down: the restart reconciles the job
			}
			if !accepted() {
				return
			}
			if ctx.Err() == context.Canceled {
				s.cancelled(ctx, stream, lock, time.Since(start))
				return
			}
			// A handler that ignores its context still loses the job at
			// the deadline; its goroutine keeps the slot until it returns.
			s.timedOut(stream, lock, time.Since(start))
			return
		case <-tick.C:
			if told {
				stream.send(Event{Type: EventProgress, JobID: lock.JobID, Message: "running", ElapsedMS: time.Since(start).Milliseconds()})
			}
		}
	}
}

// finishTaken delivers the output of a job done within acceptGrace: its
// lock and delivery in one commit, then the accepted and result events in
// one write. It reports false, with nothing written or sent, when the lock
// was written on its own meanwhile (a settle arrived first), or the output
// is not JSON: the caller then goes the way of a job accepted before.
func (s *seller) finishTaken(stream *eventWriter, w http.ResponseWriter, job *takenJob, res outcome, took time.Duration) bool {
	lock := job.lock
	var buf bytes.Buffer
	if err := json.Compact(&buf, res.out); err != nil {
		return false
	}
	out := buf.Bytes()
	if len(res.attempts) > 0 {
		s.logAttempts(lock.JobID, res)
		usage := res.usage
		job.rec.Attempts, job.rec.Usage = res.attempts, &usage
	}
	if job.early {
		return s.finishEarly(stream, w, job, out, took)
	}
	d, ok, err := s.acceptDelivered(context.Background(), job, out, took)
	if !ok {
		return false
	}
	if err != nil {
		s.log.Error("accept and deliver", "job", lock.JobID, "err", err)
		writeError(w, lockStatus(err), "cannot accept and deliver the job: "+err.Error())
		return true
	}
	failpoint.Inject("seller/after-deliver")
	dj, _ := json.Marshal(d)
	w.WriteHeader(http.StatusOK)
	// The output is durable with the signed delivery: a buyer whose stream
	// breaks fetches both with GET /jobs/{id}.
	stream.send(Event{Type: EventAccepted, JobID: lock.JobID},
		Event{Type: EventResult, JobID: lock.JobID, Output: out, Delivery: dj, ElapsedMS: took.Milliseconds()})
	s.logDelivered(lock, took)
	return true
}

// finishEarly is finishTaken for a buyer that takes the delivery early:
// the delivery is signed first and sent while the lock and delivery are
// written, then "durable" once they are. If they cannot be written, or
// the lock was written on its own meanwhile (a settle came first: the
// buyer refunded the job), an error event takes the place of "durable"
// and the buyer drops the delivery.
func (s *seller) finishEarly(stream *eventWriter, w http.ResponseWriter, job *takenJob, out json.RawMessage, took time.Duration) bool {
	lock := job.lock
	d, err := job.prep.SignDelivery(out)
	if err != nil {
		return false // delivered the usual way
	}
	w.WriteHeader(http.StatusOK)
	s.sendEarly(stream, d, out, took, Event{Type: EventAccepted, JobID: lock.JobID})
	_, ok, err := s.acceptDelivered(context.Background(), job, out, took)
	switch {
	case err != nil:
		s.log.Error("accept and deliver", "job", lock.JobID, "err", err)
		stream.send(Event{Type: EventError, JobID: lock.JobID, Message: "cannot accept and deliver the job: " + err.Error(), Status: lockStatus(err)})
		return true
	case !ok:
		stream.send(Event{Type: EventError, JobID: lock.JobID, Message: "the buyer settled the job before its delivery", Status: http.StatusGone})
		s.log.Info("job sold", "job", lock.JobID, "capability", lock.Capability, "buyer", lock.Buyer, "outcome", "settled before delivery")
		return true
	}
	failpoint.Inject("seller/after-deliver")
	stream.send(Event{Type: EventDurable, JobID: lock.JobID})
	s.logDelivered(lock, took)
	return true
}

// safeRun runs the handler; a panic in it fails the job, not the node.
func (s *seller) safeRun(ctx context.Context, o Offer, input json.RawMessage) (res outcome) {
	defer func() {
		if v := recover(); v != nil {
			s.log.Error("handler panicked", "capability", o.Signed.Listing.Capability, "panic", v)
			res = outcome{usage: res.usage, attempts: res.attempts, err: fmt.Errorf("%w: handler panicked", ErrHandler)}
		}
	}()
	if s.cfg.runHandler != nil {
		out, err := s.cfg.runHandler(ctx, input)
		return outcome{out: out, err: err}
	}
	return s.handlers.runJob(ctx, o, input)
}

// recordAttempts keeps a Runner's attempts and token usage with the job's
// record, and logs each check an attempt failed: what the seller fixes.
func (s *seller) recordAttempts(jobID string, res outcome) {
	if len(res.attempts) == 0 {
		return
	}
	s.logAttempts(jobID, res)
	usage := res.usage
	s.updateJob(RoleSeller, jobID, func(r *JobRecord) {
		r.Attempts, r.Usage = res.attempts, &usage
	})
}

// logAttempts logs each check an attempt of a Runner failed.
func (s *seller) logAttempts(jobID string, res outcome) {
	for _, a := range res.attempts {
		for _, c := range a.Failed {
			s.log.Warn("job output failed a check before delivery", "job", jobID, "attempt", a.Number, "check", c.Name, "detail", c.Detail)
		}
	}
}

// refundedError is why a running job was stopped: the buyer's refund,
// with its reason.
type refundedError struct{ reason string }

func (e refundedError) Error() string { return "refunded by the buyer: " + e.reason }

// cancelled ends a job the buyer refunded (cancelled) while it ran; the
// escrow already says refunded. A refund for the deadline is the buyer's
// timeout, which reached the seller before its own deadline timer did (the
// two race under load): the job timed out, as in timedOut, and did not fail.
func (s *seller) cancelled(ctx context.Context, stream *eventWriter, lock *escrow.Lock, took time.Duration) {
	var refund refundedError
	if errors.As(context.Cause(ctx), &refund) && refund.reason == escrow.ReasonDeadline {
		s.timedOut(stream, lock, took)
		return
	}
	msg := "cancelled by the buyer"
	s.updateJob(RoleSeller, lock.JobID, func(r *JobRecord) {
		r.Status, r.Error, r.UpdatedAt = StatusFailed, msg, time.Now().UTC()
	})
	stream.send(Event{Type: EventError, JobID: lock.JobID, Message: msg, Status: http.StatusGone})
	s.log.Info("job sold", "job", lock.JobID, "capability", lock.Capability, "buyer", lock.Buyer, "outcome", "cancelled by the buyer")
}

// timedOut ends a job whose deadline (the buyer's timeout) passed before
// its handler finished. It is not the handler's failure: the escrow stays
// locked and the deadline refunds it on both sides; the record says
// timed_out.
func (s *seller) timedOut(stream *eventWriter, lock *escrow.Lock, took time.Duration) {
	msg := "no result by the job deadline (the buyer's timeout)"
	s.updateJob(RoleSeller, lock.JobID, func(r *JobRecord) {
		r.Status, r.Error, r.DurationMS, r.UpdatedAt = StatusTimedOut, msg, took.Milliseconds(), time.Now().UTC()
	})
	stream.send(Event{Type: EventError, JobID: lock.JobID, Message: msg, Status: http.StatusGatewayTimeout})
	s.log.Info("job sold", "job", lock.JobID, "capability", lock.Capability, "buyer", lock.Buyer, "outcome", "timed out", "duration", took.Round(time.Millisecond))
}

// finish delivers the output (or fails the job) and sends the last event.
func (s *seller) finish(stream *eventWriter, job *takenJob, out json.RawMessage, runErr error, took time.Duration) {
	ctx := context.Background()
	lock := job.lock
	jobID := lock.JobID
	if runErr == nil {
		var buf bytes.Buffer
		if err := json.Compact(&buf, out); err != nil {
			runErr = failedf(failNotJSON, "compact the output: %w", err)
		} else {
			out = buf.Bytes()
		}
	}
	if runErr != nil {
		// The buyer learns the class of failure; the details stay in our log.
		msg, status, reasons := publicFailure(runErr)
		s.log.Warn("job failed", "job", jobID, "capability", lock.Capability, "class", msg, "err", runErr)
		if err := s.escrow.FailJob(ctx, jobID, truncateText(msg, 400)); err != nil {
			s.log.Warn("record failed job", "job", jobID, "err", err)
		}
		s.updateJob(RoleSeller, jobID, func(r *JobRecord) {
			r.Status, r.Error, r.DurationMS, r.UpdatedAt = StatusFailed, msg, took.Milliseconds(), time.Now().UTC()
		})
		stream.send(Event{Type: EventError, JobID: jobID, Message: msg, Status: status, Reasons: reasons})
		s.log.Info("job sold", "job", jobID, "capability", lock.Capability, "buyer", lock.Buyer, "outcome", "failed", "class", msg, "duration", took.Round(time.Millisecond))
		return
	}
	// The job record says delivered in the delivery's commit.
	also, recorded := s.jobs.updateWith(RoleSeller, jobID, func(r *JobRecord) {
		r.Status, r.DurationMS, r.UpdatedAt = StatusDelivered, took.Milliseconds(), time.Now().UTC()
	})
	if job.early {
		s.deliverEarly(stream, lock, out, took, also, recorded)
		return
	}
	d, err := s.escrow.Deliver(ctx, jobID, out, also)
	if err != nil {
		s.log.Error("deliver", "job", jobID, "err", err)
		stream.send(Event{Type: EventError, JobID: jobID, Message: "cannot deliver", Status: http.StatusInternalServerError})
		return
	}
	recorded()
	failpoint.Inject("seller/after-deliver")
	dj, _ := json.Marshal(d)
	// The output is durable with the signed delivery: a buyer whose stream
	// breaks fetches both with GET /jobs/{id}.
	stream.send(Event{Type: EventResult, JobID: jobID, Output: out, Delivery: dj, ElapsedMS: took.Milliseconds()})
	s.logDelivered(lock, took)
}

// deliverEarly is finish's delivery to a buyer that takes it early, for a
// job whose lock was written before: the delivery is signed and sent,
// then written, then "durable" is sent (or an error event if it could not
// be written).
func (s *seller) deliverEarly(stream *eventWriter, lock *escrow.Lock, out json.RawMessage, took time.Duration, also escrow.Also, recorded func()) {
	jobID := lock.JobID
	d, err := s.escrow.SignDelivery(jobID, out)
	if err != nil {
		s.log.Error("sign delivery", "job", jobID, "err", err)
		stream.send(Event{Type: EventError, JobID: jobID, Message: "cannot deliver", Status: http.StatusInternalServerError})
		return
	}
	s.sendEarly(stream, d, out, took)
	if _, err := s.escrow.DeliverSigned(context.Background(), d, out, also); err != nil {
		s.log.Error("deliver", "job", jobID, "err", err)
		stream.send(Event{Type: EventError, JobID: jobID, Message: "cannot deliver", Status: http.StatusInternalServerError})
		return
	}
	recorded()
	failpoint.Inject("seller/after-deliver")
	stream.send(Event{Type: EventDurable, JobID: jobID})
	s.logDelivered(lock, took)
}

// sendEarly sends the events before, then the early delivery d of out,
// before it is written (finishEarly, deliverEarly).
func (s *seller) sendEarly(stream *eventWriter, d *escrow.Delivery, out json.RawMessage, took time.Duration, before ...Event) {
	dj, _ := json.Marshal(d)
	stream.send(append(before, Event{Type: EventDelivery, JobID: d.JobID, Output: out, Delivery: dj, ElapsedMS: took.Milliseconds()})...)
	// The delivery leaves before the commit's work starts on this P:
	// the stream's send loop runs now, not once the commit blocks.
	runtime.Gosched()
	// A kill here leaves the buyer a delivery that is not durable: it
	// must count for nothing.
	failpoint.Inject("seller/after-early-delivery")
	if s.cfg.dropEarly {
		panic(http.ErrAbortHandler) // as a crash before the commit would
	}
}

// logDelivered logs a job sold whose delivery is durable.
func (s *seller) logDelivered(lock *escrow.Lock, took time.Duration) {
	s.log.Info("job sold", "job", lock.JobID, "capability", lock.Capability, "buyer", lock.Buyer, "outcome", "delivered", "price", escrow.FormatAmount(lock.Amount), "duration", took.Round(time.Millisecond))
}

func truncateText(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// eventWriter writes NDJSON events and flushes each send. Write errors (the
// buyer went away) are remembered and later events dropped.
type eventWriter struct {
	w   io.Writer
	rc  *http.ResponseController
	err error
}

func (e *eventWriter) send(evs ...Event) {
	if e.err != nil {
		return
	}
	// No HTML escaping: the output must arrive byte for byte as the seller
	// hashed it for its signed delivery.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, ev := range evs {
		if e.err = enc.Encode(ev); e.err != nil {
			return
		}
	}
	_ = e.rc.SetWriteDeadline(time.Now().Add(bodyReadTimeout))
	if _, e.err = e.w.Write(buf.Bytes()); e.err == nil {
		e.err = e.rc.Flush()
	}
}

func (s *seller) handleJobStatus(w http.ResponseWriter, r *http.Request) {
	buyer, ok := buyerOf(w, r)
	if !ok {
		return
	}
	jobID := r.PathValue("id")
	// The escrow record is the truth (the job record may lag a crash).
	er, err := s.escrow.GetRole(r.Context(), jobID, escrow.RoleSeller)
	if errors.Is(err, escrow.ErrNotFound) && s.takenBy(jobID, buyer) != nil {
		// Running, its lock not written yet (acceptGrace).
		writeJSON(w, http.StatusOK, JobStatus{JobID: jobID, State: string(escrow.StateLocked), Status: StatusRunning})
		return
	}
	if err != nil || er.Buyer != buyer {
		// The same answer for "unknown" and "not yours": a job's existence
		// is nobody else's business.
		writeError(w, http.StatusNotFound, "no such job")
		return
	}
	st := JobStatus{JobID: jobID, State: string(er.State), Status: StatusRunning}
	if rec, err := s.jobs.get(RoleSeller, jobID); err == nil {
		st.Status, st.Error = rec.Status, rec.Error
	}
	switch {
	case er.State == escrow.StateFailed, er.State == escrow.StateRefunded && er.Delivery == nil:
		st.Status = StatusFailed
		if st.Error == "" {
			st.Error = er.Reason
		}
	case er.Delivery != nil:
		if out, err := s.escrow.Payload(r.Context(), escrow.RoleSeller, jobID, escrow.PayloadOutput); err == nil {
			st.Status, st.Output = StatusDelivered, out
			st.Delivery, _ = json.Marshal(er.Delivery)
		}
	}
	writeJSON(w, http.StatusOK, st)
}

func (s *seller) handleSettle(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(w, r, maxSettleRequest)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	st, err := escrow.DecodeSettle(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if st.JobID != r.PathValue("id") {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("settle is for job %s, posted to %s", st.JobID, r.PathValue("id")))
		return
	}
	rec, err := s.escrow.ApplySettleRecord(r.Context(), st)
	if job := s.takenBy(st.JobID, st.Buyer); job != nil && errors.Is(err, escrow.ErrUnknownJob) {
		// The job runs and its lock is not written yet (acceptGrace): the
		// settle must meet the job, so the lock is written first.
		if aerr := s.accept(context.WithoutCancel(r.Context()), job); aerr == nil {
			rec, err = s.escrow.ApplySettleRecord(r.Context(), st)
		}
	}
	if err != nil {
		status := http.StatusBadRequest
		switch {
		case errors.Is(err, escrow.ErrForged):
			status = http.StatusForbidden
		case errors.Is(err, escrow.ErrUnknownJob), errors.Is(err, escrow.ErrNotFound):
			status = http.StatusNotFound
		case errors.Is(err, escrow.ErrBadState), errors.Is(err, escrow.ErrWrongAmount):
			status = http.StatusConflict
		}
		s.log.Debug("settle refused", "remote_peer", remotePeer(r), "job", st.JobID, "err", err)
		writeError(w, status, err.Error())
		return
	}
	failpoint.Inject("seller/after-apply-settle")
	if st.Decision == escrow.DecisionRefund && rec.State == escrow.StateRefunded {
		s.mu.Lock()
		stop := s.running[st.JobID]
		s.mu.Unlock()
		if stop != nil {
			stop(refundedError{reason: st.Reason}) // refunded before delivery: the work is not wanted
		}
	}
	// Only a refund that claims the output failed its checks can be shown
	// false; a deadline refund says the buyer never had the delivery.
	if st.Decision == escrow.DecisionRefund && rec.State == escrow.StateDisputed && len(st.FailedChecks) > 0 && st.Reason != escrow.ReasonDeadline {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.checkRefund(s.ctx, st.JobID)
		}()
	}
	writeJSON(w, http.StatusOK, map[string]string{"job_id": st.JobID, "state": string(rec.State)})
}
