package gateway

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/node"
)

// Tasks: each A2A task is one hire through the node's hire service
// (node.RunHire, the same entry point as the control API's POST /v1/hire).

// ErrNotCancelable is returned when a task can no longer be cancelled: it
// is done, or its output was delivered (it is verified and settles by
// itself).
var ErrNotCancelable = errors.New("task cannot be cancelled")

// Stages of a hire, as the data part of each WORKING status update names
// them.
const (
	stageRouting      = "routing"
	stageQuote        = "quote"
	stageLock         = "lock"
	stageAccepted     = "accepted"
	stageProgress     = "progress"
	stageDelivery     = "delivery"
	stageVerification = "verification"
)

const (
	// subBuffer is the room of one subscriber's channel; a slower one
	// loses intermediate updates, never the end (the stream writer sends
	// the final state from the record).
	subBuffer = 64
	// pollJob is how often a task whose hire outlived a restart is looked
	// at until its job settles.
	pollJob = 2 * time.Second
	// maxHistory caps the messages a task keeps: the client's message and
	// the agent's last status messages.
	maxHistory = 32
)

// hirer is what tasks need of the node: its hire service. *node.Node
// implements it; unit tests fake it.
type hirer interface {
	RunHire(ctx context.Context, req market.HireRequest, progress func(market.Event)) controlapi.HireInfo
	CancelJob(ctx context.Context, jobID string) (escrow.Record, error)
	JobResult(ctx context.Context, jobID string) (controlapi.HireInfo, error)
	Receipt(ctx context.Context, jobID string) (json.RawMessage, error)
}

// liveTask is a task whose hire runs in this process.
type liveTask struct {
	mu        sync.Mutex
	rec       TaskRecord
	cancel    context.CancelCauseFunc
	cancelled bool // the client cancelled it
	subs      []chan StreamResponse
	done      chan struct{} // closed when the task reached a terminal state
}

// taskManager runs and tracks tasks. Safe for concurrent use.
type taskManager struct {
	h     hirer
	store Store
	caps  Caps
	log   *slog.Logger
	now   func() time.Time

	mu   sync.Mutex
	live map[string]*liveTask

	ctx    context.Context // hires run under it; Close cancels it
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func newTaskManager(h hirer, store Store, caps Caps, log *slog.Logger, now func() time.Time) *taskManager {
	ctx, cancel := context.WithCancel(context.Background())
	return &taskManager{h: h, store: store, caps: caps, log: log, now: now, live: make(map[string]*liveTask), ctx: ctx, cancel: cancel}
}

// close stops every hire (each is refunded by the market, or after a
// restart by reconciliation) and waits for their tasks to be stored.
func (m *taskManager) close() {
	m.cancel()
	m.wg.Wait()
}

// newID makes a task ID: creation time in nanoseconds and 8 random bytes,
// in hex, so that IDs sort by creation.
func (m *taskManager) newID() string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(m.now().UnixNano()))
	_, _ = rand.Read(b[8:]) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b[:])
}

func randomID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// start creates the task of a message that asks to hire spec and starts
// its hire. A message refused by a cap becomes a REJECTED task, so the
// client sees why in the task like any other outcome.
func (m *taskManager) start(msg Message, spec hireSpec, onLive func(id string)) (*liveTask, error) {
	if m.ctx.Err() != nil {
		return nil, errors.New("the gateway is shutting down")
	}
	now := m.now().UTC()
	id := m.newID()
	if msg.ContextID == "" {
		msg.ContextID = randomID()
	}
	msg.TaskID = id
	if msg.MessageID == "" {
		msg.MessageID = randomID()
	}
	msg.Role = RoleUser
	rec := TaskRecord{
		Task: Task{
			ID: id, ContextID: msg.ContextID,
			Status:   TaskStatus{State: StateSubmitted, Timestamp: stamp(now)},
			History:  []Message{msg},
			Metadata: map[string]any{"capability": spec.Capability},
		},
		Capability: spec.Capability, CreatedAt: now, UpdatedAt: now,
	}
	req, capErr := m.caps.request(spec, m.now())
	if capErr != nil {
		m.finalize(&rec, StateRejected, capErr.Error(), nil)
	}
	if err := m.store.Put(m.ctx, rec); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancelCause(m.ctx)
	lt := &liveTask{rec: rec, cancel: cancel, done: make(chan struct{})}
	if capErr != nil {
		cancel(nil)
		close(lt.done)
		return lt, nil
	}
	m.mu.Lock()
	m.live[id] = lt
	m.mu.Unlock()
	if onLive != nil {
		// Before the hire starts: a stream that subscribes here sees the
		// task as submitted, then every step.
		onLive(id)
	}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		defer cancel(nil)
		m.run(ctx, lt, req)
	}()
	return lt, nil
}

