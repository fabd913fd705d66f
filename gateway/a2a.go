package gateway

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// A2A v1.0 wire types, in the protocol's JSON form (camelCase fields,
// SCREAMING_SNAKE enums, a Part's content as one of text, data, url or
// raw). Only what the gateway reads or writes is here.

// Task states (A2A v1.0 TaskState).
const (
	StateSubmitted     = "TASK_STATE_SUBMITTED"
	StateWorking       = "TASK_STATE_WORKING"
	StateCompleted     = "TASK_STATE_COMPLETED"
	StateFailed        = "TASK_STATE_FAILED"
	StateCanceled      = "TASK_STATE_CANCELED"
	StateRejected      = "TASK_STATE_REJECTED"
	StateInputRequired = "TASK_STATE_INPUT_REQUIRED"
	StateAuthRequired  = "TASK_STATE_AUTH_REQUIRED"
)

// Message roles.
const (
	RoleUser  = "ROLE_USER"
	RoleAgent = "ROLE_AGENT"
)

// terminal reports whether a task in state s is done for good.
func terminal(s string) bool {
	switch s {
	case StateCompleted, StateFailed, StateCanceled, StateRejected:
		return true
	}
	return false
}

// knownState reports whether s is a task state a filter may name.
func knownState(s string) bool {
	switch s {
	case StateSubmitted, StateWorking, StateCompleted, StateFailed, StateCanceled, StateRejected, StateInputRequired, StateAuthRequired:
		return true
	}
	return false
}

// Part is one piece of a message or an artifact.
type Part struct {
	Text      *string         `json:"text,omitempty"`
	Data      json.RawMessage `json:"data,omitempty"`
	URL       string          `json:"url,omitempty"`
	Raw       []byte          `json:"raw,omitempty"`
	Filename  string          `json:"filename,omitempty"`
	MediaType string          `json:"mediaType,omitempty"`
	Metadata  map[string]any  `json:"metadata,omitempty"`
}

// Message is one turn of a conversation.
type Message struct {
	MessageID        string         `json:"messageId"`
	ContextID        string         `json:"contextId,omitempty"`
	TaskID           string         `json:"taskId,omitempty"`
	Role             string         `json:"role"`
	Parts            []Part         `json:"parts"`
	Metadata         map[string]any `json:"metadata,omitempty"`
	Extensions       []string       `json:"extensions,omitempty"`
	ReferenceTaskIDs []string       `json:"referenceTaskIds,omitempty"`
}

// TaskStatus is a task's state with the agent's message about it.
type TaskStatus struct {
	State     string   `json:"state"`
	Message   *Message `json:"message,omitempty"`
	Timestamp string   `json:"timestamp,omitempty"`
}

// Artifact is what a task produced.
type Artifact struct {
	ArtifactID  string         `json:"artifactId"`
	Name        string         `json:"name,omitempty"`
	Description string         `json:"description,omitempty"`
	Parts       []Part         `json:"parts"`
	Metadata    map[string]any `json:"metadata,omitempty"`
}

