// Package openaitest is an OpenAI-compatible model server for tests: the
// wire format of POST /v1/chat/completions (JSON answers and, when the
// request says stream, server-sent events of chunks with a usage chunk
// and "data: [DONE]"; response_format json_schema, or a 400 for it as
// servers without structured output answer), /v1/embeddings and
// /v1/images/generations (b64_json), bearer-key checks and error bodies
// {"error": {"message", "type", "param", "code"}}, with a scripted model.
// It is imported by tests only.
package openaitest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Message is one chat message of a request.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ChatRequest is a chat completion request as the server read it.
type ChatRequest struct {
	Model         string    `json:"model"`
	Messages      []Message `json:"messages"`
	Stream        bool      `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	ResponseFormat *struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Name   string          `json:"name"`
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
}

// Server is the test server. Set its fields before the first request.
type Server struct {
	*httptest.Server
	// Key, when set, is the bearer key every request must carry (else 401
	// with an error body that echoes the key it got, as some servers do).
	Key string
	// Chat answers a chat request with the assistant's content.
	Chat func(req ChatRequest) string
	// NoStructuredOutput answers 400 to a response_format json_schema.
	NoStructuredOutput bool
	// IgnoreStream answers JSON even when the request asks to stream.
	IgnoreStream bool
	// Dim is the length of embeddings (default 384).
	Dim int
	// Fail, when set, answers a request instead of the model: return 0 to
	// let the request through, else the status, headers and body to send.
	Fail func(path string, n int) (status int, header http.Header, body string)

	mu       sync.Mutex
	requests map[string]int
	chats    []ChatRequest
}

// New starts a server on loopback, closed when the test ends.
func New(t testing.TB) *Server {
	s := &Server{requests: make(map[string]int), Dim: 384}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.chat)
	mux.HandleFunc("POST /v1/embeddings", s.embeddings)
	mux.HandleFunc("POST /v1/images/generations", s.images)
	s.Server = httptest.NewServer(s.gate(mux))
	t.Cleanup(s.Close)
	return s
}

// BaseURL is the server's URL up to /v1.
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Requests counts the requests to path so far.
func (s *Server) Requests(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[path]
}

// Chats are the chat requests so far.
func (s *Server) Chats() []ChatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ChatRequest(nil), s.chats...)
}

// WriteError writes an OpenAI error body.
func WriteError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}})
}

func (s *Server) gate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests[r.URL.Path]++
		n := s.requests[r.URL.Path]
		s.mu.Unlock()
		if s.Fail != nil {
			if st, h, body := s.Fail(r.URL.Path, n); st != 0 {
				for k, v := range h {
					w.Header()[k] = v
				}
				if body == "" {
					WriteError(w, st, "server_error", http.StatusText(st))
					return
				}
				if w.Header().Get("Content-Type") == "" {
					w.Header().Set("Content-Type", "application/json")
				}
				w.WriteHeader(st)
				_, _ = w.Write([]byte(body))
				return
			}
		}
		if s.Key != "" {
			got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
			if got != s.Key {
				WriteError(w, http.StatusUnauthorized, "invalid_request_error", fmt.Sprintf("Incorrect API key provided: %s. You can find your API key at https://platform.openai.com/account/api-keys.", got))
				return
			}
		}
		if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			WriteError(w, http.StatusBadRequest, "invalid_request_error", "Content-Type must be application/json")
			return
		}
		next.ServeHTTP(w, r)
	})
}

func words(s string) int64 { return int64(len(strings.Fields(s))) }

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	var req ChatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		WriteError(w, http.StatusBadRequest, "invalid_request_error", "We could not parse the JSON body of your request.")
		return
	}
	if req.Model == "" || len(req.Messages) == 0 {
		WriteError(w, http.StatusBadRequest, "invalid_request_error", "you must provide a model parameter and messages")
		return
	}
	if rf := req.ResponseFormat; rf != nil {
		if s.NoStructuredOutput && rf.Type == "json_schema" {
			WriteError(w, http.StatusBadRequest, "invalid_request_error", "response_format json_schema is not supported by this server")
			return
		}
		if rf.Type == "json_schema" && (rf.JSONSchema == nil || rf.JSONSchema.Name == "" || !json.Valid(rf.JSONSchema.Schema)) {
			WriteError(w, http.StatusBadRequest, "invalid_request_error", "response_format.json_schema needs a name and a schema")
			return
		}
	}
	s.mu.Lock()
	s.chats = append(s.chats, req)
	s.mu.Unlock()
	content := s.Chat(req)
	var prompt int64
	for _, m := range req.Messages {
		prompt += words(m.Content)
	}
	usage := map[string]int64{"prompt_tokens": prompt, "completion_tokens": words(content), "total_tokens": prompt + words(content)}
	id, created := "chatcmpl-test", time.Now().Unix()
	if !req.Stream || s.IgnoreStream {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": id, "object": "chat.completion", "created": created, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": content, "refusal": nil}, "logprobs": nil, "finish_reason": "stop"}},
			"usage":   usage,
		})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	fl, _ := w.(http.Flusher)
	send := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if fl != nil {
			fl.Flush()
		}
	}
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}}}
	}
	fmt.Fprint(w, ": keep-alive\n\n")
	send(chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	for len(content) > 0 {
		n := min(7, len(content))
		for n < len(content) && !utf8Start(content[n]) {
			n++
		}
		send(chunk(map[string]any{"content": content[:n]}, nil))
		content = content[n:]
	}
	send(chunk(map[string]any{}, "stop"))
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		send(map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": req.Model, "choices": []any{}, "usage": usage})
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

func (s *Server) embeddings(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model          string `json:"model"`
		Input          any    `json:"input"`
		EncodingFormat string `json:"encoding_format"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model == "" {
		WriteError(w, http.StatusBadRequest, "invalid_request_error", "model and input are required")
		return
	}
	text, ok := req.Input.(string)
	if !ok || text == "" {
		WriteError(w, http.StatusBadRequest, "invalid_request_error", "'input' : input must be a non-empty string")
		return
	}
	vec := make([]float64, s.Dim)
	for i := range vec {
		vec[i] = float64((i*31+len(text))%97) / 97
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"object": "list", "model": req.Model,
		"data":  []any{map[string]any{"object": "embedding", "index": 0, "embedding": vec}},
		"usage": map[string]int64{"prompt_tokens": words(text), "total_tokens": words(text)},
	})
}

