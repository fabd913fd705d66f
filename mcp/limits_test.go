package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/controlapi"
)

func TestParseLimits(t *testing.T) {
	testCases := []struct {
		name    string
		file    string
		want    Limits
		wantErr string
	}{
		{"empty", "", Limits{}, ""},
		{"strings", "max_per_hire = \"0.1\"\nmax_per_session = \"1\"\nmax_per_day = \"5.5\"\nallow_risk_tier_3 = true\n",
			Limits{MaxPerHire: 100_000, MaxPerSession: 1_000_000, MaxPerDay: 5_500_000, AllowRiskTier3: true}, ""},
		{"numbers", "max_per_hire = 0.25\nmax_per_day = 3\n", Limits{MaxPerHire: 250_000, MaxPerDay: 3_000_000}, ""},
		{"zero is no cap", "max_per_session = 0\n", Limits{}, ""},
		{"unknown key", "max_per_week = 1\n", Limits{}, "unknown key(s) max_per_week"},
		{"section", "[mcp]\nmax_per_hire = 1\n", Limits{}, "unknown key(s) mcp"},
		{"negative", "max_per_hire = -1\n", Limits{}, "max_per_hire"},
		{"too precise", "max_per_hire = \"0.0000001\"\n", Limits{}, "decimals"},
		{"not a number", "max_per_day = \"lots\"\n", Limits{}, "max_per_day"},
		{"bool as amount", "max_per_day = true\n", Limits{}, "max_per_day"},
		{"bad bool", "allow_risk_tier_3 = \"yes\"\n", Limits{}, "allow_risk_tier_3"},
		{"not toml", "max_per_hire = = 1", Limits{}, "bad spending limits"},
		{"nan", "max_per_hire = nan\n", Limits{}, "max_per_hire"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseLimits([]byte(tc.file))
			if tc.wantErr != "" {
				require.ErrorIs(t, err, ErrBadLimits)
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestParseLimitsRefusesHugeFile(t *testing.T) {
	_, err := ParseLimits([]byte("# " + strings.Repeat("x", maxLimitsFile)))
	require.ErrorIs(t, err, ErrBadLimits)
	require.ErrorContains(t, err, "over")
}

func TestLoadLimits(t *testing.T) {
	dir := t.TempDir()
	l, found, err := LoadLimits(dir)
	require.NoError(t, err)
	require.False(t, found)
	require.Equal(t, Limits{}, l)

	require.NoError(t, os.WriteFile(filepath.Join(dir, LimitsFile), []byte("max_per_day = \"2\"\n"), 0o600))
	l, found, err = LoadLimits(dir)
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, Limits{MaxPerDay: 2_000_000}, l)

	require.NoError(t, os.WriteFile(filepath.Join(dir, LimitsFile), []byte("max_per_dya = 2\n"), 0o600))
	_, _, err = LoadLimits(dir)
	require.ErrorContains(t, err, filepath.Join(dir, LimitsFile), "the error names the file")
}

func FuzzParseLimitsNoPanic(f *testing.F) {
	f.Add([]byte("max_per_hire = \"0.1\"\nallow_risk_tier_3 = true\n"))
	f.Add([]byte("max_per_day = 1e300\n"))
	f.Add([]byte("[x]\ny = [1, 2]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := ParseLimits(data)
		if err != nil {
			require.ErrorIs(t, err, ErrBadLimits)
			return
		}
		require.GreaterOrEqual(t, l.MaxPerHire, int64(0))
		require.GreaterOrEqual(t, l.MaxPerSession, int64(0))
		require.GreaterOrEqual(t, l.MaxPerDay, int64(0))
	})
}

func testGuard(l Limits) *guard { return newGuard(l, "/repo", time.Now) }

func TestGuardPlan(t *testing.T) {
	const c = 10_000 // 0.01 credits
	testCases := []struct {
		name          string
		limits        Limits
		spent         int64 // this session
		today         int64
		asked         int64
		wantMax       int64
		wantLimitedBy string
		wantErr       []string
	}{
		{"no caps, no max_price", Limits{}, 0, 0, 0, 0, "", nil},
		{"no caps, max_price", Limits{}, 0, 0, 5 * c, 5 * c, "", nil},
		{"per-hire caps the price", Limits{MaxPerHire: 3 * c}, 0, 0, 0, 3 * c, capPerHire, nil},
		{"max_price under per-hire", Limits{MaxPerHire: 3 * c}, 0, 0, 2 * c, 2 * c, "", nil},
		{"max_price over per-hire", Limits{MaxPerHire: 3 * c}, 0, 0, 5 * c, 0, "", []string{"per-hire cap of 0.03 credits", "--max-per-hire"}},
		{"session left is the price", Limits{MaxPerSession: 8 * c}, 5 * c, 0, 0, 3 * c, capPerSession, nil},
		{"session left under per-hire", Limits{MaxPerHire: 5 * c, MaxPerSession: 8 * c}, 6 * c, 0, 0, 2 * c, capPerSession, nil},
		{"per-hire under session left", Limits{MaxPerHire: 1 * c, MaxPerSession: 8 * c}, 0, 0, 0, 1 * c, capPerHire, nil},
		{"max_price over session left", Limits{MaxPerSession: 8 * c}, 5 * c, 0, 5 * c, 0, "", []string{"only 0.03 of the per-session cap of 0.08 credits", "--max-per-session"}},
		{"session used up", Limits{MaxPerSession: 8 * c}, 8 * c, 0, 0, 0, "", []string{"per-session cap of 0.08 credits is used up"}},
		{"day left is the price", Limits{MaxPerDay: 10 * c}, 0, 6 * c, 0, 4 * c, capPerDay, nil},
		{"max_price over day left", Limits{MaxPerDay: 10 * c}, 0, 6 * c, 5 * c, 0, "", []string{"per-day cap", "midnight", "max_per_day"}},
		{"day used up", Limits{MaxPerDay: 10 * c}, 0, 12 * c, 1 * c, 0, "", []string{"per-day cap of 0.1 credits is used up"}},
		{"tightest of three", Limits{MaxPerHire: 5 * c, MaxPerSession: 9 * c, MaxPerDay: 20 * c}, 2 * c, 17 * c, 0, 3 * c, capPerDay, nil},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			g := testGuard(tc.limits)
			gr, err := g.plan(tc.asked, usage{session: tc.spent, day: tc.today})
			if tc.wantErr != nil {
				require.ErrorIs(t, err, ErrCapExceeded)
				for _, w := range tc.wantErr {
					require.ErrorContains(t, err, w)
				}
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.wantMax, gr.maxPrice)
			require.Equal(t, tc.wantLimitedBy, gr.limitedBy)
		})
	}
}

// The caps a hire carries to the daemon: the session's scope always (so
// its spend can be read back), with its limit, and the day cap from local
// midnight when set.
func TestGuardSpendCaps(t *testing.T) {
	const c = 10_000
	g := testGuard(Limits{})
	caps := g.spendCaps()
	require.Len(t, caps, 1)
	require.Equal(t, capPerSession, caps[0].Name)
	require.True(t, strings.HasPrefix(caps[0].Scope, sessionScopePrefix))
	require.Equal(t, "0", caps[0].Limit, "no session cap: the scope only tags the hire")
	require.Equal(t, g.start, caps[0].Since)
	require.NotEqual(t, caps[0].Scope, testGuard(Limits{}).session, "every server is its own session")

	g = testGuard(Limits{MaxPerSession: 8 * c, MaxPerDay: 50 * c})
	caps = g.spendCaps()
	require.Len(t, caps, 2)
	require.Equal(t, "0.08", caps[0].Limit)
	require.Equal(t, controlapi.SpendCap{Name: capPerDay, Since: g.dayStart(), Limit: "0.5"}, caps[1])
}

// A refusal by the daemon's escrow (another hire took what was left) reads
// like the guard's own.
func TestGuardFromDaemon(t *testing.T) {
	g := testGuard(Limits{MaxPerDay: 100_000})
	ce := g.fromDaemon(&controlapi.SpendCapRefusal{Name: capPerDay, Limit: "0.1", Used: "0.08", Left: "0.02", Amount: "0.05"})
	require.ErrorIs(t, ce, ErrCapExceeded)
	require.Equal(t, capPerDay, ce.Cap)
	require.Equal(t, int64(20_000), ce.Left)
	require.ErrorContains(t, ce, "only 0.02 of the per-day cap of 0.1 credits is left")
	require.ErrorContains(t, ce, "--max-per-day")
	ce = g.fromDaemon(&controlapi.SpendCapRefusal{Name: capPerSession, Limit: "0.1", Used: "0.1", Left: "0", Amount: "0.05"})
	require.ErrorContains(t, ce, "per-session cap of 0.1 credits is used up")
}

func TestGuardDayStartIsLocalMidnight(t *testing.T) {
	loc := time.FixedZone("test", 5*3600)
	g := &guard{now: func() time.Time { return time.Date(2026, 3, 4, 1, 30, 0, 0, loc) }}
	require.Equal(t, time.Date(2026, 3, 4, 0, 0, 0, 0, loc), g.dayStart())
}

// TestForAgentNamesTheToolArgument: hire errors told the agent to "raise
// --max-price", a CLI flag it does not have.
func TestForAgentNamesTheToolArgument(t *testing.T) {
	got := forAgent("no seller of x at or under 0.01 credits: 1 seller(s) found, the cheapest asks 0.05; raise --max-price")
	require.NotContains(t, got, "--max-price")
	require.Contains(t, got, "raise the max_price argument of swarmwage_hire")
}