// run hires for lt and records each step.
func (m *taskManager) run(ctx context.Context, lt *liveTask, req market.HireRequest) {
	within := "no price limit"
	if req.MaxPrice > 0 {
		within = "max_price " + escrow.FormatAmount(req.MaxPrice)
	}
	m.working(lt, stageRouting, fmt.Sprintf("finding a seller of %s within %s", req.Capability, within), nil)
	info := m.h.RunHire(ctx, req, func(ev market.Event) { m.onEvent(lt, ev) })
	lt.mu.Lock()
	cancelled := lt.cancelled
	lt.mu.Unlock()
	m.finish(lt, info, cancelled)
}

// onEvent turns a hire event into status updates.
func (m *taskManager) onEvent(lt *liveTask, ev market.Event) {
	switch ev.Type {
	case market.EventLocked:
		lt.mu.Lock()
		lt.rec.JobID = ev.JobID
		lt.mu.Unlock()
		m.working(lt, stageQuote, "quote accepted: "+ev.Message, map[string]any{"job_id": ev.JobID})
		m.working(lt, stageLock, "price held in escrow for job "+ev.JobID+"; the job goes to the seller", map[string]any{"job_id": ev.JobID})
	case market.EventAccepted:
		m.working(lt, stageAccepted, "the seller accepted job "+ev.JobID, map[string]any{"job_id": ev.JobID})
	case market.EventProgress:
		msg := ev.Message
		if msg == "" {
			msg = fmt.Sprintf("job %s running (%.1fs)", ev.JobID, float64(ev.ElapsedMS)/1000)
		}
		m.working(lt, stageProgress, msg, map[string]any{"job_id": ev.JobID, "elapsed_ms": ev.ElapsedMS})
	case market.EventResult:
		m.working(lt, stageDelivery, "the seller delivered the output of job "+ev.JobID+"; verifying it", map[string]any{"job_id": ev.JobID})
	case market.EventError:
		m.working(lt, stageProgress, "the seller reported: "+ev.Message, map[string]any{"job_id": ev.JobID})
	}
}

// working records a WORKING status with a message for stage.
func (m *taskManager) working(lt *liveTask, stage, text string, data map[string]any) {
	if data == nil {
		data = map[string]any{}
	}
	data["stage"] = stage
	m.update(lt, func(rec *TaskRecord) []StreamResponse {
		if terminal(rec.Task.Status.State) {
			return nil
		}
		rec.Task.Status = TaskStatus{State: StateWorking, Message: m.agentMessage(rec, text, data), Timestamp: stamp(m.now())}
		return []StreamResponse{{StatusUpdate: &TaskStatusUpdateEvent{TaskID: rec.Task.ID, ContextID: rec.Task.ContextID, Status: rec.Task.Status}}}
	})
}

// agentMessage is a status message of the agent: text and a data part.
func (m *taskManager) agentMessage(rec *TaskRecord, text string, data map[string]any) *Message {
	msg := &Message{MessageID: randomID(), ContextID: rec.Task.ContextID, TaskID: rec.Task.ID, Role: RoleAgent, Parts: []Part{textPart(text)}}
	if len(data) > 0 {
		b, _ := json.Marshal(data)
		msg.Parts = append(msg.Parts, dataPart("status", b))
	}
	return msg
}

// update applies fn to lt's record, stores it and hands the events fn
// returns to the subscribers.
func (m *taskManager) update(lt *liveTask, fn func(*TaskRecord) []StreamResponse) {
	lt.mu.Lock()
	evs := fn(&lt.rec)
	if evs == nil {
		lt.mu.Unlock()
		return
	}
	lt.rec.UpdatedAt = m.now().UTC()
	rec := lt.rec
	subs := append([]chan StreamResponse(nil), lt.subs...)
	lt.mu.Unlock()
	// A failed write is logged: the task goes on in memory, and the final
	// state is written again at the end.
	if err := m.store.Put(context.WithoutCancel(m.ctx), rec); err != nil {
		m.log.Warn("store task", "task", rec.Task.ID, "err", err)
	}
	for _, c := range subs {
		for _, ev := range evs {
			select {
			case c <- ev:
			default:
			}
		}
	}
}