func (s *Server) images(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model          string `json:"model"`
		Prompt         string `json:"prompt"`
		N              int    `json:"n"`
		Size           string `json:"size"`
		ResponseFormat string `json:"response_format"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Prompt == "" {
		WriteError(w, http.StatusBadRequest, "invalid_request_error", "prompt is required")
		return
	}
	ws, hs, ok := strings.Cut(req.Size, "x")
	wd, err1 := strconv.Atoi(ws)
	ht, err2 := strconv.Atoi(hs)
	if !ok || err1 != nil || err2 != nil || wd <= 0 || ht <= 0 || wd > 4096 || ht > 4096 {
		WriteError(w, http.StatusBadRequest, "invalid_request_error", fmt.Sprintf("Invalid size %q", req.Size))
		return
	}
	img := image.NewRGBA(image.Rect(0, 0, wd, ht))
	for y := range ht {
		for x := range wd {
			img.Set(x, y, color.RGBA{uint8(40 + x*200/wd), uint8(60 + y*180/ht), uint8((x + y) % 256), 255})
		}
	}
	var buf bytes.Buffer
	_ = png.Encode(&buf, img)
	item := map[string]any{"revised_prompt": req.Prompt}
	if req.ResponseFormat == "b64_json" {
		item["b64_json"] = base64.StdEncoding.EncodeToString(buf.Bytes())
	} else {
		item["url"] = s.URL + "/images/1.png"
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"created": time.Now().Unix(), "data": []any{item},
		"usage": map[string]int64{"input_tokens": words(req.Prompt), "output_tokens": 1056, "total_tokens": words(req.Prompt) + 1056}})
}
