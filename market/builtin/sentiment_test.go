package builtin

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSentimentLabels(t *testing.T) {
	r := newTestRegistry(t)
	testCases := []struct {
		text, want string
	}{
		{"I love this product, it is absolutely wonderful and works great!", SentimentPositive},
		{"This is the worst purchase I have ever made. Terrible, broken and useless.", SentimentNegative},
		{"The package contains three cables and a manual.", SentimentNeutral},
		{"Not good at all.", SentimentNegative},
	}
	for _, tc := range testCases {
		t.Run(tc.text, func(t *testing.T) {
			out, err := run(t, r, CapSentiment, map[string]any{"text": tc.text})
			require.NoError(t, err)
			var o sentimentOutput
			require.NoError(t, json.Unmarshal(out, &o))
			require.Equal(t, tc.want, o.Sentiment)
			require.GreaterOrEqual(t, o.Confidence, 0.5)
			require.LessOrEqual(t, o.Confidence, 1.0)
		})
	}
}

func TestSentimentConfidenceCalibration(t *testing.T) {
	testCases := []struct {
		c     float64
		label string
		conf  float64
	}{
		{1, SentimentPositive, 1}, {0.05, SentimentPositive, 0.5}, {0.525, SentimentPositive, 0.75},
		{-1, SentimentNegative, 1}, {-0.05, SentimentNegative, 0.5},
		{0, SentimentNeutral, 1}, {0.025, SentimentNeutral, 0.75}, {-0.049, SentimentNeutral, 0.51},
		{2, SentimentPositive, 1}, {-3, SentimentNegative, 1},
	}
	for _, tc := range testCases {
		label, conf := sentimentFromCompound(tc.c)
		require.Equal(t, tc.label, label, "c=%v", tc.c)
		require.InDelta(t, tc.conf, conf, 1e-6, "c=%v", tc.c)
	}
	// Stronger scores never give lower confidence.
	prev := 0.0
	for c := 0.05; c <= 1; c += 0.01 {
		_, conf := sentimentFromCompound(c)
		require.GreaterOrEqual(t, conf, prev)
		prev = conf
	}
}

func TestSentimentRejections(t *testing.T) {
	r := newTestRegistry(t)
	for _, in := range []string{`{}`, `{"text":""}`, `{"text":"   \n"}`, `{"text":null}`} {
		_, err := run(t, r, CapSentiment, in)
		requireInputError(t, err)
	}
}
