package node_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/market/handler/openai/openaitest"
)

const parkArticle = "The city council met on Tuesday to discuss the new park. Residents asked for more trees, a playground and better lighting. " +
	"The mayor said the budget allows two of the three this year. Work starts in spring and should end before the summer holidays. " +
	"Several shop owners welcomed the plan because the park will bring visitors to the old market street. " +
	"Others worried about parking, which is already scarce on weekends. The council will vote on the final design next month."

// TestHireFromAnOpenAISellerIsVerifiedAndPaidAndATooLongSummaryIsNot: real
// nodes on loopback; the seller's text.summarize.short runs on an
// OpenAI-compatible server. A good summary is verified and paid; a model
// that first answers the whole text is retried with the failed check and
// paid for its second answer; a model that never complies fails the job on
// the seller, before delivery, and the buyer pays nothing.
func TestHireFromAnOpenAISellerIsVerifiedAndPaidAndATooLongSummaryIsNot(t *testing.T) {
	const key = "sk-e2e-secret-7781"
	t.Setenv("SWARMWAGE_E2E_OPENAI_KEY", key)
	srv := openaitest.New(t)
	srv.Key = key
	var mode string // good, once-too-long, too-long
	srv.Chat = func(req openaitest.ChatRequest) string {
		long := `{"summary":` + jsonString(parkArticle) + `}`
		switch {
		case mode == "good":
			return `{"summary":"The council plans a park; work starts in spring."}`
		case mode == "once-too-long" && len(req.Messages) > 2:
			return `{"summary":"A park is planned; the council votes next month."}`
		default:
			return long
		}
	}

	boot := startNode(t, newRepo(t, t.TempDir()))
	seller := startNode(t, newRepo(t, t.TempDir()), boot)
	buyer := startNode(t, newRepo(t, t.TempDir()), boot)
	ctx := context.Background()
	_, err := seller.Market.AddListing(ctx, market.ListingParams{
		Capability: "text.summarize.short", Price: mustAmount(t, "0.05"),
		Handler: market.HandlerConfig{Kind: market.HandlerOpenAI, Model: "tiny", BaseURL: srv.BaseURL(), APIKeyEnv: "SWARMWAGE_E2E_OPENAI_KEY"},
	})
	require.NoError(t, err)
	waitReady(t, boot, seller, buyer)
	require.NoError(t, buyer.Escrow.Deposit(ctx, mustAmount(t, "10"), "test"))
	input, _ := json.Marshal(map[string]string{"text": parkArticle})
	hire := func() (market.HireResult, error) {
		return buyer.Market.Hire(ctx, market.HireRequest{
			Capability: "text.summarize.short", Input: input, MaxPrice: mustAmount(t, "0.1"), Timeout: 30 * time.Second,
		})
	}
	sellerJob := func(id string) market.JobRecord {
		var rec market.JobRecord
		require.Eventually(t, func() bool {
			r, err := seller.Market.Job(ctx, id)
			rec = r
			return err == nil && r.Status != market.StatusRunning && r.Usage != nil
		}, 10*time.Second, 20*time.Millisecond)
		return rec
	}

	// A good answer: verified by the buyer, paid.
	mode = "good"
	res, err := hire()
	require.NoError(t, err)
	require.Equal(t, escrow.StateReleased, res.State)
	require.True(t, res.Report.Passed)
	require.JSONEq(t, `{"summary":"The council plans a park; work starts in spring."}`, string(res.Output))
	rec := sellerJob(res.JobID)
	require.Len(t, rec.Attempts, 1)
	assert.Positive(t, rec.Usage.TotalTokens)
	assert.Equal(t, 1, rec.Usage.Requests)

	// Too long once: the seller retries with the failed check, and the
	// buyer verifies and pays the second answer.
	mode = "once-too-long"
	res, err = hire()
	require.NoError(t, err)
	require.Equal(t, escrow.StateReleased, res.State)
	rec = sellerJob(res.JobID)
	require.Len(t, rec.Attempts, 2)
	assert.Equal(t, "word_count_ratio", rec.Attempts[0].Failed[0].Name)
	assert.Equal(t, 2, rec.Usage.Requests)

	// Never complies: the seller fails the job before delivering; the
	// buyer is refunded and pays nothing.
	mode = "too-long"
	res, err = hire()
	require.Error(t, err)
	require.NotEqual(t, escrow.StateReleased, res.State)
	assert.Contains(t, err.Error(), "output failed the buyer's checks: word_count_ratio")
	rec = sellerJob(res.JobID)
	assert.Equal(t, market.StatusFailed, rec.Status)
	require.Len(t, rec.Attempts, market.DefaultRetries+1)
	assert.NotContains(t, mustMarshal(t, rec), key)

	bb, err := buyer.Escrow.Balance(ctx)
	require.NoError(t, err)
	require.Equal(t, mustAmount(t, "9.9"), bb.Available, "two jobs paid, the third refunded")
	require.Zero(t, bb.Held)
	require.Eventually(t, func() bool {
		sb, err := seller.Escrow.Balance(ctx)
		return err == nil && sb.Earned == mustAmount(t, "0.1")
	}, 10*time.Second, 20*time.Millisecond)
	require.NoError(t, buyer.Escrow.CheckInvariant(ctx))
	require.NoError(t, seller.Escrow.CheckInvariant(ctx))
	assert.Equal(t, 1+2+3, srv.Requests("/v1/chat/completions"))

	// The buyer's record of the failed job names the class, not the key
	// nor the server's internals.
	brec, err := buyer.Market.Job(ctx, res.JobID)
	require.NoError(t, err)
	assert.NotContains(t, mustMarshal(t, brec), key)
	assert.NotContains(t, mustMarshal(t, brec), srv.URL)
}

