package escrow

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestKeysRoundTrip(t *testing.T) {
	ids := []string{"job-1", "01HXYZ", "a.b:c_d", "x"}
	for _, id := range ids {
		for _, role := range []Role{RoleBuyer, RoleSeller} {
			r, got, err := parseJobKey(jobKey(role, id))
			require.NoError(t, err)
			require.Equal(t, role, r)
			require.Equal(t, id, got)

			at := time.Date(2026, 11, 29, 12, 0, 0, 123e6, time.UTC)
			gotAt, r, got, err := parseDueKey(dueKey(at, role, id))
			require.NoError(t, err)
			require.True(t, at.Equal(gotAt))
			require.Equal(t, role, r)
			require.Equal(t, id, got)

			for _, kind := range []string{receiptLock, receiptDelivery, receiptSettle} {
				gotID, r, k, err := parseReceiptKey(receiptKey(id, role, kind))
				require.NoError(t, err)
				require.Equal(t, id, gotID)
				require.Equal(t, role, r)
				require.Equal(t, kind, k)
			}
		}
	}
	at := time.Unix(0, 1_700_000_000_123_456_789).UTC()
	gotAt, nonce, err := parseDepositKey(depositKey(at, "abcd0123"))
	require.NoError(t, err)
	require.True(t, at.Equal(gotAt))
	require.Equal(t, "abcd0123", nonce)
}

func TestKeyParsersRejectGarbage(t *testing.T) {
	for _, k := range []string{"", "escrow/job/", "escrow/job/buyer", "escrow/job/thief/abc", "escrow/job/buyer/!!", "acct/balance"} {
		_, _, err := parseJobKey([]byte(k))
		require.Error(t, err, k)
	}
	for _, k := range []string{"", "escrow/due/", "escrow/due/1234", "escrow/due/12345678/buyer/x", "escrow/due/12345678/thief/mfrgg"} {
		_, _, _, err := parseDueKey([]byte(k))
		require.Error(t, err, k)
	}
	for _, k := range []string{"", "receipt/x", "receipt/x/buyer/other", "receipt/x/thief/lock", "receipt/!/buyer/lock"} {
		_, _, _, err := parseReceiptKey([]byte(k))
		require.Error(t, err, k)
	}
	_, _, err := parseDepositKey([]byte("acct/deposit/x"))
	require.Error(t, err)
}

// Due keys sort by time, whatever the job ID: the timer scan relies on it.
func TestDueKeysSortByTime(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	early := dueKey(t0, RoleSeller, "zzzz")
	late := dueKey(t0.Add(time.Millisecond), RoleBuyer, "aaaa")
	require.Negative(t, bytes.Compare(early, late))
	require.Negative(t, bytes.Compare(dueKey(t0.Add(255*time.Millisecond), RoleBuyer, "a"), dueKey(t0.Add(256*time.Millisecond), RoleBuyer, "a")))
}

// A job ID with the separator cannot escape its namespace.
func TestJobIDsCannotEscapeKeys(t *testing.T) {
	k := jobKey(RoleBuyer, "../../acct/balance")
	require.True(t, bytes.HasPrefix(k, []byte("escrow/job/buyer/")))
	require.Equal(t, 3, bytes.Count(k, []byte("/")))
}
