// Package openai sells capabilities through an OpenAI-compatible model
// server (llama.cpp's llama-server, Ollama, vLLM, LM Studio, a hosted
// provider): the market.Runner of the "openai:MODEL" handler kind.
//
// A listing names the model, the server's base URL (up to and including
// /v1) and the environment variable the API key is read from (default
// OPENAI_API_KEY). The key is read from the daemon's environment at each
// request and sent as a bearer token when it is set; it is never stored,
// and it is cut out of every error and log line (a server that echoes it
// in an error body does not leak it).
//
// Capabilities and endpoints:
//
//   - POST {base}/chat/completions: text.summarize.{short,medium,long},
//     text.translate.{src}.{tgt}.{level}, text.rewrite.{formal,casual},
//     text.expand.{factor}, classify.text.{sentiment,toxicity,<taxonomy>},
//     code.generate.{language}.{script,function}, code.review.{language},
//     code.test.{language}, code.translate.{src}.{tgt}, and any other
//     capability whose listing brings its own prompt. The prompt is the
//     family's embedded template (prompts/*.tmpl) or the listing's own
//     ('sell add --prompt FILE', the same format: a "system" and a "user"
//     template, or a file that is all user prompt). The answer is asked
//     for as structured output (response_format json_schema with the
//     listing's output schema) and streamed; a server that refuses
//     response_format (400) is asked again without it, and remembered, and
//     the JSON is then taken from the content (code fences and <think>
//     blocks dropped; a bare text becomes the output's one required string
//     field).
//   - POST {base}/embeddings: embed.text.{model}, as {"vector", "dim"}.
//   - POST {base}/images/generations with response_format b64_json:
//     image.generate.*.png, as {"image_b64", "width", "height"}.
//
// A retry of a job (market.Attempt.Failed: the buyer's checks the last
// output failed) shows the model its previous answer and the failed checks.
//
// Errors: 429 (waiting Retry-After when it is given) and 5xx answers and
// refused connections are tried again with a doubling backoff while the
// job's deadline allows; 401 and 403 fail the job as "seller misconfigured"
// (the buyer learns that class only; the seller's log has the server's
// message, the key redacted); a hung server is cut at the deadline; an
// answer is read up to 32 MiB, a streamed line up to 1 MiB. Token usage of
// every request is added to the job's market.Usage.
package openai

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/verify"
)

// DefaultAPIKeyEnv is the variable the API key is read from when a listing
// names none.
const DefaultAPIKeyEnv = "OPENAI_API_KEY"

// Options configure a Runner.
type Options struct {
	// HTTPClient makes the requests; nil: a client that follows no
	// redirects (a redirect would send the buyer's input and the key
	// elsewhere).
	HTTPClient *http.Client
	// Getenv reads the API key; nil: os.Getenv.
	Getenv func(string) string
	// Logger; nil: slog.Default().
	Logger *slog.Logger
	// Now is the clock of Retry-After dates; nil: time.Now.
	Now func() time.Time
}

// Runner runs openai listings' jobs. It is safe for concurrent use.
type Runner struct {
	http   *http.Client
	getenv func(string) string
	log    *slog.Logger
	now    func() time.Time

	// noSchema holds the servers (base URL and model) that refused
	// response_format json_schema: they are asked for JSON in the content.
	noSchema sync.Map
}

var _ market.Runner = (*Runner)(nil)

// New returns a Runner.
func New(o Options) *Runner {
	r := &Runner{http: o.HTTPClient, getenv: o.Getenv, log: o.Logger, now: o.Now}
	if r.http == nil {
		r.http = &http.Client{}
	}
	c := *r.http
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	r.http = &c
	if r.getenv == nil {
		r.getenv = os.Getenv
	}
	if r.log == nil {
		r.log = slog.Default()
	}
	if r.now == nil {
		r.now = time.Now
	}
	return r
}

func keyEnv(hc market.HandlerConfig) string {
	if hc.APIKeyEnv != "" {
		return hc.APIKeyEnv
	}
	return DefaultAPIKeyEnv
}

func (r *Runner) apiKey(hc market.HandlerConfig) string {
	return strings.TrimSpace(r.getenv(keyEnv(hc)))
}

// Kind of endpoint a capability goes through.
const (
	endpointChat       = "chat"
	endpointEmbeddings = "embeddings"
	endpointImages     = "images"
)

