package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/market/handler/openai"
	"github.com/swarmwage/swarmwage/market/handler/openai/openaitest"
	"github.com/swarmwage/swarmwage/verify"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
		goleak.IgnoreTopFunction("internal/poll.runtime_pollWait"))
}

const article = "The city council met on Tuesday to discuss the new park. Residents asked for more trees, a playground and better lighting. " +
	"The mayor said the budget allows two of the three this year. Work starts in spring and should end before the summer holidays. " +
	"Several shop owners welcomed the plan because the park will bring visitors to the old market street. " +
	"Others worried about parking, which is already scarce on weekends. The council will vote on the final design next month."

// offer is a listing of capID on an openai handler of srv, as the store
// keeps it (schemas from the taxonomy, or given).
func offer(t *testing.T, capID string, srv *openaitest.Server, edit func(*market.HandlerConfig)) market.Offer {
	t.Helper()
	hc := market.HandlerConfig{Kind: market.HandlerOpenAI, Model: "test-model", BaseURL: srv.BaseURL(), APIKeyEnv: "TEST_OPENAI_KEY"}
	if edit != nil {
		edit(&hc)
	}
	in, err := verify.InputSchema(capID)
	require.NoError(t, err)
	out, err := verify.OutputSchema(capID)
	require.NoError(t, err)
	require.NoError(t, openai.CheckListing(hc, capID))
	return market.Offer{Signed: market.SignedListing{Listing: market.Listing{Capability: capID, InputSchema: in, OutputSchema: out}}, Handler: hc}
}

func runner(key string, log *bytes.Buffer) *openai.Runner {
	o := openai.Options{Getenv: func(name string) string {
		if name == "TEST_OPENAI_KEY" {
			return key
		}
		return ""
	}}
	if log != nil {
		o.Logger = slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return openai.New(o)
}

func runs(r market.Runner) map[string]market.Runner {
	return map[string]market.Runner{market.HandlerOpenAI: r}
}

func testOffer(t *testing.T, o market.Offer, input string, r market.Runner) market.TestResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	res, err := market.TestOfferWith(ctx, o, json.RawMessage(input), nil, nil, runs(r))
	require.NoError(t, err)
	return res
}

func userText(req openaitest.ChatRequest) string {
	for _, m := range req.Messages {
		if m.Role == "user" {
			return m.Content
		}
	}
	return ""
}

func TestSummarizeStreamedWithStructuredOutputPassesTheBuyersChecks(t *testing.T) {
	srv := openaitest.New(t)
	srv.Key = "sk-test-123"
	srv.Chat = func(req openaitest.ChatRequest) string {
		return `{"summary":"The council plans a park; work starts in spring."}`
	}
	input, _ := json.Marshal(map[string]string{"text": article})
	res := testOffer(t, offer(t, "text.summarize.short", srv, nil), string(input), runner("sk-test-123", nil))
	require.True(t, res.Passed, "%+v", res)
	require.JSONEq(t, `{"summary":"The council plans a park; work starts in spring."}`, string(res.Output))
	require.Len(t, res.Attempts, 1)
	require.NotNil(t, res.Usage)
	assert.Equal(t, 1, res.Usage.Requests)
	assert.Positive(t, res.Usage.PromptTokens)
	assert.Equal(t, int64(9), res.Usage.CompletionTokens)
	assert.Equal(t, res.Usage.PromptTokens+res.Usage.CompletionTokens, res.Usage.TotalTokens)

	chats := srv.Chats()
	require.Len(t, chats, 1)
	req := chats[0]
	assert.True(t, req.Stream)
	require.NotNil(t, req.StreamOptions)
	assert.True(t, req.StreamOptions.IncludeUsage)
	require.NotNil(t, req.ResponseFormat)
	assert.Equal(t, "json_schema", req.ResponseFormat.Type)
	want, _ := verify.OutputSchema("text.summarize.short")
	assert.JSONEq(t, string(want), string(req.ResponseFormat.JSONSchema.Schema))
	assert.Equal(t, "test-model", req.Model)
	words := verify.WordCount(article)
	assert.Contains(t, userText(req), "at most", "the prompt states the bound (input has %d words)", words)
	assert.Contains(t, userText(req), article)
}

