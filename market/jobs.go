package market

import (
	"bytes"
	"container/heap"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/internal/kv"
	"github.com/swarmwage/swarmwage/verify"
)

// jobVersion is the schema version of stored job records.
const jobVersion = 1

// Roles of a job record.
const (
	RoleBuyer  = "buyer"
	RoleSeller = "seller"
)

// Job statuses, as 'jobs list' shows them.
const (
	StatusRunning            = "running"
	StatusDelivered          = "delivered"
	StatusFailed             = "failed"
	StatusVerified           = "verified"
	StatusVerificationFailed = "verification_failed"
	// StatusTimedOut: no result by the job's deadline (the buyer's
	// timeout) while the seller was still working; refunded, not failed.
	StatusTimedOut = "timed_out"
)

var (
	// ErrJobNotFound is returned when no job record exists for an ID.
	ErrJobNotFound = errors.New("job not found")
	// ErrBadRating is returned for a rating outside 1..5 or of a job this
	// node did not buy.
	ErrBadRating = errors.New("bad rating")
)

// JobRecord is what a node remembers of a job it bought or sold.
type JobRecord struct {
	Version    int     `json:"v"`
	JobID      string  `json:"job_id"`
	Role       string  `json:"role"`
	Capability string  `json:"capability"`
	Seller     peer.ID `json:"seller"`
	Buyer      peer.ID `json:"buyer"`
	Price      Credits `json:"price"`
	QuoteID    string  `json:"quote_id"`
	// Status is the job's own step (StatusRunning and the others): what
	// the seller and the verification did.
	Status string `json:"status"`
	// State is where the job stands (JobRunning and the others, from its
	// escrow): filled in when a record is read for a caller (Job, JobsPage),
	// never stored.
	State string `json:"state,omitempty"`
	// Input and Output are the job's bytes. They are stored once, in the
	// escrow with the signed messages that commit to their hashes, and
	// filled in by Job; a stored record and a list carry neither.
	Input  json.RawMessage `json:"input,omitempty"`
	Output json.RawMessage `json:"output,omitempty"`
	// OutputSchema is the seller's output schema of a capability without a
	// standard verifier, kept so a restarted buyer can verify the output.
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	Error        string          `json:"error,omitempty"`
	Passed       *bool           `json:"passed,omitempty"`
	Checks       []verify.Check  `json:"checks,omitempty"`
	CreatedAt    time.Time       `json:"created_at"`
	UpdatedAt    time.Time       `json:"updated_at"`
	DurationMS   int64           `json:"duration_ms"`
	// Events is the job's event history as the buyer saw it (accepted,
	// progress, result or error), without outputs; at most maxJobEvents.
	Events []JobEvent `json:"events,omitempty"`
	// Rail is the job's settlement rail; records older than rails have none
	// and are credits (MarshalJSON writes it so).
	Rail string `json:"rail"`
	// SettleSent is set once the seller acknowledged the buyer's settle.
	SettleSent bool `json:"settle_sent,omitempty"`
	Rating     int  `json:"rating,omitempty"`
	// Attempts and Usage are the seller's, for a handler that runs
	// through a Runner (openai, mcp): each try at the output with the
	// checks it failed before delivery, and the model-server tokens the
	// job took over all of them.
	Attempts []AttemptReport `json:"attempts,omitempty"`
	Usage    *Usage          `json:"usage,omitempty"`
}

// maxJobEvents caps the event history kept with a job record: a long job
// sends a progress event every second.
const maxJobEvents = 64

// JobEvent is one event of a job's history.
type JobEvent struct {
	At        time.Time `json:"at"`
	Type      string    `json:"type"`
	Message   string    `json:"message,omitempty"`
	ElapsedMS int64     `json:"elapsed_ms,omitempty"`
}

// hireEvents is a hire's event history as the buyer sees it, kept by the
// hire itself (Buyer.Hire) and written with the job record's last update
// of the hire (the verification or the refund), so that keeping it costs
// no write of its own.
type hireEvents struct {
	mu     sync.Mutex
	events []JobEvent
	saved  bool
	next   func(Event) // the caller's Progress, if any
}

// progress records ev and passes it on to the caller's Progress.
func (h *hireEvents) progress(ev Event) {
	h.mu.Lock()
	h.events = append(h.events, JobEvent{At: time.Now().UTC(), Type: ev.Type, Message: ev.Message, ElapsedMS: ev.ElapsedMS})
	h.mu.Unlock()
	if h.next != nil {
		h.next(ev)
	}
}

