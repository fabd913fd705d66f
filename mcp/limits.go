package mcp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/swarmwage/swarmwage/escrow"
)

// LimitsFile is the name of the optional spending-guard file in the repo.
const LimitsFile = "mcp.toml"

// maxLimitsFile caps mcp.toml: it holds four keys, so anything larger is
// not a limits file and is refused rather than parsed.
const maxLimitsFile = 16 << 10

// Keys of mcp.toml; the flags of 'swarmwage mcp' have the same names with
// dashes (--max-per-hire).
const (
	KeyMaxPerHire     = "max_per_hire"
	KeyMaxPerSession  = "max_per_session"
	KeyMaxPerDay      = "max_per_day"
	KeyAllowRiskTier3 = "allow_risk_tier_3"
)

// ErrBadLimits is returned for a limits file or value that cannot be used.
var ErrBadLimits = errors.New("bad spending limits")

// Limits is the spending guard of an MCP server. Amounts are micro-credits;
// 0 means no cap.
type Limits struct {
	// MaxPerHire caps the price of one hire.
	MaxPerHire int64
	// MaxPerSession caps what one run of the server (one client session)
	// spends in total.
	MaxPerSession int64
	// MaxPerDay caps what the node spends on hires per local calendar day,
	// counted from the daemon's escrow records, so it survives restarts.
	MaxPerDay int64
	// AllowRiskTier3 lets agents hire risk tier 3 capabilities (ones that
	// need dangerous permissions). Off by default.
	AllowRiskTier3 bool
}

// limitsTOML is mcp.toml as decoded; pointers tell "absent" from zero.
type limitsTOML struct {
	MaxPerHire     *amountTOML `toml:"max_per_hire"`
	MaxPerSession  *amountTOML `toml:"max_per_session"`
	MaxPerDay      *amountTOML `toml:"max_per_day"`
	AllowRiskTier3 *bool       `toml:"allow_risk_tier_3"`
}

// amountTOML is a credit amount written as a string ("0.05") or a number
// (0.05, 1).
type amountTOML int64

// UnmarshalTOML reads a string, integer or float amount of credits.
func (a *amountTOML) UnmarshalTOML(v any) error {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case int64:
		s = strconv.FormatInt(x, 10)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("amount %v is not a number of credits", x)
		}
		s = strconv.FormatFloat(x, 'f', -1, 64)
	default:
		return fmt.Errorf("amount %v: want a decimal number of credits such as \"0.05\"", v)
	}
	n, err := ParseCap(s)
	if err != nil {
		return err
	}
	*a = amountTOML(n)
	return nil
}

// ParseCap parses a cap given in credits ("0.5"); "0" means no cap.
func ParseCap(s string) (int64, error) {
	n, err := escrow.ParseAmount(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("%w: %v", ErrBadLimits, err)
	}
	return n, nil
}

// LoadLimits reads <repoDir>/mcp.toml. A missing file gives zero Limits (no
// caps, risk tier 3 refused) and found=false.
func LoadLimits(repoDir string) (l Limits, found bool, err error) {
	path := filepath.Join(repoDir, LimitsFile)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Limits{}, false, nil
	}
	if err != nil {
		return Limits{}, false, fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxLimitsFile+1))
	if err != nil {
		return Limits{}, false, fmt.Errorf("read %s: %w", path, err)
	}
	l, err = ParseLimits(data)
	if err != nil {
		return Limits{}, false, fmt.Errorf("%s: %w", path, err)
	}
	return l, true, nil
}

// ParseLimits decodes the contents of an mcp.toml file. Unknown keys are an
// error (a typo would otherwise silently leave a cap unset).
func ParseLimits(data []byte) (Limits, error) {
	if len(data) > maxLimitsFile {
		return Limits{}, fmt.Errorf("%w: file is over %d bytes", ErrBadLimits, maxLimitsFile)
	}
	var raw limitsTOML
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&raw)
	if err != nil {
		return Limits{}, fmt.Errorf("%w: %v", ErrBadLimits, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, 0, len(und))
		for _, k := range und {
			keys = append(keys, k.String())
		}
		sort.Strings(keys)
		return Limits{}, fmt.Errorf("%w: unknown key(s) %s; known keys: %s, %s, %s, %s", ErrBadLimits,
			strings.Join(keys, ", "), KeyMaxPerHire, KeyMaxPerSession, KeyMaxPerDay, KeyAllowRiskTier3)
	}
	var l Limits
	if raw.MaxPerHire != nil {
		l.MaxPerHire = int64(*raw.MaxPerHire)
	}
	if raw.MaxPerSession != nil {
		l.MaxPerSession = int64(*raw.MaxPerSession)
	}
	if raw.MaxPerDay != nil {
		l.MaxPerDay = int64(*raw.MaxPerDay)
	}
	if raw.AllowRiskTier3 != nil {
		l.AllowRiskTier3 = *raw.AllowRiskTier3
	}
	return l, nil
}

// capText renders a cap for messages: "0.05 credits" or "no cap".
func capText(micro int64) string {
	if micro <= 0 {
		return "no cap"
	}
	return escrow.FormatAmount(micro) + " credits"
}
