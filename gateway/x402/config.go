package x402

import (
	"fmt"

	"github.com/swarmwage/swarmwage/escrow"
)

// DefaultFee is [gateway] fee when unset: the door charges the seller's
// price and nothing more.
const DefaultFee = "0"

// Config is what the x402 door reads from [gateway] in config.toml (the
// gateway package owns the section; these are its x402 keys).
type Config struct {
	// Fee is added to the best seller's price in every PAYMENT-REQUIRED, in
	// the rail's unit as a decimal ("0.001" is 1000 base units of a
	// 6-decimal token). Default DefaultFee. It pays the node's gas for the
	// settlement and its risk of a payer that cancels after the job ran.
	Fee string `toml:"fee,omitempty"`
}

// FeeUnits is Fee in base units.
func (c Config) FeeUnits() (int64, error) {
	s := c.Fee
	if s == "" {
		s = DefaultFee
	}
	v, err := escrow.ParseAmount(s)
	if err != nil {
		return 0, fmt.Errorf("config gateway.fee %q: %w", s, err)
	}
	if v < 0 {
		return 0, fmt.Errorf("config gateway.fee %q: must not be negative", s)
	}
	return v, nil
}
