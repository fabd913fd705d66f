package evm

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestKeyFileCreatedOnceWithMode0600(t *testing.T) {
	path := filepath.Join(t.TempDir(), KeyFileName)
	k, created, err := LoadOrCreateKey(path)
	require.NoError(t, err)
	require.True(t, created)
	st, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm())

	again, created, err := LoadOrCreateKey(path)
	require.NoError(t, err)
	require.False(t, created)
	require.Equal(t, k.Address(), again.Address())

	other, err := GenerateKey()
	require.NoError(t, err)
	require.ErrorIs(t, SaveKey(path, other), ErrKeyFile, "an existing key is never overwritten")
	loaded, err := LoadKey(path)
	require.NoError(t, err)
	require.Equal(t, k.Address(), loaded.Address())
}

func TestKeyFileReadableByOthersIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), KeyFileName)
	_, _, err := LoadOrCreateKey(path)
	require.NoError(t, err)
	require.NoError(t, os.Chmod(path, 0o644))
	_, err = LoadKey(path)
	require.ErrorIs(t, err, ErrKeyFile)
	require.ErrorContains(t, err, "chmod 600")
}

func TestImportKey(t *testing.T) {
	dir := t.TempDir()
	// anvil's first well-known dev key, as anvil prints it.
	const hexKey0 = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
	src := filepath.Join(dir, "import.txt")
	require.NoError(t, os.WriteFile(src, []byte(hexKey0+"\n"), 0o644))
	k, err := ImportKey(filepath.Join(dir, KeyFileName), src)
	require.NoError(t, err)
	require.Equal(t, "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", k.Address().Hex())
	st, err := os.Stat(filepath.Join(dir, KeyFileName))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm())
}

func TestParseKeyRejectsGarbage(t *testing.T) {
	for _, in := range []string{"", "0x", "zz", strings.Repeat("a", 63), strings.Repeat("0", 64), strings.Repeat("f", 64)} {
		_, err := ParseKey(in)
		require.ErrorIs(t, err, ErrKeyFile, "input %q", in)
	}
}

// The key's secret never shows up in formatted output or logs.
func TestKeyNeverPrintsItsSecret(t *testing.T) {
	k, err := GenerateKey()
	require.NoError(t, err)
	secret := hexKey(k)
	var logged strings.Builder
	log := slog.New(slog.NewTextHandler(&logged, nil))
	log.Info("key", "k", k)
	for _, s := range []string{
		fmt.Sprint(k), fmt.Sprintf("%v %+v %#v %s %x %q", k, k, k, k, k, k), k.String(), logged.String(),
	} {
		require.NotContains(t, strings.ToLower(s), secret)
		require.Contains(t, s, k.Address().Hex())
	}
	b, err := json.Marshal(k)
	require.NoError(t, err)
	require.NotContains(t, string(b), secret)
}
