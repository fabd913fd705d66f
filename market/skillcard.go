package market

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/swarmwage/swarmwage/skillcard"
	"github.com/swarmwage/swarmwage/verify"
)

// ErrIncompatibleSkillCard is returned when a SkillCard is sold as a
// standard capability whose schemas it does not fit.
var ErrIncompatibleSkillCard = errors.New("skillcard does not fit the capability")

// SkillCardListing turns a valid SkillCard into listing parameters: the
// capability is capID when given (a standard capability whose schemas the
// card must fit), else custom.<publisher>.<slug>. dir is the card's folder,
// where its cli binding runs.
func SkillCardListing(cardJSON []byte, capID, dir string, price int64) (ListingParams, error) {
	card, err := skillcard.Parse(cardJSON)
	if err != nil {
		return ListingParams{}, err
	}
	if err := card.Err(); err != nil {
		return ListingParams{}, err
	}
	if capID == "" {
		capID = "custom." + card.Publisher() + "." + card.Slug
	}
	if err := verify.CheckID(capID); err != nil {
		return ListingParams{}, fmt.Errorf("sell skillcard %s as %s: %w", card.Slug, capID, err)
	}
	p := ListingParams{
		Capability:          capID,
		Price:               price,
		Handler:             HandlerConfig{Kind: HandlerSkillCard, SkillCard: card.Canonical(), Dir: dir},
		SkillCardHash:       card.ContentHash(),
		RiskTier:            card.RiskTier(),
		RequiredPermissions: card.RequiredPermissions,
	}
	if in, err := verify.InputSchema(capID); err == nil {
		out, _ := verify.OutputSchema(capID)
		if err := schemasFit(card, in, out); err != nil {
			return ListingParams{}, fmt.Errorf("%w %s: %v", ErrIncompatibleSkillCard, capID, err)
		}
		return p, nil
	}
	p.InputSchema, p.OutputSchema = card.InputsSchema, card.OutputsSchema
	return p, nil
}

// objectSchema is the part of a JSON Schema the compatibility check reads.
type objectSchema struct {
	Required   []string                   `json:"required"`
	Properties map[string]json.RawMessage `json:"properties"`
}

// schemasFit checks that a card can stand in for a standard capability:
// every input field the capability requires is one the card takes, and
// every output field the capability requires is one the card's output
// requires too (so verification cannot fail on a missing field by design).
func schemasFit(card *skillcard.Card, stdIn, stdOut json.RawMessage) error {
	var si, so, ci, co objectSchema
	for _, x := range []struct {
		raw json.RawMessage
		dst *objectSchema
	}{{stdIn, &si}, {stdOut, &so}, {card.InputsSchema, &ci}, {card.OutputsSchema, &co}} {
		if err := json.Unmarshal(x.raw, x.dst); err != nil {
			return fmt.Errorf("read schema: %w", err)
		}
	}
	for _, f := range si.Required {
		if _, ok := ci.Properties[f]; !ok {
			return fmt.Errorf("the capability's input field %q is not in the card's inputs_schema", f)
		}
	}
	for _, f := range ci.Required {
		if _, ok := si.Properties[f]; !ok {
			return fmt.Errorf("the card requires input field %q, which buyers of the capability do not send", f)
		}
	}
	req := map[string]bool{}
	for _, f := range co.Required {
		req[f] = true
	}
	for _, f := range so.Required {
		if !req[f] {
			return fmt.Errorf("the capability's output field %q is not required by the card's outputs_schema", f)
		}
	}
	return nil
}
