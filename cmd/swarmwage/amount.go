package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/swarmwage/swarmwage/escrow"
)

// amountDecimals is the precision of an amount on every rail (escrow's
// micro-units: 6 decimals, as the evm rail's USDC-like token).
const amountDecimals = 6

// unitCredits and unitTokens name amounts on the credits and evm rails.
const (
	unitCredits = "credits"
	unitTokens  = "tokens"
)

// railUnit names the amounts of the command's repo: "credits", or "tokens"
// when it settles on evm.
func railUnit(c *cli.Context) string {
	if isEVM(c) {
		return unitTokens
	}
	return unitCredits
}

// parseAmountFlag parses the amount s given to --flag, with one wording for
// every bad value: what is wrong, then what is wanted, in unit.
func parseAmountFlag(flag, s, unit string) (int64, error) {
	v, err := escrow.ParseAmount(s)
	var why string
	_, frac, _ := strings.Cut(s, ".")
	switch {
	case strings.HasPrefix(s, "-"):
		why = "negative"
	case s == "":
		why = "empty"
	case err == nil && v == 0:
		why = "must be more than 0"
	case err == nil:
		return v, nil
	case len(frac) > amountDecimals && !strings.ContainsAny(frac, ".eE+-"):
		why = fmt.Sprintf("too many decimals (at most %d)", amountDecimals)
	case strings.Contains(err.Error(), "too large"):
		why = "too large"
	default:
		why = "not a decimal number"
	}
	return 0, usageErrf("--%s %q: %s; want a positive amount of %s, such as 0.05", flag, s, why, unit)
}
