package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/jonreiter/govader"
)

// classify.text.sentiment
//
// VADER (govader, English). The label follows VADER's standard thresholds on
// the compound score c in [-1, 1]: positive if c >= 0.05, negative if
// c <= -0.05, neutral otherwise. confidence maps c onto [0, 1] piecewise
// linearly so it grows with the distance from the decision boundary:
//
//	positive: 0.5 + 0.5*(c-0.05)/0.95     (0.5 at the boundary, 1 at c=1)
//	negative: 0.5 + 0.5*(-c-0.05)/0.95
//	neutral:  1 - 0.5*|c|/0.05            (1 at c=0, 0.5 at the boundaries)
//
// so a confidence near 0.5 always means "close call".

const (
	maxSentimentBytes = 1 << 20
	vaderThreshold    = 0.05
)

// Sentiment labels of the taxonomy.
const (
	SentimentPositive = "positive"
	SentimentNegative = "negative"
	SentimentNeutral  = "neutral"
)

type textInput struct {
	Text *string `json:"text"`
}

type sentimentOutput struct {
	Sentiment  string  `json:"sentiment"`
	Confidence float64 `json:"confidence"`
	Compound   float64 `json:"compound"`
}

type sentimentHandler struct {
	analyzer *govader.SentimentIntensityAnalyzer
}

// newSentimentHandler builds the lexicon once; PolarityScores only reads it,
// so one analyzer serves concurrent jobs.
func newSentimentHandler() sentimentHandler {
	return sentimentHandler{analyzer: govader.NewSentimentIntensityAnalyzer()}
}

func (h sentimentHandler) Handle(_ context.Context, input json.RawMessage) (json.RawMessage, error) {
	var in textInput
	if err := decodeInput(CapSentiment, input, &in); err != nil {
		return nil, err
	}
	switch {
	case in.Text == nil:
		return nil, inputErr(CapSentiment, "text is required")
	case strings.TrimSpace(*in.Text) == "":
		return nil, inputErr(CapSentiment, "text is empty")
	case len(*in.Text) > maxSentimentBytes:
		return nil, inputErr(CapSentiment, fmt.Sprintf("text is %d bytes, the limit is %d", len(*in.Text), maxSentimentBytes))
	}
	c := h.analyzer.PolarityScores(*in.Text).Compound
	if math.IsNaN(c) {
		c = 0
	}
	label, conf := sentimentFromCompound(c)
	return encodeOutput(CapSentiment, sentimentOutput{Sentiment: label, Confidence: conf, Compound: round6(c)})
}

func sentimentFromCompound(c float64) (string, float64) {
	c = math.Max(-1, math.Min(1, c))
	var label string
	var conf float64
	switch {
	case c >= vaderThreshold:
		label, conf = SentimentPositive, 0.5+0.5*(c-vaderThreshold)/(1-vaderThreshold)
	case c <= -vaderThreshold:
		label, conf = SentimentNegative, 0.5+0.5*(-c-vaderThreshold)/(1-vaderThreshold)
	default:
		label, conf = SentimentNeutral, 1-0.5*math.Abs(c)/vaderThreshold
	}
	return label, round6(math.Max(0, math.Min(1, conf)))
}

func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }
