package openai

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// The OpenAI wire format, as far as this handler uses it: requests of
// POST /v1/chat/completions, /v1/embeddings and /v1/images/generations,
// their answers (a JSON document, or for a streamed chat completion
// server-sent events of chunks ending with "data: [DONE]") and the error
// body {"error": {"message", "type", "code"}}. Every decoder reads bytes
// from a server the seller configured but does not control, so each one
// bounds what it keeps and reports malformed input as an error.

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type jsonSchemaFormat struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict bool            `json:"strict"`
}

type responseFormat struct {
	Type       string            `json:"type"`
	JSONSchema *jsonSchemaFormat `json:"json_schema,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type chatRequest struct {
	Model          string          `json:"model"`
	Messages       []chatMessage   `json:"messages"`
	ResponseFormat *responseFormat `json:"response_format,omitempty"`
	Stream         bool            `json:"stream,omitempty"`
	StreamOptions  *streamOptions  `json:"stream_options,omitempty"`
}

// wireUsage is the usage object of every answer: chat and embeddings name
// prompt and completion tokens, image generation input and output tokens.
type wireUsage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	InputTokens      int64 `json:"input_tokens"`
	OutputTokens     int64 `json:"output_tokens"`
	TotalTokens      int64 `json:"total_tokens"`
}

func (u *wireUsage) tokens() (prompt, completion, total int64) {
	if u == nil {
		return 0, 0, 0
	}
	prompt, completion = u.PromptTokens+u.InputTokens, u.CompletionTokens+u.OutputTokens
	total = u.TotalTokens
	if total == 0 {
		total = prompt + completion
	}
	return max(prompt, 0), max(completion, 0), max(total, 0)
}

type chatResponse struct {
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
			Refusal *string `json:"refusal"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *wireUsage `json:"usage"`
}

// chatAnswer is a decoded chat completion: the first choice's content.
type chatAnswer struct {
	content      string
	finishReason string
	usage        *wireUsage
}

// errNoChoice is a chat answer without a usable first choice.
var errNoChoice = errors.New("the answer has no choice with content")

// decodeChat decodes a chat completion's JSON body.
func decodeChat(data []byte) (chatAnswer, error) {
	var r chatResponse
	if err := json.Unmarshal(data, &r); err != nil {
		return chatAnswer{}, fmt.Errorf("decode chat completion: %w", err)
	}
	if len(r.Choices) == 0 {
		return chatAnswer{usage: r.Usage}, errNoChoice
	}
	c := r.Choices[0]
	if c.Message.Content == nil {
		if c.Message.Refusal != nil {
			return chatAnswer{usage: r.Usage}, fmt.Errorf("the model refused: %s", truncate(*c.Message.Refusal, 200))
		}
		return chatAnswer{usage: r.Usage}, errNoChoice
	}
	return chatAnswer{content: *c.Message.Content, finishReason: c.FinishReason, usage: r.Usage}, nil
}

