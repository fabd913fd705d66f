package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestWriteReplacesWithModeAndLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o644))
	require.NoError(t, Write(path, []byte("new"), 0o600))
	requireFile(t, path, "new", 0o600)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file left")

	require.NoError(t, Write(path, []byte("public"), 0o644))
	requireFile(t, path, "public", 0o644)
}

func TestWriteFailureLeavesTheOldFile(t *testing.T) {
	require.Error(t, Write(filepath.Join(t.TempDir(), "missing", "f"), []byte("x"), 0o600))

	// The target is a directory: the rename fails, and the temp file goes.
	dir := t.TempDir()
	target := filepath.Join(dir, "d")
	require.NoError(t, os.Mkdir(target, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(target, "keep"), []byte("x"), 0o600))
	err := Write(target, []byte("x"), 0o600)
	require.ErrorContains(t, err, "write "+target)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "only the directory, no temporary file")
}

func TestCreateNeverReplacesAnExistingFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "evm.key")
	require.NoError(t, Create(path, []byte("first"), 0o600))
	requireFile(t, path, "first", 0o600)

	require.ErrorIs(t, Create(path, []byte("second"), 0o644), fs.ErrExist)
	requireFile(t, path, "first", 0o600) // the first file is kept
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file left")
}

// requireFile checks that path holds content with mode perm.
func requireFile(t *testing.T, path, content string, perm os.FileMode) {
	t.Helper()
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, content, string(got))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, perm, fi.Mode().Perm())
}