// finish records the hire's result as the task's terminal state and ends
// every subscription.
func (m *taskManager) finish(lt *liveTask, info controlapi.HireInfo, cancelled bool) {
	state, text := outcomeState(info, cancelled, m.ctx.Err() != nil)
	var receipt json.RawMessage
	if state == StateCompleted && info.JobID != "" {
		var err error
		if receipt, err = m.h.Receipt(context.WithoutCancel(m.ctx), info.JobID); err != nil {
			m.log.Debug("no receipt yet", "job", info.JobID, "err", err)
		}
	}
	var evs []StreamResponse
	lt.mu.Lock()
	if info.JobID != "" {
		lt.rec.JobID = info.JobID
	}
	m.finalize(&lt.rec, state, text, &hireOutcome{info: info, receipt: receipt})
	for _, a := range lt.rec.Task.Artifacts {
		evs = append(evs, StreamResponse{ArtifactUpdate: &TaskArtifactUpdateEvent{TaskID: lt.rec.Task.ID, ContextID: lt.rec.Task.ContextID, Artifact: a, LastChunk: true}})
	}
	evs = append(evs, StreamResponse{StatusUpdate: &TaskStatusUpdateEvent{TaskID: lt.rec.Task.ID, ContextID: lt.rec.Task.ContextID, Status: lt.rec.Task.Status}})
	rec := lt.rec
	subs := lt.subs
	lt.subs = nil
	lt.mu.Unlock()
	if err := m.store.Put(context.WithoutCancel(m.ctx), rec); err != nil {
		m.log.Error("store finished task", "task", rec.Task.ID, "err", err)
	}
	for _, c := range subs {
		for _, ev := range evs {
			select {
			case c <- ev:
			default:
			}
		}
		close(c)
	}
	close(lt.done)
	m.mu.Lock()
	delete(m.live, rec.Task.ID)
	m.mu.Unlock()
}

// hireOutcome is what finalize puts in a finished task.
type hireOutcome struct {
	info    controlapi.HireInfo
	receipt json.RawMessage
}

// finalize sets rec's terminal state, its message and, for a completed
// hire, the artifact: the output, the verification report and the signed
// receipt.
func (m *taskManager) finalize(rec *TaskRecord, state, text string, out *hireOutcome) {
	now := m.now().UTC()
	data := map[string]any{"stage": "done"}
	if out != nil {
		info := out.info
		meta := map[string]any{"capability": info.Capability, "outcome": info.Outcome, "rail": info.Rail, "duration_ms": info.DurationMS}
		for k, v := range map[string]string{"escrow_state": info.Escrow.State, "job_id": info.JobID, "seller": info.Seller, "price": info.Price, "escrow_reason": info.Escrow.Reason, "error": info.Error} {
			if v != "" {
				meta[k] = v
			}
		}
		rec.Task.Metadata = map[string]any{"swarmwage": meta}
		for k, v := range meta {
			data[k] = v
		}
		if state == StateCompleted {
			report, _ := json.Marshal(info.Verification)
			parts := []Part{dataPart("output", info.Output), dataPart("verification", report)}
			if len(out.receipt) > 0 {
				parts = append(parts, dataPart("receipt", out.receipt))
			}
			rec.Task.Artifacts = []Artifact{{
				ArtifactID: "result", Name: "result",
				Description: "the verified output of job " + info.JobID + ", its verification report and the signed receipt",
				Parts:       parts,
			}}
		}
	}
	rec.Task.Status = TaskStatus{State: state, Message: m.agentMessage(rec, text, data), Timestamp: stamp(now)}
	rec.Task.History = append(rec.Task.History, *rec.Task.Status.Message)
	if len(rec.Task.History) > maxHistory {
		rec.Task.History = append(rec.Task.History[:1], rec.Task.History[len(rec.Task.History)-maxHistory+1:]...)
	}
	rec.UpdatedAt = now
}

// outcomeState maps a hire's outcome to a task state and a sentence.
func outcomeState(info controlapi.HireInfo, cancelled, stopping bool) (string, string) {
	refunded := "the hold was refunded"
	if info.Escrow.State != "" && info.Escrow.State != string(escrow.StateRefunded) {
		refunded = "escrow " + info.Escrow.State
	}
	if info.JobID == "" {
		refunded = "nothing was locked"
	}
	switch info.Outcome {
	case controlapi.OutcomeReleased, controlapi.OutcomeDelivered:
		n := len(info.Verification.Checks)
		return StateCompleted, fmt.Sprintf("completed: the output of job %s passed verification (%d checks); %s paid to seller %s", info.JobID, n, info.Price, info.Seller)
	case controlapi.OutcomeNoSeller:
		return StateRejected, "rejected: no seller within the price: " + info.Error
	case controlapi.OutcomeSpendCap, controlapi.OutcomeNeedsConfirm, controlapi.OutcomeInvalidInput:
		return StateRejected, "rejected: " + info.Error
	case controlapi.OutcomeCancelled:
		if stopping && !cancelled {
			return StateFailed, "failed: the daemon stopped during the hire; " + refunded
		}
		return StateCanceled, "canceled before delivery; " + refunded
	}
	if cancelled && info.Outcome != controlapi.OutcomeRunning {
		return StateCanceled, "canceled before delivery; " + refunded
	}
	if stopping {
		return StateFailed, "failed: the daemon stopped during the hire (" + info.Error + "); " + refunded
	}
	return StateFailed, fmt.Sprintf("failed (%s): %s; %s", info.Outcome, info.Error, refunded)
}

