package node_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/node"
	"github.com/swarmwage/swarmwage/node/nodetest"
)

// A daemon's log file is appended to and private (0600), and the repo
// records where it is for 'swarmwage logs'.
func TestLogFileIsAppendedPrivateAndRecorded(t *testing.T) {
	repo := nodetest.NewRepo(t, "logtest")
	_, err := node.LogFile(repo.Dir)
	require.ErrorIs(t, err, node.ErrNoLogFile)
	_, err = node.LogFile(t.TempDir())
	require.ErrorAs(t, err, new(node.NoRepoError))

	path := filepath.Join(t.TempDir(), "new", "dir", "daemon.log")
	for _, line := range []string{"first\n", "second\n"} {
		f, err := node.OpenLogFile(path)
		require.NoError(t, err)
		_, err = f.WriteString(line)
		require.NoError(t, err)
		require.NoError(t, f.Close())
	}
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "first\nsecond\n", string(b), "appended, not truncated")
	st, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm())

	require.NoError(t, node.SetLogFile(repo.Dir, path))
	got, err := node.LogFile(repo.Dir)
	require.NoError(t, err)
	require.Equal(t, path, got)
	require.NoError(t, node.SetLogFile(repo.Dir, ""))
	_, err = node.LogFile(repo.Dir)
	require.ErrorIs(t, err, node.ErrNoLogFile, "a daemon without --log-file forgets it")
	require.NoError(t, node.SetLogFile(repo.Dir, ""), "forgetting twice is fine")
}
