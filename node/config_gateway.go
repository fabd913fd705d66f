package node

import (
	"fmt"
	"net"

	"github.com/swarmwage/swarmwage/escrow"
)

// GatewayConfig is the [gateway] section: the door through which agents
// that do not run swarmwage hire through this node, over A2A and x402
// (package gateway). Amounts are credits on the credits rail, tokens on
// evm, written like "0.05"; empty or "0" means no cap.
type GatewayConfig struct {
	// Listen is the gateway's host:port. Default empty: off. 'swarmwage
	// daemon --gateway ADDR' overrides it.
	Listen string `toml:"listen,omitempty"`
	// Open serves callers without the bearer token of <repo>/gateway.token.
	// Default false: every hiring route needs the token.
	Open bool `toml:"open,omitempty"`
	// MaxPerHire caps the price of one hire through the gateway.
	MaxPerHire string `toml:"max_per_hire,omitempty"`
	// MaxPerDay caps what the gateway's hires lock per local calendar day
	// and do not get refunded, counted in the lock's own transaction.
	MaxPerDay string `toml:"max_per_day,omitempty"`
	// Fee is what the x402 door adds to the best seller's price.
	Fee string `toml:"fee,omitempty"`
}

// validate checks the section.
func (g GatewayConfig) validate() error {
	if g.Listen != "" {
		if _, _, err := net.SplitHostPort(g.Listen); err != nil {
			return fmt.Errorf("config gateway.listen: %q is not host:port: %w", g.Listen, err)
		}
	}
	for _, a := range []struct{ key, val string }{
		{"gateway.max_per_hire", g.MaxPerHire}, {"gateway.max_per_day", g.MaxPerDay}, {"gateway.fee", g.Fee},
	} {
		if a.val == "" {
			continue
		}
		if _, err := escrow.ParseAmount(a.val); err != nil {
			return fmt.Errorf("config %s = %q: want a decimal amount such as \"0.05\": %v", a.key, a.val, err)
		}
	}
	return nil
}

// Amounts returns MaxPerHire, MaxPerDay and Fee in micro-units (0 when
// empty). The config was validated, so they parse.
func (g GatewayConfig) Amounts() (maxPerHire, maxPerDay, fee int64) {
	parse := func(s string) int64 {
		if s == "" {
			return 0
		}
		v, _ := escrow.ParseAmount(s)
		return v
	}
	return parse(g.MaxPerHire), parse(g.MaxPerDay), parse(g.Fee)
}
