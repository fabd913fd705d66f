package route

import "encoding/json"

type decisionJSON struct {
	PeerID        string  `json:"peer_id"`
	Price         string  `json:"price"`
	Rating        float64 `json:"rating"`
	LatencyMS     float64 `json:"latency_ms"`
	LatencySource string  `json:"latency_source"`
	RTTMS         float64 `json:"rtt_ms"`
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
		LatencyMS: round(d.LatencyMS), LatencySource: src, RTTMS: round(d.RTTMS),
		Chosen: d.Chosen, Rank: d.Rank, Score: round(d.Score), Reason: d.Reason,
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
