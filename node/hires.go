package node

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market"
)

// Hires this daemon runs: their events as they happen (jobs watch), their
// cancellation (jobs cancel), and hires that run on after their client
// left (hire --detach).

// ErrNotRunning is returned when a job is not one this daemon is hiring
// now.
var ErrNotRunning = controlapi.ErrNotRunning

// detachWait bounds how long a detached hire waits for a seller to accept
// the job before it answers anyway.
const detachWait = 30 * time.Second

// liveHire is one hire in flight.
type liveHire struct {
	cancel context.CancelCauseFunc

	mu     sync.Mutex
	jobID  string
	events []controlapi.HireEvent
	subs   []chan controlapi.HireEvent
	done   *controlapi.HireInfo
}

// hireHub tracks the hires in flight by job ID.
type hireHub struct {
	mu   sync.Mutex
	jobs map[string]*liveHire

	ctx    context.Context // detached hires run under it
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func newHireHub() *hireHub {
	ctx, cancel := context.WithCancel(context.Background())
	return &hireHub{jobs: make(map[string]*liveHire), ctx: ctx, cancel: cancel}
}

// close stops the detached hires (their holds are refunded by the hire or,
// after a restart, by reconciliation) and waits for them.
func (h *hireHub) close() {
	h.cancel()
	h.wg.Wait()
}

func (h *hireHub) get(jobID string) *liveHire {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.jobs[jobID]
}

// event records ev of l and hands it to l's watchers.
func (h *hireHub) event(l *liveHire, ev controlapi.HireEvent) {
	l.mu.Lock()
	if l.jobID == "" && ev.JobID != "" {
		l.jobID = ev.JobID
		h.mu.Lock()
		h.jobs[ev.JobID] = l
		h.mu.Unlock()
	}
	l.events = append(l.events, ev)
	subs := append([]chan controlapi.HireEvent(nil), l.subs...)
	l.mu.Unlock()
	for _, c := range subs {
		select {
		case c <- ev:
		default: // a slow watcher loses progress lines, never the result
		}
	}
}

// finish records the result, ends every watch and forgets the hire.
func (h *hireHub) finish(l *liveHire, res controlapi.HireInfo) {
	l.mu.Lock()
	l.done = &res
	subs := l.subs
	l.subs = nil
	id := l.jobID
	l.mu.Unlock()
	done := controlapi.HireEvent{Event: market.Event{Type: controlapi.EventDone, JobID: res.JobID}, Result: &res}
	for _, c := range subs {
		c <- done // buffered: room for the result is kept
		close(c)
	}
	if id != "" {
		h.mu.Lock()
		delete(h.jobs, id)
		h.mu.Unlock()
	}
}

// watch returns l's events so far and a channel of the rest, ending with
// the done event; nil channel if the hire is done.
func (l *liveHire) watch() ([]controlapi.HireEvent, <-chan controlapi.HireEvent, *controlapi.HireInfo) {
	l.mu.Lock()
	defer l.mu.Unlock()
	past := append([]controlapi.HireEvent(nil), l.events...)
	if l.done != nil {
		return past, nil, l.done
	}
	c := make(chan controlapi.HireEvent, 64)
	l.subs = append(l.subs, c)
	return past, c, nil
}

// RunHire is the one entry of every hire this node starts: the control
// API's POST /v1/hire (and hire --detach, Detach), the gateway's A2A
// tasks, x402, demo, Node.Hire and bench all call it, and it calls the
// market's hire service (market.Buyer.Hire) and nothing else does. The
// hire is tracked by the hub, so jobs watch and jobs cancel see it, its
// events are saved with the job, and progress, when set, is called with
// each event. It returns the result whatever the outcome.
func (n *Node) RunHire(ctx context.Context, req market.HireRequest, progress func(market.Event)) controlapi.HireInfo {
	return n.runHire(ctx, req, progress)
}

// runHire is RunHire.
func (n *Node) runHire(ctx context.Context, req market.HireRequest, progress func(market.Event)) controlapi.HireInfo {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	l := &liveHire{cancel: cancel}
	req.Progress = func(ev market.Event) {
		ev.Output, ev.Delivery = nil, nil // the result carries the output once
		n.hires.event(l, controlapi.HireEvent{Event: ev})
		if progress != nil {
			progress(ev)
		}
	}
	out, err := n.Market.Buyer.Hire(ctx, req)
	res := n.hireInfo(req, out, err)
	n.hires.finish(l, res)
	return res
}

// JobResult describes a bought job as a hire result, from what the node
// stored: for a door that reports on a hire after a restart.
func (n *Node) JobResult(ctx context.Context, jobID string) (controlapi.HireInfo, error) {
	return n.jobResult(ctx, jobID)
}

// Detach starts a hire that runs on in the daemon after its client leaves.
// It returns once a seller accepted the job (with its job ID and outcome
// "running"), or with the result if the hire ended first.
func (n *Node) Detach(req market.HireRequest) controlapi.HireInfo {
	accepted := make(chan controlapi.HireInfo, 1)
	done := make(chan controlapi.HireInfo, 1)
	n.hires.wg.Add(1)
	go func() {
		defer n.hires.wg.Done()
		done <- n.runHire(n.hires.ctx, req, func(ev market.Event) {
			if ev.Type == market.EventAccepted {
				info := controlapi.HireInfo{JobID: ev.JobID, Rail: n.Escrow.RailName(), Capability: req.Capability, Outcome: controlapi.OutcomeRunning, Escrow: controlapi.EscrowDoc{State: string(escrow.StateLocked)}}
				// The seller accepted the lock: the escrow knows who and
				// for how much.
				if rec, err := n.Escrow.GetRole(n.hires.ctx, ev.JobID, escrow.RoleBuyer); err == nil {
					info.Seller, info.Price = rec.Seller.String(), escrow.FormatAmount(rec.Amount)
				}
				select {
				case accepted <- info:
				default:
				}
			}
		})
	}()
	select {
	case info := <-accepted:
		return info
	case res := <-done:
		return res
	case <-time.After(detachWait):
		return controlapi.HireInfo{Capability: req.Capability, Rail: n.Escrow.RailName(), Outcome: controlapi.OutcomeRunning, Error: "no seller accepted the job yet; it goes on: see 'swarmwage jobs list'"}
	}
}

// CancelJob stops a bought job that is not delivered yet and refunds it:
// a hire this daemon runs is cancelled (the market refunds and tells the
// seller, which stops its handler); any other open job is refunded
// directly.
func (n *Node) CancelJob(ctx context.Context, jobID string) (escrow.Record, error) {
	if l := n.hires.get(jobID); l != nil {
		er, err := n.Escrow.GetRole(ctx, jobID, escrow.RoleBuyer)
		if err == nil && er.State == escrow.StateDelivered {
			return er, fmt.Errorf("job %s was delivered: %w; it is verified and settles by itself", jobID, escrow.ErrBadState)
		}
		_, c, res := l.watch()
		l.cancel(market.ErrCancelled)
		if c != nil {
			for range c { // wait for the hire to settle
			}
		} else if res == nil {
			return escrow.Record{}, ErrNotRunning
		}
		return n.Escrow.GetRole(ctx, jobID, escrow.RoleBuyer)
	}
	return n.Market.CancelJob(ctx, jobID)
}

// jobResult describes a finished bought job as a hire result: what jobs
// watch ends with when the hire is not live in this daemon.
func (n *Node) jobResult(ctx context.Context, jobID string) (controlapi.HireInfo, error) {
	rec, err := n.Market.Job(ctx, jobID)
	if err != nil {
		return controlapi.HireInfo{}, err
	}
	er, err := n.Escrow.GetRole(ctx, jobID, escrow.Role(rec.Role))
	if err != nil {
		return controlapi.HireInfo{}, err
	}
	info := controlapi.HireInfo{
		JobID: jobID, Rail: er.Rail, Capability: rec.Capability, Seller: rec.Seller.String(), Price: rec.Price.String(),
		Output: rec.Output, Escrow: controlapi.EscrowDoc{State: string(er.State), Reason: er.Reason}, Error: rec.Error,
		Verification: controlapi.VerificationDoc{Checks: rec.Checks}, DurationMS: rec.DurationMS,
	}
	if rec.Passed != nil {
		info.Verification.Passed = *rec.Passed
	}
	switch {
	case !er.State.Final() && er.State != escrow.StateDelivered:
		info.Outcome = controlapi.OutcomeRunning
	case er.State == escrow.StateReleased:
		info.Outcome = controlapi.OutcomeReleased
	case er.State == escrow.StateDelivered:
		info.Outcome = controlapi.OutcomeDelivered
	case rec.Status == market.StatusVerificationFailed:
		info.Outcome = controlapi.OutcomeVerificationFailed
	case rec.Status == market.StatusTimedOut:
		info.Outcome = controlapi.OutcomeTimedOut
	case er.Reason == market.ErrCancelled.Error():
		info.Outcome = controlapi.OutcomeCancelled
	default:
		info.Outcome = controlapi.OutcomeJobFailed
	}
	if info.Output == nil {
		info.Output = []byte("null")
	}
	return info, nil
}
