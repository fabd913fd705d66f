package node

import (
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// allocatedBytes is how much disk path really takes.
func allocatedBytes(t *testing.T, path string) uint64 {
	t.Helper()
	var st syscall.Stat_t
	require.NoError(t, syscall.Stat(path, &st))
	return uint64(st.Blocks) * 512
}
