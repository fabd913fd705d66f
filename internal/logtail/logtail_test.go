package logtail_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/swarmwage/swarmwage/internal/lockedbuf"
	"github.com/swarmwage/swarmwage/internal/logtail"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestStartFindsTheLastLines(t *testing.T) {
	long := strings.Repeat("z", 70<<10) // longer than one block
	testCases := []struct {
		name, text string
		n          int
		want       string
	}{
		{"all", "a\nb\nc\n", 0, "a\nb\nc\n"},
		{"last two", "a\nb\nc\n", 2, "b\nc\n"},
		{"more than there are", "a\nb\n", 10, "a\nb\n"},
		{"no final newline", "a\nb\nc", 1, "c"},
		{"empty", "", 3, ""},
		{"across blocks", "first\n" + long + "\nlast\n", 2, long + "\nlast\n"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "log")
			require.NoError(t, os.WriteFile(path, []byte(tc.text), 0o600))
			f, err := os.Open(path)
			require.NoError(t, err)
			defer f.Close()
			off, err := logtail.Start(f, tc.n)
			require.NoError(t, err)
			var buf bytes.Buffer
			end, err := logtail.Copy(&buf, f, off)
			require.NoError(t, err)
			require.Equal(t, tc.want, buf.String())
			require.Equal(t, int64(len(tc.text)), end)
		})
	}
}

func appendTo(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	require.NoError(t, err)
	_, err = f.WriteString(s)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

// Follow prints what is appended, and keeps following across a
// truncation and a rotation (rename, new file), until its context ends.
func TestFollowAppendsTruncationAndRotation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "daemon.log")
	appendTo(t, path, "old line\n")
	f, err := os.Open(path)
	require.NoError(t, err)
	st, err := f.Stat()
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(t.Context())
	out := &lockedbuf.Buffer{}
	done := make(chan error, 1)
	go func() { done <- logtail.Follow(ctx, out, path, f, st.Size(), 10*time.Millisecond) }()

	wait := func(want string) {
		t.Helper()
		require.Eventually(t, func() bool { return out.String() == want }, 10*time.Second, 5*time.Millisecond, "got %q", out.String())
	}
	appendTo(t, path, "one\n")
	wait("one\n")
	appendTo(t, path, "two\n")
	wait("one\ntwo\n")

	require.NoError(t, os.Truncate(path, 0))
	// Shorter than what was read: whether or not a poll saw the file
	// empty, it is smaller than the offset, so read from its start.
	appendTo(t, path, "trunc\n")
	wait("one\ntwo\ntrunc\n")

	require.NoError(t, os.Rename(path, path+".1"))
	appendTo(t, path, "new file\n")
	wait("one\ntwo\ntrunc\nnew file\n")

	require.NoError(t, os.Remove(path))
	appendTo(t, path, "made again\n")
	wait("one\ntwo\ntrunc\nnew file\nmade again\n")

	cancel()
	require.NoError(t, <-done)
	require.NotContains(t, out.String(), "old line", "Follow starts at the offset it was given")
}

func TestLines(t *testing.T) {
	require.Equal(t, []string{}, logtail.Lines(nil))
	require.Equal(t, []string{"a", "b"}, logtail.Lines([]byte("a\nb\n")))
	require.Equal(t, []string{"a", "", "b"}, logtail.Lines([]byte("a\n\nb")))
}
