package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// The A2A JSON-RPC endpoint.

// handleA2A answers one JSON-RPC request.
func (s *Server) handleA2A(w http.ResponseWriter, r *http.Request) {
	w.Header().Set(VersionHeader, ProtocolVersion)
	body, err := io.ReadAll(r.Body) // buffered by BufferBody, within its limits
	if err != nil {
		writeRPC(w, nil, nil, &rpcError{Code: codeParseError, Message: "read request: " + err.Error()})
		return
	}
	req, rerr := decodeRequest(body)
	if rerr != nil {
		writeRPC(w, req.ID, nil, rerr)
		return
	}
	if v := r.Header.Get(VersionHeader); !isVersionOK(v) {
		writeRPC(w, req.ID, nil, &rpcError{Code: codeVersionNotSupported, Message: fmt.Sprintf("A2A version %q is not supported: this gateway speaks %s", truncate(v), ProtocolVersion)})
		return
	}
	if m, ok := legacyMethods[req.Method]; ok {
		writeRPC(w, req.ID, nil, &rpcError{Code: codeVersionNotSupported, Message: fmt.Sprintf("%s is A2A v0.3; this gateway speaks A2A %s: call %s", req.Method, ProtocolVersion, m)})
		return
	}
	switch req.Method {
	case MethodSendMessage:
		s.sendMessage(w, r, req)
	case MethodSendStreamingMessage:
		s.streamMessage(w, r, req)
	case MethodSubscribeToTask:
		s.subscribeTask(w, r, req)
	case MethodGetTask, MethodListTasks, MethodCancelTask:
		ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
		defer cancel()
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(requestTimeout))
		var res any
		var err error
		switch req.Method {
		case MethodGetTask:
			res, err = s.getTask(ctx, req.Params)
		case MethodListTasks:
			res, err = s.listTasks(ctx, req.Params)
		default:
			res, err = s.cancelTask(ctx, req.Params)
		}
		if err != nil {
			writeRPC(w, req.ID, nil, toRPCError(err))
			return
		}
		writeRPC(w, req.ID, res, nil)
	case "CreateTaskPushNotificationConfig", "GetTaskPushNotificationConfig", "ListTaskPushNotificationConfigs", "DeleteTaskPushNotificationConfig":
		writeRPC(w, req.ID, nil, &rpcError{Code: codePushNotSupported, Message: "push notifications are not supported: stream the task (SendStreamingMessage, SubscribeToTask) or poll GetTask"})
	case "GetExtendedAgentCard":
		writeRPC(w, req.ID, nil, &rpcError{Code: -32007, Message: "there is no extended agent card: the public card at " + CardPath + " is the whole card"})
	default:
		writeRPC(w, req.ID, nil, &rpcError{Code: codeMethodNotFound, Message: fmt.Sprintf("method %q not found: this gateway serves %s, %s, %s, %s, %s and %s", truncate(req.Method),
			MethodSendMessage, MethodSendStreamingMessage, MethodGetTask, MethodListTasks, MethodCancelTask, MethodSubscribeToTask)})
	}
}

// decodeSend decodes SendMessage's params and the hire they ask for.
func decodeSend(raw json.RawMessage) (SendMessageRequest, hireSpec, error) {
	var p SendMessageRequest
	if err := decodeParams(raw, &p); err != nil {
		return p, hireSpec{}, err
	}
	if err := checkMessage(p.Message); err != nil {
		return p, hireSpec{}, err
	}
	if p.Message.TaskID != "" {
		return p, hireSpec{}, fmt.Errorf("%w: message names task %s: a hire's task takes no further messages; send a new message without taskId for a new hire", errBadParams, truncate(p.Message.TaskID))
	}
	spec, err := hireOf(p.Message)
	return p, spec, err
}

// historyLimit trims a task's history for an answer (nil: the whole
// history; 0: none).
func historyLimit(t Task, n *int) Task {
	if n == nil || *n < 0 || *n >= len(t.History) {
		return t
	}
	t.History = t.History[len(t.History)-*n:]
	if len(t.History) == 0 {
		t.History = nil
	}
	return t
}