// Task is one hire as A2A sees it.
type Task struct {
	ID        string         `json:"id"`
	ContextID string         `json:"contextId"`
	Status    TaskStatus     `json:"status"`
	Artifacts []Artifact     `json:"artifacts,omitempty"`
	History   []Message      `json:"history,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// TaskStatusUpdateEvent is a streamed change of a task's status.
type TaskStatusUpdateEvent struct {
	TaskID    string         `json:"taskId"`
	ContextID string         `json:"contextId"`
	Status    TaskStatus     `json:"status"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// TaskArtifactUpdateEvent is a streamed artifact of a task.
type TaskArtifactUpdateEvent struct {
	TaskID    string   `json:"taskId"`
	ContextID string   `json:"contextId"`
	Artifact  Artifact `json:"artifact"`
	Append    bool     `json:"append,omitempty"`
	LastChunk bool     `json:"lastChunk,omitempty"`
}

// StreamResponse is one event of a stream: exactly one field is set.
type StreamResponse struct {
	Task           *Task                    `json:"task,omitempty"`
	Message        *Message                 `json:"message,omitempty"`
	StatusUpdate   *TaskStatusUpdateEvent   `json:"statusUpdate,omitempty"`
	ArtifactUpdate *TaskArtifactUpdateEvent `json:"artifactUpdate,omitempty"`
}

// SendMessageResponse is the result of SendMessage: the task.
type SendMessageResponse struct {
	Task *Task `json:"task,omitempty"`
}

// ListTasksResponse is the result of ListTasks.
type ListTasksResponse struct {
	Tasks         []Task `json:"tasks"`
	NextPageToken string `json:"nextPageToken"`
	PageSize      int    `json:"pageSize"`
	TotalSize     int    `json:"totalSize"`
}

// Request parameters.

// SendMessageConfiguration is how the client wants the answer.
type SendMessageConfiguration struct {
	AcceptedOutputModes []string `json:"acceptedOutputModes,omitempty"`
	HistoryLength       *int     `json:"historyLength,omitempty"`
	// ReturnImmediately answers with the task as soon as it is created
	// instead of when it is done.
	ReturnImmediately bool `json:"returnImmediately,omitempty"`
	// Blocking is v0.3's inverse of ReturnImmediately, read when given.
	Blocking *bool `json:"blocking,omitempty"`
}

// SendMessageRequest is the params of SendMessage and SendStreamingMessage.
type SendMessageRequest struct {
	Tenant        string                    `json:"tenant,omitempty"`
	Message       *Message                  `json:"message"`
	Configuration *SendMessageConfiguration `json:"configuration,omitempty"`
	Metadata      map[string]any            `json:"metadata,omitempty"`
}

// TaskIDRequest is the params of GetTask, CancelTask and SubscribeToTask.
type TaskIDRequest struct {
	Tenant        string         `json:"tenant,omitempty"`
	ID            string         `json:"id"`
	HistoryLength *int           `json:"historyLength,omitempty"`
	Metadata      map[string]any `json:"metadata,omitempty"`
}

// ListTasksRequest is the params of ListTasks.
type ListTasksRequest struct {
	Tenant           string `json:"tenant,omitempty"`
	ContextID        string `json:"contextId,omitempty"`
	Status           string `json:"status,omitempty"`
	PageSize         *int   `json:"pageSize,omitempty"`
	PageToken        string `json:"pageToken,omitempty"`
	HistoryLength    *int   `json:"historyLength,omitempty"`
	IncludeArtifacts *bool  `json:"includeArtifacts,omitempty"`
}

// Limits on what one request may carry.
const (
	// maxParts caps the parts of one message: a hire needs one.
	maxParts = 16
	// maxIDLen caps task, context and message IDs (they are stored).
	maxIDLen = 128
	// maxPageSize caps a ListTasks page, as the spec's 100.
	maxPageSize = 100
	// defaultPageSize is a ListTasks page when the client gives none.
	defaultPageSize = 50
)

// errBadParams is wrapped by every params decoding error: JSON-RPC
// invalid params.
var errBadParams = errors.New("invalid params")

// decodeParams decodes raw into v, refusing unknown shapes with a message
// that names what is wrong.
func decodeParams(raw json.RawMessage, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		return fmt.Errorf("%w: params are missing", errBadParams)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%w: %v", errBadParams, err)
	}
	return nil
}

// checkMessage checks a message a client sent.
func checkMessage(m *Message) error {
	if m == nil {
		return fmt.Errorf("%w: message is missing", errBadParams)
	}
	if len(m.Parts) == 0 {
		return fmt.Errorf("%w: message has no parts", errBadParams)
	}
	if len(m.Parts) > maxParts {
		return fmt.Errorf("%w: message has %d parts, at most %d", errBadParams, len(m.Parts), maxParts)
	}
	for _, id := range []struct{ name, v string }{{"messageId", m.MessageID}, {"contextId", m.ContextID}, {"taskId", m.TaskID}} {
		if len(id.v) > maxIDLen {
			return fmt.Errorf("%w: message %s is over %d bytes", errBadParams, id.name, maxIDLen)
		}
	}
	switch strings.ToUpper(m.Role) {
	case "", RoleUser, "USER":
	default:
		return fmt.Errorf("%w: message role %q: a client sends ROLE_USER", errBadParams, m.Role)
	}
	return nil
}

// textPart is a part holding s.
func textPart(s string) Part { return Part{Text: &s} }

// dataPart is a part holding v as JSON, named in its metadata.
func dataPart(name string, v json.RawMessage) Part {
	return Part{Data: v, MediaType: "application/json", Metadata: map[string]any{"name": name}}
}
