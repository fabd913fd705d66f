package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market"
)

// What a message asks to hire, and the gateway's spending caps.

// SkillHire is the generic skill: its data part names the capability.
const SkillHire = "swarmwage.hire"

// maxHireTimeout caps the timeout a hire may ask for, as the control API.
const maxHireTimeout = 30 * time.Minute

// hireData is the data part of a hiring message:
//
//	{"capability": "compute.statistics.mean", "input": {...}, "max_price": "0.05"}
//
// "skill" may stand for "capability" (a skill ID of the agent card), and
// the message's metadata may name the skill ("skillId") instead.
type hireData struct {
	Capability string          `json:"capability"`
	Skill      string          `json:"skill"`
	Input      json.RawMessage `json:"input"`
	MaxPrice   json.RawMessage `json:"max_price"`
	Seller     string          `json:"seller"`
	Timeout    string          `json:"timeout"`
}

// hireSpec is a checked hire request.
type hireSpec struct {
	Capability string
	Input      json.RawMessage
	MaxPrice   int64 // 0: none given
	Seller     peer.ID
	Timeout    time.Duration
}

// hireOf reads the hire a message asks for: its first data part (or a text
// part holding a JSON object), with the skill from the part or the
// message's metadata.
func hireOf(m *Message) (hireSpec, error) {
	var raw json.RawMessage
	for _, p := range m.Parts {
		if len(p.Data) > 0 {
			raw = p.Data
			break
		}
	}
	if raw == nil {
		for _, p := range m.Parts {
			if p.Text != nil && strings.HasPrefix(strings.TrimSpace(*p.Text), "{") {
				raw = json.RawMessage(*p.Text)
				break
			}
		}
	}
	if raw == nil {
		return hireSpec{}, fmt.Errorf(`%w: the message has no data part; send {"capability": ID, "input": {...}, "max_price": "0.05"} as a data part`, errBadParams)
	}
	metaSkill := ""
	for _, k := range []string{"skillId", "skill"} {
		if s, ok := m.Metadata[k].(string); ok && s != "" && s != SkillHire {
			metaSkill = s
			break
		}
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil {
		return hireSpec{}, fmt.Errorf(`%w: data part is not a JSON object: want {"capability": ID, "input": {...}, "max_price": "0.05"}`, errBadParams)
	}
	var d hireData
	if _, ok := keys["input"]; !ok && metaSkill != "" {
		// The skill is in the metadata and the data part is the input.
		d.Input = raw
	} else {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&d); err != nil {
			return hireSpec{}, fmt.Errorf(`%w: data part: %v; want {"capability": ID, "input": {...}, "max_price": "0.05"}`, errBadParams, err)
		}
	}
	capID := d.Capability
	if capID == "" {
		capID = d.Skill
	}
	if capID == "" || capID == SkillHire {
		capID = metaSkill
	}
	if capID == "" || capID == SkillHire {
		return hireSpec{}, fmt.Errorf("%w: data part: capability is missing: name the capability ID to hire (the agent card lists them as skills)", errBadParams)
	}
	if len(capID) > 256 {
		return hireSpec{}, fmt.Errorf("%w: capability is over 256 bytes", errBadParams)
	}
	spec := hireSpec{Capability: capID, Input: d.Input}
	if len(bytes.TrimSpace(d.Input)) == 0 || string(d.Input) == "null" {
		return hireSpec{}, fmt.Errorf("%w: data part: input is missing: the job's input as a JSON object", errBadParams)
	}
	if len(d.MaxPrice) > 0 && string(d.MaxPrice) != "null" {
		p, err := parsePrice(d.MaxPrice)
		if err != nil {
			return hireSpec{}, fmt.Errorf("%w: data part: max_price: %v", errBadParams, err)
		}
		spec.MaxPrice = p
	}
	if d.Seller != "" {
		id, err := peer.Decode(d.Seller)
		if err != nil {
			return hireSpec{}, fmt.Errorf("%w: data part: seller %q is not a peer ID", errBadParams, truncate(d.Seller))
		}
		spec.Seller = id
	}
	if d.Timeout != "" {
		t, err := time.ParseDuration(d.Timeout)
		if err != nil || t <= 0 || t > maxHireTimeout {
			return hireSpec{}, fmt.Errorf("%w: data part: timeout %q: want a duration up to %s", errBadParams, truncate(d.Timeout), maxHireTimeout)
		}
		spec.Timeout = t
	}
	return spec, nil
}

// parsePrice reads a price given as a string ("0.05") or a number (0.05).
func parsePrice(raw json.RawMessage) (int64, error) {
	s := string(bytes.TrimSpace(raw))
	if strings.HasPrefix(s, `"`) {
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, err
		}
	}
	p, err := escrow.ParseAmount(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("%q is not an amount such as \"0.05\"", truncate(s))
	}
	if p <= 0 {
		return 0, fmt.Errorf("%q must be more than 0; leave it out for the gateway's cap", truncate(s))
	}
	return p, nil
}

// Caps are the gateway's spending caps ([gateway] max_per_hire,
// max_per_day), in micro-units; 0 means no cap.
type Caps struct {
	MaxPerHire int64
	MaxPerDay  int64
}

// gatewayScope is the escrow spend scope of the gateway's hires: every
// hire is tagged with it, and max_per_day counts the locks under it.
const gatewayScope = "gateway"

// Names of the caps in refusals.
const (
	capPerHire = "gateway per-hire"
	capPerDay  = "gateway per-day"
)

// errCap is wrapped by a refusal of the gateway's own per-hire cap.
var errCap = errors.New("over the gateway's spending cap")

// request is the market hire request of spec under the caps: the price is
// capped by max_per_hire (a max_price over it is refused), and the lock
// carries the per-day cap, checked in its own transaction.
func (c Caps) request(spec hireSpec, now time.Time) (market.HireRequest, error) {
	req := market.HireRequest{
		Capability: spec.Capability, Input: spec.Input, MaxPrice: spec.MaxPrice, Seller: spec.Seller, Timeout: spec.Timeout,
		// An outside agent cannot confirm a risk tier 3 capability.
		RequireConfirm: true,
	}
	if c.MaxPerHire > 0 {
		if spec.MaxPrice > c.MaxPerHire {
			return req, fmt.Errorf("%w: max_price %s is over the %s cap of %s ([gateway] max_per_hire); ask with max_price at most %s",
				errCap, escrow.FormatAmount(spec.MaxPrice), capPerHire, escrow.FormatAmount(c.MaxPerHire), escrow.FormatAmount(c.MaxPerHire))
		}
		if spec.MaxPrice == 0 {
			req.MaxPrice = c.MaxPerHire
		}
	}
	sc := escrow.SpendCap{Name: capPerDay, Scope: gatewayScope}
	if c.MaxPerDay > 0 {
		y, m, d := now.Date()
		sc.Since, sc.Limit = time.Date(y, m, d, 0, 0, 0, 0, now.Location()), c.MaxPerDay
	}
	req.SpendCaps = []escrow.SpendCap{sc}
	return req, nil
}
