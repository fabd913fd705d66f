package node

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market"
)

// Event types of GET /v1/events (controlapi's).
const (
	EventJobCreated = controlapi.EventJobCreated
	EventJobUpdated = controlapi.EventJobUpdated
	EventJobSettled = controlapi.EventJobSettled
	EventResync     = controlapi.EventResync
)

const (
	// eventBuffer is how many events wait for one slow subscriber before
	// it loses some (and then gets a resync).
	eventBuffer = 64
	// maxEventSubscribers caps open event streams.
	maxEventSubscribers = controlapi.MaxEventStreams
)

// Event is one event of GET /v1/events (controlapi.Event).
type Event = controlapi.Event

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

// stream is s as the control API's event stream.
func (s *eventSub) stream(cancel func()) controlapi.EventStream {
	return controlapi.EventStream{C: s.ch, Lost: func() bool { return s.lost.Swap(false) }, Cancel: cancel}
}
