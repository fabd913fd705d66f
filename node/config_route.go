package node

import (
	"fmt"
	"path/filepath"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/market/route"
)

// PolicyConfig is one [[policy]] table of config.toml: the buyer's rules for
// hires of a capability ID or of every capability under a prefix. The most
// specific table wins (see package market/route).
type PolicyConfig struct {
	// Capability is the ID or prefix ("compute.statistics", "cap.db").
	Capability string `toml:"capability"`
	// MaxPrice caps one hire of the capability, in the rail's unit
	// ("0.05"); it replaces [market] max_price for it. Default: none.
	MaxPrice string `toml:"max_price,omitempty"`
	// QoS is the class of hires that name none: P0 (fastest) .. P3
	// (cheapest). Default P2.
	QoS string `toml:"qos,omitempty"`
	// AllowSellers, when set, are the only peers hired.
	AllowSellers []string `toml:"allow_sellers,omitempty"`
	// DenySellers are never hired.
	DenySellers []string `toml:"deny_sellers,omitempty"`
	// MinRating drops sellers rated lower (or never rated) by this node.
	MinRating float64 `toml:"min_rating,omitempty"`
	// RequireConfirmation stops every hire before any escrow unless a
	// person confirms it ('hire --confirm'); no MCP allowance does.
	RequireConfirmation bool `toml:"require_confirmation,omitempty"`
}

// WCPConfig is the [wcp] section.
type WCPConfig struct {
	// Catalog is a WCP catalog file (JSON); its tombstones send hires of a
	// retired ID to its successor. Relative paths are in the repo.
	Catalog string `toml:"catalog,omitempty"`
}

// policies turns the [[policy]] tables into routing policies; the error
// names the table and key that is wrong.
func policies(cfgs []PolicyConfig) (route.Policies, error) {
	out := make(route.Policies, 0, len(cfgs))
	for i, c := range cfgs {
		where := fmt.Sprintf("config policy[%d] (%s)", i, c.Capability)
		p := route.Policy{Match: c.Capability, MinRating: c.MinRating, RequireConfirmation: c.RequireConfirmation}
		if c.MaxPrice != "" {
			v, err := escrow.ParseAmount(c.MaxPrice)
			if err != nil || v <= 0 {
				return nil, fmt.Errorf("%s max_price = %q: want a positive amount such as \"0.05\"", where, c.MaxPrice)
			}
			p.MaxPrice = v
		}
		if c.QoS != "" {
			q, err := route.ParseQoS(c.QoS)
			if err != nil {
				return nil, fmt.Errorf("%s qos: %w", where, err)
			}
			p.QoS = q
		}
		for _, l := range []struct {
			key string
			in  []string
			out *[]peer.ID
		}{{"allow_sellers", c.AllowSellers, &p.AllowSellers}, {"deny_sellers", c.DenySellers, &p.DenySellers}} {
			for _, s := range l.in {
				id, err := peer.Decode(s)
				if err != nil {
					return nil, fmt.Errorf("%s %s: %q is not a peer ID", where, l.key, s)
				}
				*l.out = append(*l.out, id)
			}
		}
		out = append(out, p)
	}
	if err := out.Validate(); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return out, nil
}

// routeOptions are the market options of [[policy]] and [wcp], with the
// catalog path resolved against the repo.
func (c Config) routeOptions(repoDir string) ([]market.Option, route.Policies, error) {
	ps, err := policies(c.Policy)
	if err != nil {
		return nil, nil, err
	}
	opts := []market.Option{market.Policies(ps)}
	if c.WCP.Catalog != "" {
		cat, err := LoadCatalog(repoDir, c.WCP.Catalog)
		if err != nil {
			return nil, nil, err
		}
		opts = append(opts, market.Catalog(cat))
	}
	return opts, ps, nil
}

// LoadCatalog reads the [wcp] catalog, a path relative to the repo unless
// absolute.
func LoadCatalog(repoDir, path string) (*route.Catalog, error) {
	if !filepath.IsAbs(path) {
		path = filepath.Join(repoDir, path)
	}
	cat, err := route.LoadCatalog(path)
	if err != nil {
		return nil, fmt.Errorf("config wcp.catalog: %w", err)
	}
	return cat, nil
}
