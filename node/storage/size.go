package storage

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// sizeUnits are the units ParseSize accepts, longest suffix first so that
// "MiB" is not read as "B". Binary units (KiB, MiB, ...) are powers of 1024,
// decimal ones (KB, MB, ...) powers of 1000, as in Kubo's StorageMax.
var sizeUnits = []struct {
	suffix string
	mult   uint64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
	{"B", 1},
}

// maxSizeText caps the text ParseSize reads: a size is a few characters.
const maxSizeText = 64

// ParseSize parses a byte size such as "64MiB", "1.5GB", "512KiB" or
// "1048576" (bytes). Units are case-sensitive: KiB, MiB, GiB, TiB (1024)
// and KB, MB, GB, TB (1000), or B or none for bytes.
func ParseSize(s string) (uint64, error) {
	if len(s) > maxSizeText {
		return 0, fmt.Errorf("size %.20q...: too long", s)
	}
	num, mult := strings.TrimSpace(s), uint64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(num, u.suffix) {
			num, mult = strings.TrimSpace(strings.TrimSuffix(num, u.suffix)), u.mult
			break
		}
	}
	bad := fmt.Errorf("size %q: want a number of bytes with an optional unit, such as \"64MiB\", \"1GB\" or \"0\"", s)
	if num == "" || strings.ContainsAny(num, "+-eExXpP_") {
		return 0, bad
	}
	if n, err := strconv.ParseUint(num, 10, 64); err == nil {
		if n > math.MaxUint64/mult {
			return 0, fmt.Errorf("size %q is too large", s)
		}
		return n * mult, nil
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, bad
	}
	v := f * float64(mult)
	if v >= math.MaxUint64 {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return uint64(v), nil
}

// FormatSize writes n bytes for people: "64 MiB", "3.2 MiB", "512 B".
func FormatSize(n uint64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := uint64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	v := float64(n) / float64(div)
	suffix := []string{"KiB", "MiB", "GiB", "TiB", "PiB"}[exp]
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f %s", v, suffix)
	}
	return fmt.Sprintf("%.1f %s", v, suffix)
}
