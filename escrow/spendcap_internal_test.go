package escrow

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestSpendKeysRoundTrip(t *testing.T) {
	at := time.Date(2026, 11, 29, 12, 0, 0, 123e6, time.UTC)
	for _, id := range []string{"job-1", "01HXYZ", "a.b:c_d", "x"} {
		gotAt, got, err := parseCreatedKey(createdKey(at, id))
		require.NoError(t, err)
		require.True(t, at.Equal(gotAt))
		require.Equal(t, id, got)
		for _, scope := range []string{"mcp-session/abc", "../../acct/balance", "s"} {
			k := scopeKey(scope, at, id)
			require.True(t, bytes.HasPrefix(k, scopeKeyPrefix(scope)))
			require.Equal(t, scopePrefix+encodeKeyPart(scope)+"/", string(scopeKeyPrefix(scope)), "the scope cannot add separators")
			gotScope, gotAt, got, err := parseScopeKey(k)
			require.NoError(t, err)
			require.Equal(t, scope, gotScope)
			require.True(t, at.Equal(gotAt))
			require.Equal(t, id, got)
		}
	}
	for _, k := range []string{"", "escrow/created/", "escrow/created/1234", "escrow/created/12345678/!!", "escrow/job/buyer/mfrgg"} {
		_, _, err := parseCreatedKey([]byte(k))
		require.Error(t, err, k)
	}
	for _, k := range []string{"", "escrow/scope/", "escrow/scope/mfrgg", "escrow/scope/!!/12345678/mfrgg", "escrow/scope/mfrgg/1234"} {
		_, _, _, err := parseScopeKey([]byte(k))
		require.Error(t, err, k)
	}
}

// Created-at keys sort by time whatever the job ID: the day's total seeks
// to midnight and reads on.
func TestCreatedKeysSortByTime(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	require.Negative(t, bytes.Compare(createdKey(t0, "zzzz"), createdKey(t0.Add(time.Millisecond), "aaaa")))
	require.Negative(t, bytes.Compare(scopeKey("s", t0, "zzzz"), scopeKey("s", t0.Add(time.Millisecond), "aaaa")))
	start := appendMillis([]byte(createdPrefix), t0.Add(time.Millisecond))
	require.Negative(t, bytes.Compare(createdKey(t0, "zzzz"), start))
	require.GreaterOrEqual(t, bytes.Compare(createdKey(t0.Add(time.Millisecond), "a"), start), 0)
	require.Equal(t, createdKey(time.Unix(-5, 0), "a"), createdKey(time.Unix(0, 0), "a"), "times before 1970 clamp to 0")
}
