package sandbox

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMmapAllocatorResident(t *testing.T) {
	a := newMemoryAllocator()
	n, bytes, ok := a.resident()
	require.True(t, ok)
	require.Zero(t, n)
	require.Zero(t, bytes)

	page := os.Getpagesize()
	mem := a.Allocate(0, 64<<20)
	buf := mem.Reallocate(16 << 20)
	require.Len(t, buf, 16<<20)
	for i := range 3 {
		buf[i*page*100] = 1
	}
	n, bytes, ok = a.resident()
	require.True(t, ok)
	require.Equal(t, 1, n)
	require.Equal(t, uint64(3*page), bytes, "only touched pages are resident")

	mem.Free()
	mem.Free()
	n, _, _ = a.resident()
	require.Zero(t, n)
}