// newJob starts the history of a newly locked job: the events of a job
// an earlier seller refused were written with that job's refund.
func (h *hireEvents) newJob() {
	if h == nil {
		return
	}
	h.mu.Lock()
	h.events, h.saved = nil, false
	h.mu.Unlock()
}

// into puts the history so far into r (at most maxJobEvents: the first
// and the last halves).
func (h *hireEvents) into(r *JobRecord) {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.events) == 0 {
		return
	}
	evs := h.events
	if len(evs) > maxJobEvents {
		evs = append(append([]JobEvent{}, evs[:maxJobEvents/2]...), evs[len(evs)-maxJobEvents/2:]...)
	}
	r.Events, h.saved = append([]JobEvent(nil), evs...), true
}

// unsaved reports whether the history has events that no job update
// wrote yet.
func (h *hireEvents) unsaved() bool {
	if h == nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.events) > 0 && !h.saved
}

// MarshalJSON writes the record with its rail: escrow.RailCredits for
// records made before rails existed.
func (r JobRecord) MarshalJSON() ([]byte, error) { return encodeJob(r) }

// encodeJob is MarshalJSON, for the store: called directly, it spares
// encoding/json the check and compaction of a Marshaler's output.
func encodeJob(r JobRecord) ([]byte, error) {
	type plain JobRecord
	if r.Rail == "" {
		r.Rail = escrow.RailCredits
	}
	return json.Marshal(plain(r))
}

// jobs stores job records and ratings.
type jobs struct {
	db *kv.DB
	// indexBuilt caches that the job index is built (mayRun).
	indexBuilt atomic.Bool

	// onChange, if set, sees each record after its write commits; created
	// is true for the first write of a job.
	onChange func(r JobRecord, created bool)
}

func (j *jobs) changed(r JobRecord, created bool) {
	if j.onChange != nil {
		j.onChange(r, created)
	}
}

func (j *jobs) put(r JobRecord) error {
	if err := j.db.Update(func(txn kv.Txn) error { return putJob(txn, r) }); err != nil {
		return fmt.Errorf("store job %s: %w", r.JobID, err)
	}
	j.changed(r, true)
	return nil
}

// putJob writes the new record r in txn.
func putJob(txn kv.Txn, r JobRecord) error {
	r.Version = jobVersion
	r.Input, r.Output, r.State = nil, nil, ""
	val, err := encodeJob(r)
	if err != nil {
		return fmt.Errorf("encode job %s: %w", r.JobID, err)
	}
	return setJob(txn, nil, r, val)
}

// putWith returns r's first write as part of an escrow change (the lock
// that creates the job: one commit, one fsync, for both), and done, to
// call once the change has committed.
func (j *jobs) putWith(r JobRecord) (also escrow.Also, done func()) {
	return func(txn kv.Txn) error { return putJob(txn, r) }, func() { j.changed(r, true) }
}

// updateWith returns the update of role's record of jobID by fn as part of
// an escrow change, and done, to call once the change has committed. A
// missing record is left missing: it must not stop the escrow change.
func (j *jobs) updateWith(role, jobID string, fn func(*JobRecord)) (also escrow.Also, done func()) {
	return j.updateAlso(func(txn kv.Txn) (JobRecord, bool, error) { return updateJob(txn, role, jobID, fn) })
}

// updateAlso is the escrow Also of a record's update (updateWith,
// prepareUpdate), and done, which reports the record the update left.
func (j *jobs) updateAlso(update func(kv.Txn) (JobRecord, bool, error)) (also escrow.Also, done func()) {
	var out JobRecord
	var changed bool
	also = func(txn kv.Txn) error {
		var err error
		out, changed, err = update(txn)
		if errors.Is(err, kv.ErrNotFound) {
			return nil
		}
		return err
	}
	return also, func() {
		if changed {
			j.changed(out, false)
		}
	}
}

