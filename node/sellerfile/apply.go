package sellerfile

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/node"
)

// What 'sell apply' does with a listing.
const (
	ListingAdd       = "add"       // new here
	ListingUpdate    = "update"    // sold here with other terms: replaced
	ListingUnchanged = "unchanged" // sold here with the same terms
	ListingKeep      = "keep"      // sold here, not in the file, kept (no --prune)
	ListingRemove    = "remove"    // sold here, not in the file, removed (--prune)
)

// ListingChange is what applying a seller file does to one listing.
type ListingChange struct {
	Capability string `json:"capability"`
	Action     string `json:"action"`
	Price      string `json:"price"`
	Handler    string `json:"handler"`
	// Was is the stored listing's price and handler when they change.
	Was string `json:"was,omitempty"`
}

// Result is what applying a seller file did, or with --diff would do
// ('sell apply --json').
type Result struct {
	// Listings are the listings stored (none with --diff).
	Listings []controlapi.ListingInfo `json:"listings"`
	// Changes says what happens to each listing.
	Changes       []ListingChange     `json:"changes"`
	ConfigChanges []node.ConfigChange `json:"config_changes"`
	// ConfigNotes are ConfigChanges as sentences.
	ConfigNotes []string `json:"config_notes"`
	// Applied is false with --diff.
	Applied bool `json:"applied"`
}

// Plan is what applying a seller file to a repo changes: its config.toml
// keys and its listings. PlanApply makes it, Apply carries it out.
type Plan struct {
	Config        node.Config         `json:"-"`
	ConfigChanges []node.ConfigChange `json:"config_changes"`
	Listings      []ListingChange     `json:"listings"`

	params []market.ListingParams
	remove []string
}

// PlanApply compares a seller file with a repo's config and store. With
// prune, listings the file does not have are to be removed; without, kept.
func PlanApply(ctx context.Context, store *market.Store, sf File, params []market.ListingParams, base node.Config, prune bool) (Plan, error) {
	merged, err := sf.ConfigOver(base)
	if err != nil {
		return Plan{}, err
	}
	changes, err := node.DiffConfig(base, merged)
	if err != nil {
		return Plan{}, err
	}
	p := Plan{Config: merged, ConfigChanges: changes, Listings: []ListingChange{}, params: params}
	offers, err := store.List(ctx)
	if err != nil {
		return Plan{}, fmt.Errorf("read the listings: %w", err)
	}
	stored := make(map[string]market.Offer, len(offers))
	for _, o := range offers {
		stored[o.Signed.Listing.Capability] = o
	}
	inFile := make(map[string]bool, len(params))
	for _, lp := range params {
		inFile[lp.Capability] = true
		ch := ListingChange{Capability: lp.Capability, Action: ListingAdd, Price: market.Credits(lp.Price).String(), Handler: lp.Handler.String()}
		if o, ok := stored[lp.Capability]; ok {
			ch.Action = ListingUnchanged
			if !sameTerms(o, lp) {
				ch.Action = ListingUpdate
				ch.Was = fmt.Sprintf("price %s, handler %s", o.Signed.Listing.Price, o.Handler)
			}
		}
		p.Listings = append(p.Listings, ch)
	}
	for _, o := range offers {
		capID := o.Signed.Listing.Capability
		if inFile[capID] {
			continue
		}
		ch := ListingChange{Capability: capID, Action: ListingKeep, Price: o.Signed.Listing.Price.String(), Handler: o.Handler.String()}
		if prune {
			ch.Action = ListingRemove
			p.remove = append(p.remove, capID)
		}
		p.Listings = append(p.Listings, ch)
	}
	return p, nil
}

// sameTerms reports whether the stored offer already sells lp as lp says.
func sameTerms(o market.Offer, lp market.ListingParams) bool {
	l := o.Signed.Listing
	if int64(l.Price) != lp.Price || l.SkillCardHash != lp.SkillCardHash {
		return false
	}
	a, errA := json.Marshal(o.Handler)
	b, errB := json.Marshal(lp.Handler)
	if errA != nil || errB != nil || !bytes.Equal(a, b) {
		return false
	}
	for _, s := range []struct{ have, want json.RawMessage }{{l.InputSchema, lp.InputSchema}, {l.OutputSchema, lp.OutputSchema}} {
		if s.want != nil && !jsonEqual(s.have, s.want) {
			return false
		}
	}
	return true
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return bytes.Equal(ja, jb)
}

// Result is what the plan would do, changing nothing ('sell apply --diff').
func (p Plan) Result() Result {
	res := Result{Listings: []controlapi.ListingInfo{}, Changes: p.Listings, ConfigChanges: p.ConfigChanges, ConfigNotes: []string{}}
	for _, ch := range p.ConfigChanges {
		res.ConfigNotes = append(res.ConfigNotes, ch.String())
	}
	return res
}

// Apply writes the plan: the listings first (each one replaces the stored
// listing of its capability), then the removals, then config.toml
// (atomically). The caller holds the repo: no daemon runs on it.
func (p Plan) Apply(ctx context.Context, store *market.Store, repo *node.Repo) (Result, error) {
	res := p.Result()
	offers, err := ApplyListings(ctx, store, p.params)
	if err != nil {
		return res, err
	}
	for _, capID := range p.remove {
		if err := store.Delete(ctx, capID); err != nil && !errors.Is(err, market.ErrNotListed) {
			return res, fmt.Errorf("remove %s: %w", capID, err)
		}
	}
	if len(p.ConfigChanges) > 0 {
		if err := repo.WriteConfig(p.Config); err != nil {
			return res, fmt.Errorf("write config.toml: %w", err)
		}
	}
	for _, o := range offers {
		res.Listings = append(res.Listings, controlapi.ListingInfo{
			Capability: o.Signed.Listing.Capability, Price: o.Signed.Listing.Price.String(),
			Handler: o.Handler.String(), SkillCardHash: o.Signed.Listing.SkillCardHash,
		})
	}
	res.Applied = true
	return res, nil
}