// TestOpenAIListingWithABadKeyFailsAsSellerMisconfigured: the buyer learns
// the class only; nothing of the key or the server's answer.
func TestOpenAIListingWithABadKeyFailsAsSellerMisconfigured(t *testing.T) {
	t.Setenv("SWARMWAGE_E2E_BAD_KEY", "sk-wrong-1234567")
	srv := openaitest.New(t)
	srv.Key = "sk-right"
	srv.Chat = func(openaitest.ChatRequest) string { return `{"summary":"x"}` }
	seller := startNode(t, newRepo(t, t.TempDir()))
	buyer := startNode(t, newRepo(t, t.TempDir()), seller)
	ctx := context.Background()
	_, err := seller.Market.AddListing(ctx, market.ListingParams{
		Capability: "text.summarize.short", Price: mustAmount(t, "0.05"),
		Handler: market.HandlerConfig{Kind: market.HandlerOpenAI, Model: "tiny", BaseURL: srv.BaseURL(), APIKeyEnv: "SWARMWAGE_E2E_BAD_KEY"},
	})
	require.NoError(t, err)
	waitReady(t, seller, buyer)
	require.NoError(t, buyer.Escrow.Deposit(ctx, mustAmount(t, "1"), "test"))
	input, _ := json.Marshal(map[string]string{"text": parkArticle})
	res, err := buyer.Market.Hire(ctx, market.HireRequest{Capability: "text.summarize.short", Input: input, MaxPrice: mustAmount(t, "0.1"), Timeout: 20 * time.Second})
	require.Error(t, err)
	msg := err.Error()
	assert.Contains(t, msg, "seller misconfigured")
	for _, leak := range []string{"sk-wrong", "Incorrect API key", srv.URL, "SWARMWAGE_E2E_BAD_KEY"} {
		assert.NotContains(t, msg, leak)
		brec, _ := buyer.Market.Job(ctx, res.JobID)
		assert.NotContains(t, mustMarshal(t, brec), leak)
	}
	bb, err := buyer.Escrow.Balance(ctx)
	require.NoError(t, err)
	require.Equal(t, mustAmount(t, "1"), bb.Available)
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return strings.ReplaceAll(string(b), `\u0026`, "&")
}