// prepareUpdate is updateWith with the record read, changed by fn and
// encoded now, before the escrow change: its commit only writes the bytes
// made ready, if the stored record is still the one read (else it updates
// the record afresh, fn again). The work leaves the escrow's commit, which
// every change of the node waits on.
func (j *jobs) prepareUpdate(role, jobID string, fn func(*JobRecord)) (also escrow.Also, done func()) {
	var read, val []byte
	var prev, next JobRecord
	err := j.db.View(func(txn kv.Reader) error {
		v, err := txn.Get(jobKey(role, jobID))
		if err != nil {
			return err
		}
		if err := json.Unmarshal(v, &prev); err != nil {
			return err
		}
		next = prev
		fn(&next)
		next.Input, next.Output, next.State = nil, nil, ""
		val, err = encodeJob(next)
		read = v
		return err
	})
	if err != nil {
		return j.updateWith(role, jobID, fn)
	}
	return j.updateAlso(func(txn kv.Txn) (JobRecord, bool, error) {
		v, err := txn.Get(jobKey(role, jobID))
		if err != nil || !bytes.Equal(v, read) {
			return updateJob(txn, role, jobID, fn)
		}
		if bytes.Equal(val, v) {
			return next, false, nil
		}
		return next, true, setJob(txn, &prev, next, val)
	})
}

func (j *jobs) get(role, jobID string) (JobRecord, error) {
	var r JobRecord
	err := j.db.View(func(txn kv.Reader) error {
		v, err := txn.Get(jobKey(role, jobID))
		if err != nil {
			return err
		}
		return json.Unmarshal(v, &r)
	})
	if errors.Is(err, kv.ErrNotFound) {
		return JobRecord{}, fmt.Errorf("%w: %s", ErrJobNotFound, jobID)
	}
	if err != nil {
		return JobRecord{}, fmt.Errorf("read job %s: %w", jobID, err)
	}
	return r, nil
}

// update applies fn to the stored record of jobID in one transaction.
func (j *jobs) update(role, jobID string, fn func(*JobRecord)) error {
	var out JobRecord
	var changed bool
	err := j.db.Update(func(txn kv.Txn) error {
		var err error
		out, changed, err = updateJob(txn, role, jobID, fn)
		return err
	})
	if errors.Is(err, kv.ErrNotFound) {
		return fmt.Errorf("%w: %s", ErrJobNotFound, jobID)
	}
	if err != nil {
		return fmt.Errorf("update job %s: %w", jobID, err)
	}
	if changed {
		j.changed(out, false)
	}
	return nil
}