// sendMessage starts a hire and answers with its task: when it is done,
// or at once with returnImmediately (or v0.3's blocking = false).
func (s *Server) sendMessage(w http.ResponseWriter, r *http.Request, req rpcRequest) {
	p, spec, err := decodeSend(req.Params)
	if err != nil {
		writeRPC(w, req.ID, nil, toRPCError(err))
		return
	}
	lt, err := s.tasks.start(*p.Message, spec, nil)
	if err != nil {
		writeRPC(w, req.ID, nil, toRPCError(err))
		return
	}
	wait := true
	var hist *int
	if c := p.Configuration; c != nil {
		wait = !c.ReturnImmediately && (c.Blocking == nil || *c.Blocking)
		hist = c.HistoryLength
	}
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(hireWait))
	if wait {
		t := time.NewTimer(hireWait - time.Minute)
		defer t.Stop()
		select {
		case <-lt.done:
		case <-r.Context().Done():
			return // the client left; the hire goes on, its task is stored
		case <-t.C:
		}
	}
	lt.mu.Lock()
	task := historyLimit(lt.rec.Task, hist)
	lt.mu.Unlock()
	writeRPC(w, req.ID, SendMessageResponse{Task: &task}, nil)
}

// streamMessage starts a hire and streams its task over SSE.
func (s *Server) streamMessage(w http.ResponseWriter, r *http.Request, req rpcRequest) {
	p, spec, err := decodeSend(req.Params)
	if err != nil {
		writeRPC(w, req.ID, nil, toRPCError(err))
		return
	}
	var sub *subscription
	lt, err := s.tasks.start(*p.Message, spec, func(id string) {
		sub = new(subscription)
		sub.rec, sub.events, sub.unsub, sub.err = s.tasks.subscribe(r.Context(), id)
	})
	if err != nil {
		if sub != nil && sub.err == nil {
			sub.unsub()
		}
		writeRPC(w, req.ID, nil, toRPCError(err))
		return
	}
	s.stream(w, r, req.ID, lt.rec.Task.ID, sub)
}

// subscription is a task's stream subscribed to before its hire started
// (taskManager.subscribe's results).
type subscription struct {
	rec    TaskRecord
	events <-chan StreamResponse
	unsub  func()
	err    error
}

// subscribeTask streams the rest of a running task.
func (s *Server) subscribeTask(w http.ResponseWriter, r *http.Request, req rpcRequest) {
	var p TaskIDRequest
	if err := decodeParams(req.Params, &p); err != nil {
		writeRPC(w, req.ID, nil, toRPCError(err))
		return
	}
	rec, err := s.tasks.get(r.Context(), p.ID)
	if err != nil {
		writeRPC(w, req.ID, nil, toRPCError(err))
		return
	}
	if terminal(rec.Task.Status.State) {
		writeRPC(w, req.ID, nil, &rpcError{Code: codeUnsupportedOp, Message: fmt.Sprintf("task %s is %s: there is nothing left to stream; GetTask returns it", rec.Task.ID, rec.Task.Status.State)})
		return
	}
	s.stream(w, r, req.ID, p.ID, nil)
}

// stream writes the task of id and then each of its events as SSE, each a
// JSON-RPC response to id, until the task ends or the client leaves. The
// last event is the task's terminal status.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, rpcID json.RawMessage, id string, pre *subscription) {
	ctx, cancel := context.WithTimeout(r.Context(), hireWait)
	defer cancel()
	if pre == nil {
		pre = new(subscription)
		pre.rec, pre.events, pre.unsub, pre.err = s.tasks.subscribe(ctx, id)
	}
	rec, events, unsub, err := pre.rec, pre.events, pre.unsub, pre.err
	if err != nil {
		writeRPC(w, rpcID, nil, toRPCError(err))
		return
	}
	defer unsub()
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	send := func(ev StreamResponse) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(requestTimeout))
		b, err := json.Marshal(rpcResponse{JSONRPC: "2.0", ID: rpcID, Result: ev})
		if err != nil {
			return false
		}
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	task := rec.Task
	if !send(StreamResponse{Task: &task}) || events == nil {
		return
	}
	sentFinal := false
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				if !sentFinal {
					s.sendFinal(ctx, id, send)
				}
				return
			}
			if ev.StatusUpdate != nil && terminal(ev.StatusUpdate.Status.State) {
				sentFinal = true
			}
			if !send(ev) {
				return
			}
		case <-tick.C:
			_ = rc.SetWriteDeadline(time.Now().Add(requestTimeout))
			if _, err := io.WriteString(w, ": keep-alive\n\n"); err != nil || rc.Flush() != nil {
				return
			}
		case <-ctx.Done():
			return
		}
	}
}

