package market

import (
	"encoding/json"
	"fmt"

	"github.com/swarmwage/swarmwage/escrow"
)

// Credits is an amount in micro-credits that travels as a decimal string of
// credits ("0.05"). Signed objects are stable JSON, which writes numbers as
// JavaScript does, so an int64 beyond 2^53 would not survive as a number.
type Credits int64

// MarshalJSON writes c as a decimal credit string.
func (c Credits) MarshalJSON() ([]byte, error) {
	return json.Marshal(escrow.FormatAmount(int64(c)))
}

// UnmarshalJSON reads a decimal credit string.
func (c *Credits) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("amount must be a decimal string of credits: %w", err)
	}
	v, err := escrow.ParseAmount(s)
	if err != nil {
		return err
	}
	*c = Credits(v)
	return nil
}

// String is the decimal credit string.
func (c Credits) String() string { return escrow.FormatAmount(int64(c)) }
