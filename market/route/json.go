package route

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/libp2p/go-libp2p/core/peer"
)

type decisionJSON struct {
	PeerID        string  `json:"peer_id"`
	Price         string  `json:"price"`
	Rating        float64 `json:"rating"`
	LatencyMS     float64 `json:"latency_ms"`
	LatencySource string  `json:"latency_source"`
	RTTMS         float64 `json:"rtt_ms"`
	Reputation    float64 `json:"reputation"`
	Backing       string  `json:"backing,omitempty"`
	Misquotes     int     `json:"misquotes,omitempty"`
	Chosen        bool    `json:"chosen"`
	Rank          int     `json:"rank"`
	Score         float64 `json:"score"`
	Reason        string  `json:"reason"`
}

// MarshalJSON renders a decision as hire --explain --json shows it: the
// price as a decimal string of credits, times in milliseconds.
func (d Decision) MarshalJSON() ([]byte, error) {
	src := "rtt"
	if d.FromHistory {
		src = "history"
	}
	return json.Marshal(decisionJSON{
		PeerID: d.Peer.String(), Price: credits(d.Price), Rating: d.Rating,
		LatencyMS: round(d.LatencyMS), LatencySource: src, RTTMS: round(d.RTTMS), Reputation: round(d.Reputation), Backing: d.Backing,
		Misquotes: d.Misquotes, Chosen: d.Chosen, Rank: d.Rank, Score: round(d.Score), Reason: d.Reason,
	})
}

func round(v float64) float64 { return float64(int64(v*1000+0.5)) / 1000 }

type policyJSON struct {
	Capability          string   `json:"capability"`
	MaxPrice            string   `json:"max_price,omitempty"`
	QoS                 QoS      `json:"qos,omitempty"`
	AllowSellers        []string `json:"allow_sellers,omitempty"`
	DenySellers         []string `json:"deny_sellers,omitempty"`
	MinRating           float64  `json:"min_rating,omitempty"`
	RequireConfirmation bool     `json:"require_confirmation,omitempty"`
}

// MarshalJSON renders a policy with its config.toml key names.
func (p Policy) MarshalJSON() ([]byte, error) {
	j := policyJSON{Capability: p.Match, QoS: p.QoS, MinRating: p.MinRating, RequireConfirmation: p.RequireConfirmation}
	if p.MaxPrice > 0 {
		j.MaxPrice = credits(p.MaxPrice)
	}
	for _, id := range p.AllowSellers {
		j.AllowSellers = append(j.AllowSellers, id.String())
	}
	for _, id := range p.DenySellers {
		j.DenySellers = append(j.DenySellers, id.String())
	}
	return json.Marshal(j)
}

// UnmarshalJSON parses what MarshalJSON writes (for control-API clients).
func (d *Decision) UnmarshalJSON(data []byte) error {
	var j decisionJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	id, err := peer.Decode(j.PeerID)
	if err != nil {
		return fmt.Errorf("decode decision peer_id: %w", err)
	}
	price, err := parseCredits(j.Price)
	if err != nil {
		return fmt.Errorf("decode decision price: %w", err)
	}
	*d = Decision{
		Candidate: Candidate{Peer: id, Price: price, Rating: j.Rating, LatencyMS: j.LatencyMS, FromHistory: j.LatencySource == "history", RTTMS: j.RTTMS, Reputation: j.Reputation, Backing: j.Backing, Misquotes: j.Misquotes},
		Chosen:    j.Chosen, Rank: j.Rank, Score: j.Score, Reason: j.Reason,
	}
	return nil
}

// UnmarshalJSON parses what MarshalJSON writes.
func (p *Policy) UnmarshalJSON(data []byte) error {
	var j policyJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	out := Policy{Match: j.Capability, QoS: j.QoS, MinRating: j.MinRating, RequireConfirmation: j.RequireConfirmation}
	var err error
	if j.MaxPrice != "" {
		if out.MaxPrice, err = parseCredits(j.MaxPrice); err != nil {
			return fmt.Errorf("decode policy max_price: %w", err)
		}
	}
	for _, l := range []struct {
		in  []string
		out *[]peer.ID
	}{{j.AllowSellers, &out.AllowSellers}, {j.DenySellers, &out.DenySellers}} {
		for _, s := range l.in {
			id, err := peer.Decode(s)
			if err != nil {
				return fmt.Errorf("decode policy seller: %w", err)
			}
			*l.out = append(*l.out, id)
		}
	}
	*p = out
	return nil
}

// parseCredits parses a decimal string of credits into micro-credits.
func parseCredits(s string) (int64, error) {
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" || len(frac) > 6 {
		return 0, fmt.Errorf("%q is not an amount of credits", s)
	}
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || w < 0 || w > 9_000_000_000_000 {
		return 0, fmt.Errorf("%q is not an amount of credits", s)
	}
	f := int64(0)
	if frac != "" {
		if f, err = strconv.ParseInt(frac+strings.Repeat("0", 6-len(frac)), 10, 64); err != nil || f < 0 {
			return 0, fmt.Errorf("%q is not an amount of credits", s)
		}
	}
	return w*1_000_000 + f, nil
}
