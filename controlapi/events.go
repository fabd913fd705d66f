package controlapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
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
	// MaxEventStreams caps open event streams: each is one browser tab,
	// and a node's loopback API has no business serving hundreds.
	MaxEventStreams = 32
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

// handleEvents streams job events as server-sent events (text/event-stream):
// "event: job" lines carry an Event, "event: resync" says events were lost.
// The stream ends when the client goes or the daemon stops.
func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request) {
	sub, ok := s.b.SubscribeEvents()
	if !ok {
		apiError(w, http.StatusServiceUnavailable, fmt.Sprintf("too many event streams are open (at most %d); close a dashboard tab", MaxEventStreams))
		return
	}
	defer sub.Cancel()
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
		case ev, open := <-sub.C:
			if !open {
				return
			}
			if sub.Lost() {
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
		case <-s.quit:
			return
		case <-r.Context().Done():
			return
		}
	}
}