// endpointOf says which endpoint sells capID, or why none does.
func endpointOf(capID string, ownPrompt bool) (string, error) {
	c, err := verify.Parse(capID)
	if err != nil {
		return "", err
	}
	switch {
	case strings.HasPrefix(c.Template, "embed.text."):
		return endpointEmbeddings, nil
	case strings.HasPrefix(c.Template, "image.generate.") && strings.HasSuffix(c.Template, ".png"):
		return endpointImages, nil
	case ownPrompt || promptFamily(c.Template) != "" && !strings.HasPrefix(c.Template, "image."):
		return endpointChat, nil
	}
	return "", fmt.Errorf("an openai handler has no prompt for %s; give one with --prompt FILE (families with prompts: %s; embed.text.{model} and image.generate.*.png use their own endpoints)", capID, strings.Join(families, ", "))
}

// CheckListing checks an openai handler for capID before it is stored: a
// base URL, an endpoint for the capability, a prompt template that parses.
func CheckListing(hc market.HandlerConfig, capID string) error {
	if hc.Kind != market.HandlerOpenAI {
		return fmt.Errorf("not an openai handler: %s", hc.Kind)
	}
	if hc.Model == "" {
		return errors.New("openai handler: the model is missing, as openai:llama3.2")
	}
	u, err := url.Parse(hc.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("openai handler: base URL %q: want the server's http:// or https:// URL up to /v1, as http://localhost:11434/v1", hc.BaseURL)
	}
	if u.User != nil {
		return errors.New("openai handler: the base URL must not hold credentials; put the key in the daemon's environment and name it with --api-key-env")
	}
	if err := market.CheckEnvNames([]string{keyEnv(hc)}); err != nil {
		return fmt.Errorf("openai handler: api key %w", err)
	}
	ep, err := endpointOf(capID, hc.Prompt != "")
	if err != nil {
		return err
	}
	if hc.Prompt != "" {
		if ep != endpointChat && ep != endpointImages {
			return fmt.Errorf("openai handler: %s goes through /v1/%s, which takes no prompt", capID, ep)
		}
		if _, err := parsePrompt("listing", hc.Prompt); err != nil {
			return err
		}
	}
	return nil
}

// Run runs one attempt of a job.
func (r *Runner) Run(ctx context.Context, a market.Attempt) (market.Answer, error) {
	var ans market.Answer
	ep, err := endpointOf(a.Capability, a.Handler.Prompt != "")
	if err != nil {
		return ans, market.Fail(market.ClassMisconfigured, err)
	}
	switch ep {
	case endpointEmbeddings:
		ans.Output, err = r.embed(ctx, a, &ans.Usage)
	case endpointImages:
		ans.Output, err = r.image(ctx, a, &ans.Usage)
	default:
		ans.Output, err = r.chat(ctx, a, &ans.Usage)
	}
	return ans, err
}

// chat asks for the output through chat completions.
func (r *Runner) chat(ctx context.Context, a market.Attempt, usage *market.Usage) (json.RawMessage, error) {
	msgs, err := messages(a)
	if err != nil {
		return nil, market.Fail(market.ClassMisconfigured, err)
	}
	req := chatRequest{
		Model: a.Handler.Model, Messages: msgs,
		Stream: true, StreamOptions: &streamOptions{IncludeUsage: true},
	}
	server := a.Handler.BaseURL + "\x00" + a.Handler.Model
	if _, refused := r.noSchema.Load(server); !refused && len(a.OutputSchema) > 0 {
		req.ResponseFormat = &responseFormat{Type: "json_schema", JSONSchema: &jsonSchemaFormat{Name: "output", Schema: a.OutputSchema}}
	}
	resp, err := r.call(ctx, a.Handler, "/chat/completions", req, usage)
	var se *statusError
	if errors.As(err, &se) && se.status == http.StatusBadRequest && req.ResponseFormat != nil {
		// Not every server takes structured output: ask for JSON in the
		// content (the prompt says how it must look).
		r.log.Info("model server refused response_format json_schema; asking for JSON in the content", "server", a.Handler.BaseURL, "model", a.Handler.Model, "answer", se.message)
		r.noSchema.Store(server, true)
		req.ResponseFormat = nil
		resp, err = r.call(ctx, a.Handler, "/chat/completions", req, usage)
	}
	if errors.As(err, &se) {
		return nil, market.Fail(classRefused, err)
	}
	if err != nil {
		return nil, err
	}
	var ca chatAnswer
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		ca, err = decodeChatStream(limitBody(resp), maxResponse)
		resp.Body.Close()
	} else {
		var data []byte
		if data, err = readBody(ctx, resp); err != nil {
			return nil, err
		}
		ca, err = decodeChat(data)
	}
	addUsage(usage, ca.usage)
	if err != nil {
		return nil, badAnswer(ctx, err)
	}
	out, err := outputFromContent(ca.content, a.OutputSchema)
	if err != nil {
		if ca.finishReason == "length" {
			err = fmt.Errorf("%w (the model stopped at its token limit)", err)
		}
		return nil, market.Fail(market.ClassBadAnswer, err)
	}
	return fixOutput(a.Capability, out), nil
}