// sendFinal sends a finished task's artifacts and terminal status from
// its record, for a subscriber whose buffer lost them.
func (s *Server) sendFinal(ctx context.Context, id string, send func(StreamResponse) bool) {
	rec, err := s.tasks.get(ctx, id)
	if err != nil {
		return
	}
	t := rec.Task
	for _, a := range t.Artifacts {
		if !send(StreamResponse{ArtifactUpdate: &TaskArtifactUpdateEvent{TaskID: t.ID, ContextID: t.ContextID, Artifact: a, LastChunk: true}}) {
			return
		}
	}
	send(StreamResponse{StatusUpdate: &TaskStatusUpdateEvent{TaskID: t.ID, ContextID: t.ContextID, Status: t.Status}})
}

// getTask answers GetTask.
func (s *Server) getTask(ctx context.Context, raw json.RawMessage) (any, error) {
	var p TaskIDRequest
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	rec, err := s.tasks.get(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	t := historyLimit(rec.Task, p.HistoryLength)
	return &t, nil
}

// cancelTask answers CancelTask.
func (s *Server) cancelTask(ctx context.Context, raw json.RawMessage) (any, error) {
	var p TaskIDRequest
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	rec, err := s.tasks.cancelTask(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	return &rec.Task, nil
}

// listTasks answers ListTasks: newest first, a page at a time.
func (s *Server) listTasks(ctx context.Context, raw json.RawMessage) (any, error) {
	var p ListTasksRequest
	if len(raw) > 0 && string(raw) != "null" {
		if err := decodeParams(raw, &p); err != nil {
			return nil, err
		}
	}
	size := defaultPageSize
	if p.PageSize != nil {
		if *p.PageSize < 1 || *p.PageSize > maxPageSize {
			return nil, fmt.Errorf("%w: pageSize %d: want 1 to %d", errBadParams, *p.PageSize, maxPageSize)
		}
		size = *p.PageSize
	}
	if p.Status != "" && p.Status != "TASK_STATE_UNSPECIFIED" && !knownState(p.Status) {
		return nil, fmt.Errorf("%w: status %q is not a task state", errBadParams, truncate(p.Status))
	}
	if p.Status == "TASK_STATE_UNSPECIFIED" {
		p.Status = ""
	}
	if p.PageToken != "" && !validTaskID(p.PageToken) {
		return nil, fmt.Errorf("%w: pageToken %q is not one this gateway gave", errBadParams, truncate(p.PageToken))
	}
	recs, more, total, err := s.tasks.store.List(ctx, TaskFilter{ContextID: p.ContextID, State: p.Status, After: p.PageToken, Limit: size})
	if err != nil {
		return nil, err
	}
	out := ListTasksResponse{Tasks: make([]Task, 0, len(recs)), PageSize: size, TotalSize: total}
	hist := p.HistoryLength
	if hist == nil {
		zero := 0
		hist = &zero
	}
	for _, rec := range recs {
		t := historyLimit(rec.Task, hist)
		if p.IncludeArtifacts == nil || !*p.IncludeArtifacts {
			t.Artifacts = nil
		}
		out.Tasks = append(out.Tasks, t)
	}
	if more && len(recs) > 0 {
		out.NextPageToken = recs[len(recs)-1].Task.ID
	}
	return out, nil
}