func TestChatAnswerWithoutStreamingIsRead(t *testing.T) {
	srv := openaitest.New(t)
	srv.IgnoreStream = true
	srv.Chat = func(openaitest.ChatRequest) string { return `{"sentiment":"Positive","confidence":0.9}` }
	res := testOffer(t, offer(t, "classify.text.sentiment", srv, nil), `{"text":"I love this park, it is wonderful."}`, runner("", nil))
	require.True(t, res.Passed, "%+v", res)
	require.JSONEq(t, `{"sentiment":"positive","confidence":0.9}`, string(res.Output), "the sentiment is lowercased")
	assert.Equal(t, int64(1), res.Usage.CompletionTokens, "the test server counts words")
}

func TestServerWithoutStructuredOutputIsAskedForJSONInTheContent(t *testing.T) {
	srv := openaitest.New(t)
	srv.NoStructuredOutput = true
	srv.Chat = func(openaitest.ChatRequest) string {
		return "<think>short it must be</think>\nHere you go:\n```json\n{\"summary\": \"A park is planned.\"}\n```"
	}
	r := runner("", nil)
	o := offer(t, "text.summarize.short", srv, nil)
	input, _ := json.Marshal(map[string]string{"text": article})
	res := testOffer(t, o, string(input), r)
	require.True(t, res.Passed, "%+v", res)
	require.JSONEq(t, `{"summary":"A park is planned."}`, string(res.Output))
	assert.Equal(t, 2, srv.Requests("/v1/chat/completions"), "one refused with response_format, one without")
	assert.Equal(t, 2, res.Usage.Requests)

	// The server is remembered: the next job asks without response_format.
	srv.Chat = func(openaitest.ChatRequest) string { return "A park is planned for spring." }
	res = testOffer(t, o, string(input), r)
	require.True(t, res.Passed, "%+v", res)
	require.JSONEq(t, `{"summary":"A park is planned for spring."}`, string(res.Output), "a bare text becomes the one required field")
	assert.Equal(t, 3, srv.Requests("/v1/chat/completions"))
	assert.Nil(t, srv.Chats()[1].ResponseFormat)
}

func TestTooLongSummaryIsRetriedWithTheFailedCheck(t *testing.T) {
	srv := openaitest.New(t)
	srv.Chat = func(req openaitest.ChatRequest) string {
		if len(req.Messages) > 2 {
			return `{"summary":"A park is planned."}`
		}
		return `{"summary":` + mustJSON(article) + `}` // the whole text: far over 20%
	}
	input, _ := json.Marshal(map[string]string{"text": article})
	res := testOffer(t, offer(t, "text.summarize.short", srv, nil), string(input), runner("", nil))
	require.True(t, res.Passed, "%+v", res)
	require.Len(t, res.Attempts, 2)
	assert.False(t, res.Attempts[0].Passed)
	require.NotEmpty(t, res.Attempts[0].Failed)
	assert.Equal(t, "word_count_ratio", res.Attempts[0].Failed[0].Name)
	assert.True(t, res.Attempts[1].Passed)

	retry := srv.Chats()[1].Messages
	require.Len(t, retry, 4, "system, user, the rejected answer, the checks")
	assert.Equal(t, "assistant", retry[2].Role)
	assert.Contains(t, retry[2].Content, "city council")
	assert.Contains(t, retry[3].Content, "word_count_ratio")
	assert.Contains(t, retry[3].Content, "it must be at most 20%")
}

func TestModelThatNeverCompliesFailsAfterTheRetries(t *testing.T) {
	srv := openaitest.New(t)
	srv.Chat = func(openaitest.ChatRequest) string { return `{"summary":` + mustJSON(article) + `}` }
	input, _ := json.Marshal(map[string]string{"text": article})
	for _, tc := range []struct {
		name     string
		retries  *int
		attempts int
	}{
		{"default retries", nil, 3},
		{"no retry", new(0), 1},
		{"five retries", new(5), 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := srv.Requests("/v1/chat/completions")
			o := offer(t, "text.summarize.short", srv, func(h *market.HandlerConfig) { h.Retries = tc.retries })
			res := testOffer(t, o, string(input), runner("", nil))
			require.False(t, res.Passed)
			require.Len(t, res.Attempts, tc.attempts)
			assert.Equal(t, tc.attempts, srv.Requests("/v1/chat/completions")-before)
			assert.True(t, strings.HasPrefix(res.Error, market.ClassChecks+": word_count_ratio"), res.Error)
			assert.False(t, res.Verification.Passed, "the last output is shown with its failed report")
		})
	}
}

