package devchain_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/swarmwage/swarmwage/escrow/evm/devchain"
	"github.com/swarmwage/swarmwage/escrow/evm/evmtest"
)

// TestMain fails the package if a chain's output reader or waiter
// outlives its stop.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestFindAnvil(t *testing.T) {
	pinned, err := evmtest.AnvilPath()
	require.NoError(t, err)
	onPath := t.TempDir()
	require.NoError(t, os.Symlink(pinned, filepath.Join(onPath, "anvil")))
	notExec := filepath.Join(t.TempDir(), "anvil")
	require.NoError(t, os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644))
	empty := t.TempDir()

	testCases := []struct {
		name string
		path string
		env  string // PATH
		want string
		err  string
	}{
		{name: "given", path: pinned, env: empty, want: pinned},
		{name: "on PATH", env: onPath, want: filepath.Join(onPath, "anvil")},
		{name: "given and missing", path: filepath.Join(empty, "anvil"), env: onPath, err: "no such file"},
		{name: "given, not executable", path: notExec, env: onPath, err: "not an executable file"},
		// The test runs in escrow/evm/devchain of a checkout: the pinned one.
		{name: "checkout", env: empty, want: pinned},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("PATH", tc.env)
			got, err := devchain.FindAnvil(tc.path)
			if tc.err != "" {
				require.ErrorIs(t, err, devchain.ErrNoAnvil)
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}

	t.Run("outside a checkout", func(t *testing.T) {
		t.Setenv("PATH", empty)
		t.Chdir(empty)
		_, err := devchain.FindAnvil("")
		require.ErrorIs(t, err, devchain.ErrNoAnvil)
		require.ErrorContains(t, err, "not on PATH")
		require.ErrorContains(t, err, "not in a swarmwage checkout")
	})
}

func TestStartRunsAChain(t *testing.T) {
	bin, err := evmtest.AnvilPath()
	require.NoError(t, err)
	c, stop, err := devchain.Start(t.Context(), bin, 31337)
	require.NoError(t, err)
	require.Regexp(t, `^http://127\.0\.0\.1:\d+$`, c.URL)
	require.Equal(t, int64(31337), c.ChainID)
	require.NotEmpty(t, c.Keys)
	require.Len(t, c.Addresses, len(c.Keys))
	p, err := c.WriteKey(t.TempDir(), 0)
	require.NoError(t, err)
	fi, err := os.Stat(p)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	require.NoError(t, stop())
	require.NoError(t, stop(), "stop is idempotent")

	_, _, err = devchain.Start(context.Background(), "/bin/false", 31337)
	require.ErrorContains(t, err, "exited before listening")
}