// limitBody is a response body that reads at most maxResponse bytes.
func limitBody(resp *http.Response) *limitedReader {
	return &limitedReader{r: resp.Body, n: maxResponse}
}

type limitedReader struct {
	r interface{ Read([]byte) (int, error) }
	n int64
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, errTooLarge
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	return n, err
}

func addUsage(u *market.Usage, w *wireUsage) {
	p, c, t := w.tokens()
	u.PromptTokens += p
	u.CompletionTokens += c
	u.TotalTokens += t
}

// fetch posts one request to the model server and reads its whole answer;
// a non-2xx status is the server refusing the job.
func (r *Runner) fetch(ctx context.Context, h market.HandlerConfig, path string, body any, usage *market.Usage) ([]byte, error) {
	resp, err := r.call(ctx, h, path, body, usage)
	var se *statusError
	if errors.As(err, &se) {
		return nil, market.Fail(classRefused, err)
	}
	if err != nil {
		return nil, err
	}
	return readBody(ctx, resp)
}

// embed asks for the text's embedding.
func (r *Runner) embed(ctx context.Context, a market.Attempt, usage *market.Usage) (json.RawMessage, error) {
	var in struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(a.Input, &in); err != nil {
		return nil, market.Fail(market.ClassBadAnswer, fmt.Errorf("input: %w", err))
	}
	data, err := r.fetch(ctx, a.Handler, "/embeddings", embeddingsRequest{Model: a.Handler.Model, Input: in.Text, EncodingFormat: "float"}, usage)
	if err != nil {
		return nil, err
	}
	vec, u, err := decodeEmbeddings(data)
	addUsage(usage, u)
	if err != nil {
		return nil, badAnswer(ctx, err)
	}
	out, err := json.Marshal(map[string]any{"vector": vec, "dim": len(vec)})
	if err != nil {
		return nil, market.Fail(market.ClassBadAnswer, err)
	}
	return out, nil
}

// image asks for a PNG of the requested size.
func (r *Runner) image(ctx context.Context, a market.Attempt, usage *market.Usage) (json.RawMessage, error) {
	var in struct {
		Width  int    `json:"width"`
		Height int    `json:"height"`
		Seed   *int64 `json:"seed"`
	}
	if err := json.Unmarshal(a.Input, &in); err != nil {
		return nil, market.Fail(market.ClassBadAnswer, fmt.Errorf("input: %w", err))
	}
	prompt, err := userPrompt(a)
	if err != nil {
		return nil, market.Fail(market.ClassMisconfigured, err)
	}
	req := imagesRequest{
		Model: a.Handler.Model, Prompt: prompt, N: 1, ResponseFormat: "b64_json", Seed: in.Seed,
		Size: strconv.Itoa(in.Width) + "x" + strconv.Itoa(in.Height),
	}
	data, err := r.fetch(ctx, a.Handler, "/images/generations", req, usage)
	if err != nil {
		return nil, err
	}
	b64, u, err := decodeImages(data)
	addUsage(usage, u)
	if err != nil {
		return nil, badAnswer(ctx, err)
	}
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, market.Fail(market.ClassBadAnswer, fmt.Errorf("b64_json is not base64: %w", err))
	}
	cfg, err := png.DecodeConfig(strings.NewReader(string(raw)))
	if err != nil {
		return nil, market.Fail(market.ClassBadAnswer, fmt.Errorf("the image is not a PNG: %w", err))
	}
	out, err := json.Marshal(map[string]any{"image_b64": b64, "width": cfg.Width, "height": cfg.Height})
	if err != nil {
		return nil, market.Fail(market.ClassBadAnswer, err)
	}
	return out, nil
}