func TestRateLimitsAndServerErrorsAreRetriedWithinTheDeadline(t *testing.T) {
	srv := openaitest.New(t)
	srv.Chat = func(openaitest.ChatRequest) string { return `{"toxic":false,"confidence":0.8}` }
	srv.Fail = func(path string, n int) (int, http.Header, string) {
		switch n {
		case 1:
			return http.StatusTooManyRequests, http.Header{"Retry-After": {"0.2"}}, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`
		case 2:
			return http.StatusServiceUnavailable, nil, ""
		case 3:
			return http.StatusInternalServerError, nil, "<html>oops</html>"
		}
		return 0, nil, ""
	}
	start := time.Now()
	res := testOffer(t, offer(t, "classify.text.toxicity", srv, nil), `{"text":"have a nice day"}`, runner("", nil))
	require.True(t, res.Passed, "%+v", res)
	assert.Equal(t, 4, res.Usage.Requests)
	assert.GreaterOrEqual(t, time.Since(start), 200*time.Millisecond, "Retry-After was waited for")

	// A Retry-After past the job's deadline ends the job at once.
	srv.Fail = func(string, int) (int, http.Header, string) {
		return http.StatusTooManyRequests, http.Header{"Retry-After": {"120"}}, ""
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
	defer cancel()
	o := offer(t, "classify.text.toxicity", srv, nil)
	_, err := runner("", nil).Run(ctx, market.Attempt{Capability: o.Signed.Listing.Capability, Handler: o.Handler, Input: json.RawMessage(`{"text":"x"}`), OutputSchema: o.Signed.Listing.OutputSchema})
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), market.ClassUnavailable+":"), err.Error())
	assert.NoError(t, ctx.Err(), "it did not wait for the deadline")
}

func TestBadKeyFailsAsSellerMisconfiguredWithoutTheKey(t *testing.T) {
	srv := openaitest.New(t)
	srv.Key = "sk-right"
	srv.Chat = func(openaitest.ChatRequest) string { return `{"toxic":false,"confidence":0.8}` }
	var logs bytes.Buffer
	const secret = "sk-wrong-but-secret-4242"
	res := testOffer(t, offer(t, "classify.text.toxicity", srv, nil), `{"text":"hello"}`, runner(secret, &logs))
	require.False(t, res.Passed)
	assert.True(t, strings.HasPrefix(res.Error, "seller misconfigured: "), res.Error)
	assert.Contains(t, res.Error, "$TEST_OPENAI_KEY", "the seller is told where the key comes from")
	assert.NotContains(t, res.Error, secret, "the server echoed the key; it is redacted")
	assert.Contains(t, res.Error, "[redacted]")
	assert.NotContains(t, logs.String(), secret)
	assert.Equal(t, 1, srv.Requests("/v1/chat/completions"), "401 is not retried")

	b, _ := json.Marshal(res)
	assert.NotContains(t, string(b), secret)
}

func TestHungServerIsCutAtTheDeadline(t *testing.T) {
	srv := openaitest.New(t)
	release := make(chan struct{})
	defer close(release)
	srv.Fail = func(string, int) (int, http.Header, string) {
		<-release
		return http.StatusServiceUnavailable, nil, ""
	}
	o := offer(t, "classify.text.toxicity", srv, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	_, err := runner("", nil).Run(ctx, market.Attempt{Capability: o.Signed.Listing.Capability, Handler: o.Handler, Input: json.RawMessage(`{"text":"x"}`), OutputSchema: o.Signed.Listing.OutputSchema})
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), market.ClassTimeout+":"), err.Error())
}

func TestOversizedAnswersAreRefused(t *testing.T) {
	huge := strings.Repeat("a", 2<<20)
	// One line of an event stream over 1 MiB.
	srv2 := openaitest.New(t)
	srv2.Fail = func(string, int) (int, http.Header, string) {
		return http.StatusOK, http.Header{"Content-Type": {"text/event-stream"}}, "data: " + huge + "\n\n"
	}
	o := offer(t, "classify.text.toxicity", srv2, nil)
	a := market.Attempt{Capability: o.Signed.Listing.Capability, Handler: o.Handler, Input: json.RawMessage(`{"text":"x"}`), OutputSchema: o.Signed.Listing.OutputSchema}
	_, err := runner("", nil).Run(t.Context(), a)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "line over")

	// A JSON answer over 32 MiB.
	srv3 := openaitest.New(t)
	big := strings.Repeat(" ", 33<<20)
	srv3.Fail = func(string, int) (int, http.Header, string) { return http.StatusOK, nil, big }
	a.Handler = offer(t, "classify.text.toxicity", srv3, nil).Handler
	_, err = runner("", nil).Run(t.Context(), a)
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), market.ClassTooLarge+":"), err.Error())
}

func TestEmbeddingsAndImages(t *testing.T) {
	srv := openaitest.New(t)
	res := testOffer(t, offer(t, "embed.text.all-minilm-l6-v2", srv, nil), `{"text":"hello world"}`, runner("", nil))
	require.True(t, res.Passed, "%+v", res)
	var emb struct {
		Vector []float64 `json:"vector"`
		Dim    int       `json:"dim"`
	}
	require.NoError(t, json.Unmarshal(res.Output, &emb))
	assert.Equal(t, 384, emb.Dim)
	assert.Len(t, emb.Vector, 384)
	assert.Equal(t, int64(2), res.Usage.PromptTokens)

	// A model of another dimension fails model_dimension, every retry.
	srv.Dim = 768
	res = testOffer(t, offer(t, "embed.text.all-minilm-l6-v2", srv, nil), `{"text":"hello world"}`, runner("", nil))
	require.False(t, res.Passed)
	assert.Contains(t, res.Error, "model_dimension")

	res = testOffer(t, offer(t, "image.generate.photorealistic.png", srv, nil), `{"prompt":"a red barn at dusk","width":64,"height":48}`, runner("", nil))
	require.True(t, res.Passed, "%+v", res)
	var img struct {
		Width, Height int
	}
	require.NoError(t, json.Unmarshal(res.Output, &img))
	assert.Equal(t, 64, img.Width)
	assert.Equal(t, 48, img.Height)
	assert.Equal(t, int64(1056), res.Usage.CompletionTokens)
}

// TestEveryChatFamilyHasAPromptThatRenders sells one capability of each
// chat family against a model that answers a valid output, and checks
// that the prompt carried the input and the family's instructions.
func TestEveryChatFamilyHasAPromptThatRenders(t *testing.T) {
	testCases := []struct {
		capID, input, answer, inPrompt string
	}{
		{"text.summarize.medium", mustJSON(map[string]string{"text": article}), `{"summary":"The council discussed a new park; two of three wishes fit this year's budget, and a vote follows next month."}`, "between"},
		{"text.summarize.long", mustJSON(map[string]string{"text": article}), `{"summary":"The council discussed a new park. Residents want trees, a playground and lighting; the budget allows two this year. Work runs from spring to summer. Shops welcome it, others fear for parking. A vote follows next month."}`, "between"},
		{"text.translate.en.de.fluent", `{"text":"The weather is nice today and we are going to the park with the children."}`, `{"text":"Das Wetter ist heute schön und wir gehen mit den Kindern in den Park."}`, "into German"},
		{"text.rewrite.formal", `{"text":"hey, can u send me the report asap? thx"}`, `{"text":"Could you please send me the report at your earliest convenience? Thank you."}`, "formal"},
		{"text.rewrite.casual", `{"text":"Kindly submit the report at your earliest convenience."}`, `{"text":"Hey, send over the report when you can!"}`, "casual"},
		{"text.expand.2", `{"text":"Cats sleep a lot."}`, `{"text":"Cats sleep a lot, often twelve to sixteen hours every single day."}`, "2 times"},
		{"classify.text.toxicity", `{"text":"you are great"}`, `{"toxic":false,"confidence":0.95}`, "toxic"},
		{"classify.text.topics", `{"text":"The match ended two to one."}`, `{"labels":[{"label":"sport","confidence":0.7},{"label":"news","confidence":0.25}]}`, `"topics" taxonomy`},
		{"code.generate.python.script", `{"task":"print the numbers 1 to 3"}`, `{"code":"` + "```python\\nfor i in range(1, 4):\\n    print(i)\\n```" + `","deps":[]}`, "print the numbers"},
		{"code.generate.go.function", `{"signature":"func Add(a, b int) int","behavior":"returns a+b"}`, `{"code":"func Add(a, b int) int { return a + b }"}`, "func Add(a, b int) int"},
		{"code.review.python", `{"code":"def f(x):\n    return x/0\n"}`, `{"findings":[{"severity":"high","line":2,"message":"division by zero"}]}`, "Review"},
		{"code.test.python", `{"code":"def add(a, b):\n    return a + b\n","test_framework":"pytest"}`, `{"tests":"from m import add\n\ndef test_add():\n    assert add(1, 2) == 3\n"}`, "pytest"},
		{"code.translate.python.javascript", `{"code":"def add(a, b):\n    return a + b\n"}`, `{"code":"function add(a, b) {\n  return a + b;\n}\n"}`, "javascript"},
	}
	srv := openaitest.New(t)
	answers := map[string]string{}
	srv.Chat = func(req openaitest.ChatRequest) string { return answers[req.Model] }
	for _, tc := range testCases {
		t.Run(tc.capID, func(t *testing.T) {
			answers[tc.capID] = tc.answer
			o := offer(t, tc.capID, srv, func(h *market.HandlerConfig) { h.Model = tc.capID })
			res := testOffer(t, o, tc.input, runner("", nil))
			require.True(t, res.Passed, "%s: %+v", res.Output, res.Verification)
			chats := srv.Chats()
			u := userText(chats[len(chats)-1])
			assert.Contains(t, u, tc.inPrompt)
		})
	}
}

func TestListingsOwnPromptReplacesTheFamilys(t *testing.T) {
	srv := openaitest.New(t)
	srv.Chat = func(openaitest.ChatRequest) string { return `{"toxic":true,"confidence":0.6}` }
	o := offer(t, "classify.text.toxicity", srv, func(h *market.HandlerConfig) {
		h.Prompt = `Is this toxic? {{.Input.text}} (answer {"toxic":bool,"confidence":number})`
	})
	res := testOffer(t, o, `{"text":"go away"}`, runner("", nil))
	require.True(t, res.Passed, "%+v", res)
	msgs := srv.Chats()[0].Messages
	require.Len(t, msgs, 1, "a file without a system template is all user prompt")
	assert.Equal(t, `Is this toxic? go away (answer {"toxic":bool,"confidence":number})`, msgs[0].Content)
}

func TestCheckListing(t *testing.T) {
	ok := market.HandlerConfig{Kind: market.HandlerOpenAI, Model: "m", BaseURL: "http://localhost:11434/v1"}
	for _, tc := range []struct {
		name, capID string
		edit        func(*market.HandlerConfig)
		err         string
	}{
		{"summarize", "text.summarize.short", nil, ""},
		{"embed", "embed.text.nomic-embed-text-v1-5", nil, ""},
		{"image", "image.generate.illustration.png", nil, ""},
		{"no family", "data.lookup.stock-price", nil, "--prompt FILE"},
		{"custom with prompt", "custom.acme.haiku", func(h *market.HandlerConfig) { h.Prompt = "Write a haiku about {{.Input.topic}}" }, ""},
		{"svg has no endpoint", "image.generate.illustration.svg", nil, "--prompt FILE"},
		{"bad URL", "text.summarize.short", func(h *market.HandlerConfig) { h.BaseURL = "localhost:11434" }, "base URL"},
		{"credentials in URL", "text.summarize.short", func(h *market.HandlerConfig) { h.BaseURL = "https://me:sk-1@api.example.com/v1" }, "credentials"},
		{"bad env", "text.summarize.short", func(h *market.HandlerConfig) { h.APIKeyEnv = "1BAD" }, "not a variable name"},
		{"bad template", "text.summarize.short", func(h *market.HandlerConfig) { h.Prompt = "{{.Input" }, "prompt"},
		{"prompt for embeddings", "embed.text.all-minilm-l6-v2", func(h *market.HandlerConfig) { h.Prompt = "x" }, "takes no prompt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := ok
			if tc.edit != nil {
				tc.edit(&h)
			}
			err := openai.CheckListing(h, tc.capID)
			if tc.err == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.err)
		})
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