// get returns the task of id, live or stored.
func (m *taskManager) get(ctx context.Context, id string) (TaskRecord, error) {
	m.mu.Lock()
	lt := m.live[id]
	m.mu.Unlock()
	if lt != nil {
		lt.mu.Lock()
		defer lt.mu.Unlock()
		return lt.rec, nil
	}
	return m.store.Get(ctx, id)
}

// subscribe returns the task of id now and, while it runs, a channel of
// its next events, closed at its end (nil when it is done).
func (m *taskManager) subscribe(ctx context.Context, id string) (TaskRecord, <-chan StreamResponse, func(), error) {
	m.mu.Lock()
	lt := m.live[id]
	m.mu.Unlock()
	if lt == nil {
		rec, err := m.store.Get(ctx, id)
		return rec, nil, func() {}, err
	}
	lt.mu.Lock()
	defer lt.mu.Unlock()
	if terminal(lt.rec.Task.Status.State) {
		return lt.rec, nil, func() {}, nil
	}
	c := make(chan StreamResponse, subBuffer)
	lt.subs = append(lt.subs, c)
	unsub := func() {
		lt.mu.Lock()
		defer lt.mu.Unlock()
		for i, s := range lt.subs {
			if s == c {
				lt.subs = append(lt.subs[:i], lt.subs[i+1:]...)
				return
			}
		}
	}
	return lt.rec, c, unsub, nil
}

// cancelTask cancels a task whose output was not delivered: its hire is
// stopped and the hold refunded. It returns the task once it is canceled.
func (m *taskManager) cancelTask(ctx context.Context, id string) (TaskRecord, error) {
	m.mu.Lock()
	lt := m.live[id]
	m.mu.Unlock()
	if lt == nil {
		rec, err := m.store.Get(ctx, id)
		if err != nil {
			return rec, err
		}
		return rec, fmt.Errorf("%w: task %s is %s", ErrNotCancelable, id, rec.Task.Status.State)
	}
	lt.mu.Lock()
	jobID := lt.rec.JobID
	lt.cancelled = true
	if jobID == "" {
		// Not locked yet: stop the hire where it is.
		lt.cancel(market.ErrCancelled)
	}
	lt.mu.Unlock()
	if jobID != "" {
		// The node cancels its hire unless the output was delivered.
		if _, err := m.h.CancelJob(ctx, jobID); err != nil {
			if errors.Is(err, escrow.ErrBadState) {
				return TaskRecord{}, fmt.Errorf("%w: the output of job %s was delivered; it is verified and settles by itself", ErrNotCancelable, jobID)
			}
			if !errors.Is(err, node.ErrNotRunning) {
				return TaskRecord{}, fmt.Errorf("cancel job %s: %w", jobID, err)
			}
		}
	}
	select {
	case <-lt.done:
	case <-ctx.Done():
		return TaskRecord{}, ctx.Err()
	}
	rec, err := m.get(ctx, id)
	if err != nil {
		return rec, err
	}
	if rec.Task.Status.State != StateCanceled {
		return rec, fmt.Errorf("%w: task %s ended %s before the cancel took effect", ErrNotCancelable, id, rec.Task.Status.State)
	}
	return rec, nil
}

// reconcile takes over the tasks a previous run left open: a task whose
// job was locked follows that job until it settles; one that never got a
// job failed with nothing locked.
func (m *taskManager) reconcile(ctx context.Context) error {
	open, err := m.store.Open(ctx)
	if err != nil {
		return err
	}
	for _, rec := range open {
		lt := &liveTask{rec: rec, cancel: func(error) {}, done: make(chan struct{})}
		if rec.JobID == "" {
			m.finalize(&lt.rec, StateFailed, "failed: the daemon stopped before a seller took the job; nothing was locked", nil)
			if err := m.store.Put(ctx, lt.rec); err != nil {
				return err
			}
			continue
		}
		m.mu.Lock()
		m.live[rec.Task.ID] = lt
		m.mu.Unlock()
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			m.follow(lt)
		}()
	}
	return nil
}

// follow waits for the job of a task taken over from a previous run to
// settle, then finishes the task with its result.
func (m *taskManager) follow(lt *liveTask) {
	t := time.NewTicker(pollJob)
	defer t.Stop()
	for {
		info, err := m.h.JobResult(m.ctx, lt.rec.JobID)
		if err == nil && info.Outcome != controlapi.OutcomeRunning {
			m.finish(lt, info, false)
			return
		}
		select {
		case <-m.ctx.Done():
			return // still open: the next start takes it over again
		case <-t.C:
		}
	}
}

// stamp is a status timestamp (RFC 3339, UTC, milliseconds).
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