type chatChunk struct {
	Choices []struct {
		Delta struct {
			Content *string `json:"content"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *wireUsage     `json:"usage"`
	Error *wireErrorBody `json:"error"`
}

const (
	// maxSSELine caps one line of an event stream: a chunk carries a few
	// tokens, so 1 MiB is far above any honest one.
	maxSSELine = 1 << 20
	// maxChunks caps the chunks of one streamed answer: a server that
	// sends empty chunks forever is cut before the deadline.
	maxChunks = 1 << 20
)

// decodeChatStream reads a streamed chat completion (server-sent events
// whose data lines are chunks, ending with "data: [DONE]") and joins the
// first choice's content deltas, at most limit bytes of it.
func decodeChatStream(r io.Reader, limit int) (chatAnswer, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var (
		content strings.Builder
		ans     chatAnswer
		got     bool
	)
	for n := 0; ; n++ {
		if n > maxChunks {
			return ans, fmt.Errorf("event stream over %d lines", maxChunks)
		}
		line, err := readLine(br, maxSSELine)
		if errors.Is(err, io.EOF) {
			if !got {
				return ans, errors.New("event stream ended before any chunk")
			}
			// A server that closes without [DONE]: what came is the answer.
			break
		}
		if err != nil {
			return ans, err
		}
		data, ok := strings.CutPrefix(line, "data:")
		if !ok {
			continue // comments (": ping"), event:, id:, retry:, blank lines
		}
		data = strings.TrimSpace(data)
		if data == "[DONE]" {
			break
		}
		var ch chatChunk
		if err := json.Unmarshal([]byte(data), &ch); err != nil {
			return ans, fmt.Errorf("decode chunk: %w", err)
		}
		if ch.Error != nil {
			return ans, fmt.Errorf("error in the event stream: %s", truncate(ch.Error.Message, 200))
		}
		got = true
		if ch.Usage != nil {
			ans.usage = ch.Usage
		}
		if len(ch.Choices) == 0 {
			continue
		}
		c := ch.Choices[0]
		if c.Delta.Content != nil {
			if content.Len()+len(*c.Delta.Content) > limit {
				return ans, errTooLarge
			}
			content.WriteString(*c.Delta.Content)
		}
		if c.FinishReason != nil {
			ans.finishReason = *c.FinishReason
		}
	}
	ans.content = content.String()
	return ans, nil
}

// errTooLarge is an answer over its size limit.
var errTooLarge = errors.New("answer over the size limit")

// readLine reads one line of at most limit bytes, without its "\n" or
// "\r\n".
func readLine(br *bufio.Reader, limit int) (string, error) {
	var buf []byte
	for {
		part, isPrefix, err := br.ReadLine()
		if err != nil {
			if len(buf) > 0 && errors.Is(err, io.EOF) {
				return string(buf), nil
			}
			return "", err
		}
		buf = append(buf, part...)
		if len(buf) > limit {
			return "", fmt.Errorf("event stream line over %d bytes", limit)
		}
		if !isPrefix {
			return string(buf), nil
		}
	}
}

type embeddingsRequest struct {
	Model          string `json:"model"`
	Input          string `json:"input"`
	EncodingFormat string `json:"encoding_format"`
}

type embeddingsResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float64 `json:"embedding"`
	} `json:"data"`
	Usage *wireUsage `json:"usage"`
}

// decodeEmbeddings decodes an embeddings answer: the vector of index 0.
func decodeEmbeddings(data []byte) ([]float64, *wireUsage, error) {
	var r embeddingsResponse
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, nil, fmt.Errorf("decode embeddings: %w", err)
	}
	for _, d := range r.Data {
		if d.Index == 0 {
			if len(d.Embedding) == 0 {
				return nil, r.Usage, errors.New("decode embeddings: the embedding is empty")
			}
			return d.Embedding, r.Usage, nil
		}
	}
	return nil, r.Usage, errors.New("decode embeddings: no embedding of index 0")
}

type imagesRequest struct {
	Model          string `json:"model"`
	Prompt         string `json:"prompt"`
	N              int    `json:"n"`
	Size           string `json:"size"`
	ResponseFormat string `json:"response_format"`
	Seed           *int64 `json:"seed,omitempty"`
}

type imagesResponse struct {
	Data []struct {
		B64JSON string `json:"b64_json"`
		URL     string `json:"url"`
	} `json:"data"`
	Usage *wireUsage `json:"usage"`
}

// decodeImages decodes an image generation answer: the first image's
// base64.
func decodeImages(data []byte) (string, *wireUsage, error) {
	var r imagesResponse
	if err := json.Unmarshal(data, &r); err != nil {
		return "", nil, fmt.Errorf("decode images: %w", err)
	}
	if len(r.Data) == 0 {
		return "", r.Usage, errors.New("decode images: no image in the answer")
	}
	if r.Data[0].B64JSON == "" {
		if r.Data[0].URL != "" {
			return "", r.Usage, errors.New("decode images: the server answered a URL, not b64_json")
		}
		return "", r.Usage, errors.New("decode images: the image has no b64_json")
	}
	return r.Data[0].B64JSON, r.Usage, nil
}

type wireErrorBody struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Code    any    `json:"code"`
}

// decodeError reads the message of an error body ({"error": {"message":
// ...}}, or {"error": "..."} as some servers write it), else a short
// prefix of the body.
func decodeError(data []byte) string {
	var r struct {
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(data, &r); err == nil && len(r.Error) > 0 {
		var b wireErrorBody
		if json.Unmarshal(r.Error, &b) == nil && b.Message != "" {
			return truncate(b.Message, 300)
		}
		var s string
		if json.Unmarshal(r.Error, &s) == nil && s != "" {
			return truncate(s, 300)
		}
	}
	return truncate(string(bytes.TrimSpace(data)), 300)
}

// truncate cuts s to at most n bytes on a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	return s[:n] + "..."
}
