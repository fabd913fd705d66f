package gateway

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/swarmwage/swarmwage/verify"
)

// The A2A agent card, in the protocol's JSON form.

// AgentCard is what GET /.well-known/agent-card.json answers.
type AgentCard struct {
	Name                 string                    `json:"name"`
	Description          string                    `json:"description"`
	SupportedInterfaces  []AgentInterface          `json:"supportedInterfaces"`
	Provider             *AgentProvider            `json:"provider,omitempty"`
	Version              string                    `json:"version"`
	DocumentationURL     string                    `json:"documentationUrl,omitempty"`
	Capabilities         AgentCapabilities         `json:"capabilities"`
	SecuritySchemes      map[string]SecurityScheme `json:"securitySchemes,omitempty"`
	SecurityRequirements []SecurityRequirement     `json:"securityRequirements,omitempty"`
	DefaultInputModes    []string                  `json:"defaultInputModes"`
	DefaultOutputModes   []string                  `json:"defaultOutputModes"`
	Skills               []AgentSkill              `json:"skills"`
}

// AgentInterface is one way to reach the agent.
type AgentInterface struct {
	URL             string `json:"url"`
	ProtocolBinding string `json:"protocolBinding"`
	ProtocolVersion string `json:"protocolVersion"`
}

// AgentProvider names who runs the agent.
type AgentProvider struct {
	Organization string `json:"organization"`
	URL          string `json:"url"`
}

// AgentCapabilities are the optional features the agent has.
type AgentCapabilities struct {
	Streaming         bool `json:"streaming"`
	PushNotifications bool `json:"pushNotifications"`
	ExtendedAgentCard bool `json:"extendedAgentCard"`
}

// SecurityScheme is one way to authenticate (only HTTP bearer here).
type SecurityScheme struct {
	HTTPAuth *HTTPAuthSecurityScheme `json:"httpAuthSecurityScheme,omitempty"`
}

// HTTPAuthSecurityScheme is HTTP authentication with a scheme.
type HTTPAuthSecurityScheme struct {
	Description string `json:"description,omitempty"`
	Scheme      string `json:"scheme"`
}

// SecurityRequirement names schemes a call needs, each with its scopes.
type SecurityRequirement struct {
	Schemes map[string]StringList `json:"schemes"`
}

// StringList is a list of strings (scopes).
type StringList struct {
	List []string `json:"list,omitempty"`
}

// AgentSkill is one thing the agent does: here a capability it can hire.
type AgentSkill struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Tags        []string `json:"tags"`
	Examples    []string `json:"examples,omitempty"`
	InputModes  []string `json:"inputModes,omitempty"`
	OutputModes []string `json:"outputModes,omitempty"`
}

// bearerScheme names the bearer scheme in the card.
const bearerScheme = "bearer"

// handleCard serves the agent card; the interface URL is on the host the
// client reached.
func (s *Server) handleCard(w http.ResponseWriter, r *http.Request) {
	card := s.card("http://" + r.Host)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set(VersionHeader, ProtocolVersion)
	w.Header().Set("Cache-Control", "no-cache")
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(card)
}

// card builds the agent card for a gateway reached at base.
func (s *Server) card(base string) AgentCard {
	id := s.n.Host.ID().String()
	card := AgentCard{
		Name: "swarmwage node " + shortID(id),
		Description: "Hires AI agents on the swarmwage market for you: each job is routed to a seller, paid into escrow, " +
			"verified locally against the capability's checks, and paid only if the output passed (refunded otherwise). " +
			`Send a message with a data part {"capability": ID, "input": {...}, "max_price": "0.05"}. Peer ` + id + ".",
		SupportedInterfaces: []AgentInterface{{URL: base + A2APath, ProtocolBinding: "JSONRPC", ProtocolVersion: ProtocolVersion}},
		Provider:            &AgentProvider{Organization: "swarmwage", URL: "https://github.com/swarmwage/swarmwage"},
		Version:             s.cfg.version,
		Capabilities:        AgentCapabilities{Streaming: true},
		DefaultInputModes:   []string{"application/json"},
		DefaultOutputModes:  []string{"application/json"},
		Skills:              s.skills(),
	}
	if !s.open {
		card.SecuritySchemes = map[string]SecurityScheme{bearerScheme: {HTTPAuth: &HTTPAuthSecurityScheme{
			Scheme: "Bearer", Description: "the token of <repo>/" + TokenFile + " of the node",
		}}}
		card.SecurityRequirements = []SecurityRequirement{{Schemes: map[string]StringList{bearerScheme: {}}}}
	}
	return card
}

// skills are the generic hire skill and one per capability with sellers
// in the node's prefetch cache.
func (s *Server) skills() []AgentSkill {
	out := []AgentSkill{{
		ID:   SkillHire,
		Name: "Hire on the swarmwage market",
		Description: "Hire any capability of the swarmwage taxonomy (or a custom one) from the best seller within max_price; " +
			"the output is verified before it is paid for. Name the capability in the data part.",
		Tags:        []string{"swarmwage", "hire", "market"},
		Examples:    []string{`{"capability": "compute.statistics.mean", "input": {"data": [1, 2, 3, 4]}, "max_price": "0.05"}`},
		InputModes:  []string{"application/json"},
		OutputModes: []string{"application/json"},
	}}
	for _, capID := range s.n.Routing.CachedCapabilities() {
		if len(out) == maxSkills {
			break
		}
		desc, tags := "A capability sold on the swarmwage market (custom: verified against the seller's schema).", []string{"swarmwage"}
		if c, err := verify.Lookup(capID); err == nil {
			if c.Description != "" {
				desc = c.Description
			}
			if c.Domain != "" {
				tags = append(tags, c.Domain)
			}
		}
		out = append(out, AgentSkill{
			ID: capID, Name: capID,
			Description: desc + " Hired through swarmwage: escrowed, verified locally, refunded if the output fails its checks.",
			Tags:        tags,
			Examples:    []string{fmt.Sprintf(`{"capability": %q, "input": {...}, "max_price": "0.05"}`, capID)},
			InputModes:  []string{"application/json"},
			OutputModes: []string{"application/json"},
		})
	}
	return out
}

func shortID(id string) string {
	if len(id) > 12 {
		return id[len(id)-8:]
	}
	return id
}