// updateAll applies fn to role's records of jobIDs in one transaction;
// missing records are left missing.
func (j *jobs) updateAll(role string, jobIDs []string, fn func(*JobRecord)) error {
	var changed []JobRecord
	err := j.db.Update(func(txn kv.Txn) error {
		changed = changed[:0]
		for _, id := range jobIDs {
			r, ok, err := updateJob(txn, role, id, fn)
			if errors.Is(err, kv.ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			if ok {
				changed = append(changed, r)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("update %d jobs: %w", len(jobIDs), err)
	}
	for _, r := range changed {
		j.changed(r, false)
	}
	return nil
}

// updateJob applies fn to role's record of jobID in txn and reports
// whether that changed it. It may run more than once (a transaction that
// lost a conflict runs again), so fn must only set fields.
func updateJob(txn kv.Txn, role, jobID string, fn func(*JobRecord)) (JobRecord, bool, error) {
	v, err := txn.Get(jobKey(role, jobID))
	if err != nil {
		return JobRecord{}, false, err
	}
	var r JobRecord
	if err := json.Unmarshal(v, &r); err != nil {
		return JobRecord{}, false, err
	}
	prev := r
	fn(&r)
	r.Input, r.Output, r.State = nil, nil, "" // the escrow holds them; the state is derived
	val, err := encodeJob(r)
	if err != nil {
		return JobRecord{}, false, err
	}
	if bytes.Equal(val, v) {
		// Nothing changed (a follow-up that finds the record already in
		// that state): no write, no sync.
		return r, false, nil
	}
	return r, true, setJob(txn, &prev, r, val)
}

// JobQuery selects a page of job records, as summaries (ListJobsPage).
type JobQuery struct {
	// Role is "buyer", "seller" or "" for both.
	Role string
	// Limit caps the page; 0: every record.
	Limit int
	// After, for paging, starts after this position: that of the last
	// record of the previous page.
	After *JobPosition
}

// JobPosition is a job record's place in list order: newest first, then
// by role, then by job ID.
type JobPosition struct {
	CreatedAt   time.Time
	Role, JobID string
}

// Before reports whether p comes before q in list order.
func (p JobPosition) Before(q JobPosition) bool {
	if !p.CreatedAt.Equal(q.CreatedAt) {
		return p.CreatedAt.After(q.CreatedAt)
	}
	if p.Role != q.Role {
		return p.Role < q.Role
	}
	return p.JobID < q.JobID
}

// Position is r's place in list order.
func (r JobRecord) Position() JobPosition {
	return JobPosition{CreatedAt: r.CreatedAt, Role: r.Role, JobID: r.JobID}
}

// maxSummaryError caps a listed job's error text: the seller wrote it, and
// 'jobs show' has it whole.
const maxSummaryError = 1 << 10

// jobSummary decodes a stored record without reading its input and output
// into memory: a list carries neither.
type jobSummary struct {
	JobRecord
	Input  discardJSON `json:"input"`
	Output discardJSON `json:"output"`
}

// discardJSON accepts any JSON value and keeps nothing.
type discardJSON struct{}

func (*discardJSON) UnmarshalJSON([]byte) error { return nil }

// listPage returns q's page of summaries (no input, no output), in list
// order. It holds at most q.Limit records in memory however many there are.
func (j *jobs) listPage(q JobQuery) ([]JobRecord, error) {
	page := &jobPage{limit: q.Limit}
	err := scanJobs(j.db, q.Role, func(r JobRecord) error {
		if q.After == nil || q.After.Before(r.Position()) {
			page.add(r)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	out := page.recs
	sort.Slice(out, func(a, b int) bool { return out[a].Position().Before(out[b].Position()) })
	for i := range out {
		out[i].Input, out[i].Output = nil, nil
		if len(out[i].Error) > maxSummaryError {
			out[i].Error = out[i].Error[:maxSummaryError] + "..."
		}
	}
	return out, nil
}

// jobPage keeps the first limit records in list order (all when limit is
// 0): a heap whose top is the last of those kept.
type jobPage struct {
	limit int
	recs  []JobRecord
}

func (p *jobPage) Len() int           { return len(p.recs) }
func (p *jobPage) Less(a, b int) bool { return p.recs[b].Position().Before(p.recs[a].Position()) }
func (p *jobPage) Swap(a, b int)      { p.recs[a], p.recs[b] = p.recs[b], p.recs[a] }
func (p *jobPage) Push(x any)         { p.recs = append(p.recs, x.(JobRecord)) }
func (p *jobPage) Pop() any {
	last := p.recs[len(p.recs)-1]
	p.recs = p.recs[:len(p.recs)-1]
	return last
}

func (p *jobPage) add(r JobRecord) {
	r.Input, r.Output, r.State = nil, nil, ""
	switch {
	case p.limit <= 0:
		p.recs = append(p.recs, r)
	case len(p.recs) < p.limit:
		heap.Push(p, r)
	case r.Position().Before(p.recs[0].Position()):
		p.recs[0] = r
		heap.Fix(p, 0)
	}
}

// rate records the buyer's rating of a job it bought, in one transaction
// with the job record (a concurrent update cannot lose it).
func (j *jobs) rate(jobID string, score int) (JobRecord, error) {
	if score < 1 || score > 5 {
		return JobRecord{}, fmt.Errorf("%w: %d is not 1 to 5", ErrBadRating, score)
	}
	rv, _ := json.Marshal(map[string]int{"v": 1, "rating": score})
	var out JobRecord
	err := j.db.Update(func(txn kv.Txn) error {
		v, err := txn.Get(jobKey(RoleBuyer, jobID))
		if err != nil {
			return err
		}
		var r JobRecord
		if err := json.Unmarshal(v, &r); err != nil {
			return fmt.Errorf("decode job %s: %w", jobID, err)
		}
		prev := r
		r.Rating, r.UpdatedAt = score, time.Now().UTC()
		r.Input, r.Output, r.State = nil, nil, ""
		val, err := encodeJob(r)
		if err != nil {
			return err
		}
		if err := setJob(txn, &prev, r, val); err != nil {
			return err
		}
		out = r
		return txn.Set(ratingKey(r.Seller, jobID), rv)
	})
	switch {
	case errors.Is(err, kv.ErrNotFound):
		return JobRecord{}, fmt.Errorf("%w: %s", ErrJobNotFound, jobID)
	case err != nil:
		return JobRecord{}, fmt.Errorf("rate job %s: %w", jobID, err)
	}
	j.changed(out, false)
	return out, nil
}

// rating is this node's average rating of seller and the number of ratings.
func (j *jobs) rating(seller peer.ID) (avg float64, n int) {
	prefix := ratingSellerPrefix(seller)
	sum := 0
	_ = j.db.View(func(txn kv.Reader) error {
		return txn.Scan(prefix, func(_, b []byte) error {
			var v struct {
				Rating int `json:"rating"`
			}
			if json.Unmarshal(b, &v) == nil && v.Rating >= 1 && v.Rating <= 5 {
				sum += v.Rating
				n++
			}
			return nil
		})
	})
	if n == 0 {
		return 0, 0
	}
	return float64(sum) / float64(n), n
}

// JobView reads the node's job records with what their escrow says (state,
// input and output): the one API behind 'jobs list', 'jobs show' and the
// jobs in flight of 'status'. A daemon's market serves it (Market.Jobs); an
// offline command opens the same view on the repo's database
// (OpenJobView), read-only. Safe for concurrent use.
type JobView struct {
	jobs *jobs
	// escrow holds each job's money and payloads; nil (an offline command
	// that could not open it): states come from the records' statuses and
	// jobs carry no input or output.
	escrow *escrow.Escrow
}

// OpenJobView is the job view of a node that is not running: db (opened
// with kv.OpenReadOnly: the view never writes) and its escrow esc, which
// may be nil.
func OpenJobView(db *kv.DB, esc *escrow.Escrow) *JobView {
	return &JobView{jobs: &jobs{db: db}, escrow: esc}
}

// Jobs is the market's job view.
func (m *Market) Jobs() *JobView { return &JobView{jobs: m.jobs, escrow: m.escrow} }

// Job returns one job with its input and output and state, preferring the
// buyer's record when the node was both.
func (v *JobView) Job(ctx context.Context, jobID string) (JobRecord, error) {
	r, err := v.jobs.get(RoleBuyer, jobID)
	if errors.Is(err, ErrJobNotFound) {
		r, err = v.jobs.get(RoleSeller, jobID)
	}
	if err != nil {
		return r, err
	}
	if r, err = v.withPayloads(ctx, r); err != nil {
		return r, err
	}
	r.State = jobStateOf(ctx, v.escrow, r)
	return r, nil
}

// Page returns a page of job summaries (no input, no output) in list
// order, with their states; Job has a whole record.
func (v *JobView) Page(ctx context.Context, q JobQuery) ([]JobRecord, error) {
	jobs, err := v.jobs.listPage(q)
	WithStates(ctx, v.escrow, jobs)
	return jobs, err
}

// InFlight counts the jobs the node is buying and selling that are still
// running.
func (v *JobView) InFlight(ctx context.Context) (bought, sold int, err error) {
	refs, err := runningJobs(v.jobs.db)
	if err != nil {
		return 0, 0, fmt.Errorf("count running jobs: %w", err)
	}
	for _, r := range refs {
		if r.Role == RoleBuyer {
			bought++
		} else {
			sold++
		}
	}
	return bought, sold, nil
}

// withPayloads fills in a job record's input and output from the escrow
// (Escrow.Payload). Records written before the escrow held them carry their
// own.
func (v *JobView) withPayloads(ctx context.Context, r JobRecord) (JobRecord, error) {
	if v.escrow == nil {
		return r, nil
	}
	for _, p := range []struct {
		kind string
		dst  *json.RawMessage
	}{{escrow.PayloadInput, &r.Input}, {escrow.PayloadOutput, &r.Output}} {
		if *p.dst != nil {
			continue
		}
		b, err := v.escrow.Payload(ctx, escrow.Role(r.Role), r.JobID, p.kind)
		switch {
		case errors.Is(err, escrow.ErrNotFound):
		case err != nil:
			return r, err
		case len(b) > 0:
			*p.dst = b
		}
	}
	return r, nil
}

// Job is Jobs().Job.
func (m *Market) Job(ctx context.Context, jobID string) (JobRecord, error) {
	return m.Jobs().Job(ctx, jobID)
}

// Rate records a 1..5 rating of a job this node bought; find shows each
// seller's average and hire ranks by it.
func (m *Market) Rate(ctx context.Context, jobID string, score int) (JobRecord, error) {
	return m.jobs.rate(jobID, score)
}

// JobsPage is Jobs().Page.
func (m *Market) JobsPage(ctx context.Context, q JobQuery) ([]JobRecord, error) {
	return m.Jobs().Page(ctx, q)
}

// Rating is this node's average rating (1..5) of seller over the jobs it
// rated, and how many that is; 0, 0 when none.
func (m *Market) Rating(seller peer.ID) (avg float64, n int) { return m.jobs.rating(seller) }
