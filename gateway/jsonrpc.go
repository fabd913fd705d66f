package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// JSON-RPC 2.0 framing of the A2A binding.

// JSON-RPC and A2A error codes (A2A v1.0, "JSON-RPC error codes").
const (
	codeParseError          = -32700
	codeInvalidRequest      = -32600
	codeMethodNotFound      = -32601
	codeInvalidParams       = -32602
	codeInternal            = -32603
	codeTaskNotFound        = -32001
	codeTaskNotCancelable   = -32002
	codePushNotSupported    = -32003
	codeUnsupportedOp       = -32004
	codeVersionNotSupported = -32009
)

// A2A v1.0 method names.
const (
	MethodSendMessage          = "SendMessage"
	MethodSendStreamingMessage = "SendStreamingMessage"
	MethodGetTask              = "GetTask"
	MethodListTasks            = "ListTasks"
	MethodCancelTask           = "CancelTask"
	MethodSubscribeToTask      = "SubscribeToTask"
)

// legacyMethods are A2A v0.3's names of the same methods: a v0.3 client is
// told which version this gateway speaks instead of "method not found".
var legacyMethods = map[string]string{
	"message/send":      MethodSendMessage,
	"message/stream":    MethodSendStreamingMessage,
	"tasks/get":         MethodGetTask,
	"tasks/list":        MethodListTasks,
	"tasks/cancel":      MethodCancelTask,
	"tasks/resubscribe": MethodSubscribeToTask,
}

// rpcRequest is a JSON-RPC request as decoded.
type rpcRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("%s (code %d)", e.Message, e.Code) }

var _ error = (*rpcError)(nil)

// rpcResponse is a JSON-RPC response: result or error.
type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// maxMethodLen caps a method name; the longest is 20 bytes.
const maxMethodLen = 64

// decodeRequest decodes one JSON-RPC request. Batches are refused: A2A
// sends one request per HTTP request. The id it returns is usable in an
// error answer even when the request is not ("null" when unknown).
func decodeRequest(body []byte) (rpcRequest, *rpcError) {
	var req rpcRequest
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		return rpcRequest{ID: json.RawMessage("null")}, &rpcError{Code: codeInvalidRequest, Message: "batch requests are not supported: send one JSON-RPC request per HTTP request"}
	}
	if err := json.Unmarshal(trimmed, &req); err != nil {
		return rpcRequest{ID: json.RawMessage("null")}, &rpcError{Code: codeParseError, Message: "request is not a JSON-RPC object: " + err.Error()}
	}
	if !validID(req.ID) {
		req.ID = json.RawMessage("null")
		return req, &rpcError{Code: codeInvalidRequest, Message: "id must be a string or a number"}
	}
	if req.JSONRPC != "2.0" {
		return req, &rpcError{Code: codeInvalidRequest, Message: `jsonrpc must be "2.0"`}
	}
	if req.Method == "" || len(req.Method) > maxMethodLen {
		return req, &rpcError{Code: codeInvalidRequest, Message: "method is missing or too long"}
	}
	return req, nil
}

// validID accepts a string or number id (a notification, without an id,
// gets no answer in JSON-RPC, but every A2A method answers: the gateway
// refuses notifications).
func validID(id json.RawMessage) bool {
	if len(id) == 0 {
		return false
	}
	switch id[0] {
	case '"':
		var s string
		return json.Unmarshal(id, &s) == nil && len(s) <= maxIDLen
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		var n json.Number
		return json.Unmarshal(id, &n) == nil && len(id) <= 32
	}
	return false
}

// toRPCError maps an error of a method to its JSON-RPC error.
func toRPCError(err error) *rpcError {
	var re *rpcError
	switch {
	case errors.As(err, &re):
		return re
	case errors.Is(err, errBadParams):
		return &rpcError{Code: codeInvalidParams, Message: err.Error()}
	case errors.Is(err, ErrTaskNotFound):
		return &rpcError{Code: codeTaskNotFound, Message: err.Error()}
	case errors.Is(err, ErrNotCancelable):
		return &rpcError{Code: codeTaskNotCancelable, Message: err.Error()}
	default:
		return &rpcError{Code: codeInternal, Message: err.Error()}
	}
}

// writeRPC writes one JSON-RPC response as the HTTP answer. JSON-RPC errors
// travel with status 200, as the binding wants.
func writeRPC(w http.ResponseWriter, id json.RawMessage, result any, rerr *rpcError) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	resp := rpcResponse{JSONRPC: "2.0", ID: id, Result: result, Error: rerr}
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(resp)
}
