package market

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/verify"
)

// runnerFunc is a Runner from a function (unit tests of the seam only; the
// openai and mcp packages test real runners).
type runnerFunc func(ctx context.Context, a Attempt) (Answer, error)

func (f runnerFunc) Run(ctx context.Context, a Attempt) (Answer, error) { return f(ctx, a) }

func meanOffer(t *testing.T, retries *int) Offer {
	t.Helper()
	in, err := verify.InputSchema("compute.statistics.mean")
	require.NoError(t, err)
	out, err := verify.OutputSchema("compute.statistics.mean")
	require.NoError(t, err)
	return Offer{
		Signed:  SignedListing{Listing: Listing{Capability: "compute.statistics.mean", InputSchema: in, OutputSchema: out}},
		Handler: HandlerConfig{Kind: HandlerOpenAI, Retries: retries},
	}
}

func TestRunCheckedVerifiesRetriesAndClassesFailures(t *testing.T) {
	input := json.RawMessage(`{"data":[1,2,3]}`)
	zero := 0
	testCases := []struct {
		name     string
		retries  *int
		answers  []string
		err      error
		wantOut  string
		wantErr  string
		attempts int
	}{
		{name: "passes at once", answers: []string{`{"result":2}`}, wantOut: `{"result":2}`, attempts: 1},
		{name: "passes on the second", answers: []string{`{"result":7}`, `{"result":2}`}, wantOut: `{"result":2}`, attempts: 2},
		{name: "never passes", answers: []string{`{"result":7}`, `{"result":7}`, `{"result":7}`}, wantErr: ClassChecks + ": value_matches", attempts: 3},
		{name: "no retries", retries: &zero, answers: []string{`{"result":7}`}, wantErr: ClassChecks + ": value_matches", attempts: 1},
		{name: "not JSON", answers: []string{`{"result":`}, wantErr: failNotJSON, attempts: 1},
		{name: "classed failure", err: Fail(ClassMisconfigured, errors.New("401 from http://internal")), wantErr: ClassMisconfigured, attempts: 1},
		{name: "unclassed failure", err: errors.New("secret detail"), wantErr: failHandler, attempts: 1},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			var seen []Attempt
			r := runnerFunc(func(_ context.Context, a Attempt) (Answer, error) {
				seen = append(seen, a)
				if tc.err != nil {
					return Answer{Usage: Usage{Requests: 1}}, tc.err
				}
				return Answer{Output: json.RawMessage(tc.answers[a.Number-1]), Usage: Usage{Requests: 1, TotalTokens: 10}}, nil
			})
			h := &handlers{runners: map[string]Runner{HandlerOpenAI: r}}
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			res := h.runJob(ctx, meanOffer(t, tc.retries), input)
			require.Len(t, res.attempts, tc.attempts)
			require.Len(t, seen, tc.attempts)
			assert.Equal(t, tc.attempts, res.usage.Requests)
			if tc.wantErr != "" {
				require.Error(t, res.err)
				msg, _, _ := publicFailure(res.err)
				assert.Equal(t, tc.wantErr, msg)
				assert.NotContains(t, msg, "secret")
				assert.NotContains(t, msg, "internal")
				return
			}
			require.NoError(t, res.err)
			assert.JSONEq(t, tc.wantOut, string(res.out))
			for i, a := range seen[1:] {
				assert.Equal(t, "value_matches", a.Failed[0].Name, "retry %d is told the failed check", i+2)
				assert.JSONEq(t, tc.answers[i], string(a.Previous))
			}
		})
	}
}

func TestParseHandlerRunnerKinds(t *testing.T) {
	for _, tc := range []struct {
		spec, kind, err string
	}{
		{"openai:llama3.2", HandlerOpenAI, ""},
		{"openai:", "", "model name"},
		{"mcp:npx -y @modelcontextprotocol/server-everything stdio", HandlerMCP, ""},
		{"mcp:", "", "server's command"},
		{"mcp+http:http://127.0.0.1:3001/mcp", HandlerMCPHTTP, ""},
		{"mcp+http:ftp://x", "", "http:// or https://"},
	} {
		h, err := ParseHandler(tc.spec)
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err, tc.spec)
			continue
		}
		require.NoError(t, err, tc.spec)
		require.Equal(t, tc.kind, h.Kind)
		back, err := ParseHandler(h.String())
		require.NoError(t, err)
		require.Equal(t, h, back, "String parses back")
	}
}
