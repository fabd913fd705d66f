package escrow

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// MicroPerCredit is the number of micro-credits in one credit. Every amount
// in this package is an int64 count of micro-credits; the CLI and every JSON
// document show decimal strings of credits ("0.05").
const MicroPerCredit = 1_000_000

// amountDecimals is the number of decimal places a credit amount may carry.
const amountDecimals = 6

// maxAmountLen caps the input of ParseAmount: int64 has 19 digits, plus a
// dot and 6 decimals. Longer input is an error, not a slow parse.
const maxAmountLen = 32

// ParseAmount parses a non-negative decimal credit amount ("0.05", "1",
// "12.345678") into micro-credits. It rejects empty input, signs, exponents,
// more than 6 decimals and values that do not fit an int64.
func ParseAmount(s string) (int64, error) {
	if s == "" {
		return 0, errors.New("parse amount: empty")
	}
	if len(s) > maxAmountLen {
		return 0, fmt.Errorf("parse amount %.32q...: too long", s)
	}
	whole, frac, hasDot := strings.Cut(s, ".")
	if whole == "" || (hasDot && frac == "") {
		return 0, fmt.Errorf("parse amount %q: want digits on both sides of the dot, like 0.05", s)
	}
	if !allDigits(whole) || !allDigits(frac) {
		return 0, fmt.Errorf("parse amount %q: want a non-negative decimal number of credits, like 0.05", s)
	}
	if len(frac) > amountDecimals {
		return 0, fmt.Errorf("parse amount %q: more than %d decimals", s, amountDecimals)
	}
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || w > math.MaxInt64/MicroPerCredit {
		return 0, fmt.Errorf("parse amount %q: too large", s)
	}
	var f int64
	if frac != "" {
		f, err = strconv.ParseInt(frac+strings.Repeat("0", amountDecimals-len(frac)), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("parse amount %q: %w", s, err)
		}
	}
	micro := w * MicroPerCredit
	if micro > math.MaxInt64-f {
		return 0, fmt.Errorf("parse amount %q: too large", s)
	}
	return micro + f, nil
}

// FormatAmount renders micro-credits as a decimal string of credits with no
// trailing zeros: 50000 -> "0.05", 1000000 -> "1". Negative amounts (which a
// valid ledger never holds) keep their sign.
func FormatAmount(micro int64) string {
	sign := ""
	u := uint64(micro)
	if micro < 0 {
		sign = "-"
		u = uint64(-(micro + 1)) + 1 // no overflow for MinInt64
	}
	whole := u / MicroPerCredit
	frac := u % MicroPerCredit
	if frac == 0 {
		return sign + strconv.FormatUint(whole, 10)
	}
	fs := fmt.Sprintf("%06d", frac)
	return sign + strconv.FormatUint(whole, 10) + "." + strings.TrimRight(fs, "0")
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
