package node

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market"
)

// Event types of GET /v1/events.
const (
	// EventJobCreated: a job this node bought or sold was recorded.
	EventJobCreated = "job.created"
	// EventJobUpdated: its record changed (delivered, verified, failed,
	// rated).
	EventJobUpdated = "job.updated"
	// EventJobSettled: its escrow reached a final state.
	EventJobSettled = "job.settled"
	// EventResync tells a subscriber that it lost events (it read too
	// slowly) and should read the lists again.
	EventResync = "resync"
)

const (
	// eventBuffer is how many events wait for one slow subscriber before
	// it loses some (and then gets a resync).
	eventBuffer = 64
	// maxEventSubscribers caps open event streams: each is one browser tab,
	// and a node's loopback API has no business serving hundreds.
	maxEventSubscribers = 32
	// eventHeartbeat is how often an idle stream gets a comment line, so a
	// dead reader is noticed (the write fails) and proxies keep it open.
	eventHeartbeat = 15 * time.Second
	// eventWriteTimeout bounds one write to a subscriber: a reader that
	// stops reading is dropped instead of holding a goroutine forever.
	eventWriteTimeout = 10 * time.Second
)

// Event is one event of GET /v1/events: a job this node bought or sold
// changed. It says what changed; the job's full record is at
// GET /v1/jobs/{id}.
type Event struct {
	Type       string `json:"type"`
	JobID      string `json:"job_id,omitempty"`
	Role       string `json:"role,omitempty"`
	Capability string `json:"capability,omitempty"`
	// Status is the job record's status (job.created, job.updated).
	Status string `json:"status,omitempty"`
	// State is the escrow state (job.settled).
	State string    `json:"state,omitempty"`
	Time  time.Time `json:"time"`
}

// eventBus fans job events out to the API's event streams. Publishing
// never blocks: a subscriber that falls behind loses events and is told to
// resync. It is safe for concurrent use.
type eventBus struct {
	mu     sync.Mutex
	subs   map[*eventSub]struct{}
	closed bool
}

type eventSub struct {
	ch   chan Event
	lost atomic.Bool
}

func newEventBus() *eventBus { return &eventBus{subs: make(map[*eventSub]struct{})} }

// publish sends ev to every subscriber that has room.
func (b *eventBus) publish(ev Event) {
	if ev.Time.IsZero() {
		ev.Time = time.Now().UTC()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for s := range b.subs {
		select {
		case s.ch <- ev:
		default:
			s.lost.Store(true)
		}
	}
}

// subscribe returns a subscription and its cancel function, or false when
// the bus is closed or has maxEventSubscribers already.
func (b *eventBus) subscribe() (*eventSub, func(), bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed || len(b.subs) >= maxEventSubscribers {
		return nil, nil, false
	}
	s := &eventSub{ch: make(chan Event, eventBuffer)}
	b.subs[s] = struct{}{}
	return s, func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		if _, ok := b.subs[s]; ok {
			delete(b.subs, s)
			close(s.ch)
		}
	}, true
}

// close ends every subscription: their streams return, so the API server
// can shut down.
func (b *eventBus) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	for s := range b.subs {
		delete(b.subs, s)
		close(s.ch)
	}
}

// jobChanged is the market's OnJob hook.
func (b *eventBus) jobChanged(r market.JobRecord, created bool) {
	typ := EventJobUpdated
	if created {
		typ = EventJobCreated
	}
	b.publish(Event{Type: typ, JobID: r.JobID, Role: r.Role, Capability: r.Capability, Status: r.Status, Time: r.UpdatedAt})
}

// settled is fed from the escrow's OnSettle hook.
func (b *eventBus) settled(r escrow.Record) {
	b.publish(Event{Type: EventJobSettled, JobID: r.JobID, Role: string(r.Role), Capability: r.Capability, State: string(r.State), Time: r.SettledAt})
}

// handleEvents streams job events as server-sent events (text/event-stream):
// "event: job" lines carry an Event, "event: resync" says events were lost.
// The stream ends when the client goes or the daemon stops.
func (a *apiServer) handleEvents(w http.ResponseWriter, r *http.Request) {
	sub, cancel, ok := a.n.events.subscribe()
	if !ok {
		apiError(w, http.StatusServiceUnavailable, fmt.Sprintf("too many event streams are open (at most %d); close a dashboard tab", maxEventSubscribers))
		return
	}
	defer cancel()
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	write := func(event string, v any) error {
		_ = rc.SetWriteDeadline(time.Now().Add(eventWriteTimeout))
		data, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, data); err != nil {
			return err
		}
		return rc.Flush()
	}
	// retry: how long the browser's EventSource waits before reconnecting.
	_ = rc.SetWriteDeadline(time.Now().Add(eventWriteTimeout))
	if _, err := fmt.Fprint(w, "retry: 2000\n: connected\n\n"); err != nil || rc.Flush() != nil {
		return
	}
	tick := time.NewTicker(eventHeartbeat)
	defer tick.Stop()
	for {
		select {
		case ev, open := <-sub.ch:
			if !open {
				return
			}
			if sub.lost.Swap(false) {
				if write(EventResync, Event{Type: EventResync, Time: time.Now().UTC()}) != nil {
					return
				}
			}
			if write("job", ev) != nil {
				return
			}
		case <-tick.C:
			_ = rc.SetWriteDeadline(time.Now().Add(eventWriteTimeout))
			if _, err := fmt.Fprint(w, ": ping\n\n"); err != nil || rc.Flush() != nil {
				return
			}
		case <-r.Context().Done():
			return
		}
	}
}
