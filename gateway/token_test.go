package gateway_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/gateway"
)

func TestEnsureToken(t *testing.T) {
	dir := t.TempDir()
	tok, err := gateway.EnsureToken(dir)
	require.NoError(t, err)
	require.Len(t, tok, 64)
	st, err := os.Stat(filepath.Join(dir, gateway.TokenFile))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	again, err := gateway.EnsureToken(dir)
	require.NoError(t, err)
	require.Equal(t, tok, again, "the token is kept across starts")

	require.NoError(t, os.Chmod(filepath.Join(dir, gateway.TokenFile), 0o644))
	_, err = gateway.EnsureToken(dir)
	require.ErrorContains(t, err, "readable by others")

	require.NoError(t, os.WriteFile(filepath.Join(dir, gateway.TokenFile), nil, 0o600))
	require.NoError(t, os.Chmod(filepath.Join(dir, gateway.TokenFile), 0o600))
	_, err = gateway.EnsureToken(dir)
	require.ErrorContains(t, err, "empty")
}
