package sandbox

import (
	"bytes"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMmapAllocatorResident(t *testing.T) {
	a, err := newMemoryAllocator(nil)
	require.NoError(t, err)
	defer func() { require.NoError(t, a.Close()) }()
	r, ok := a.resident()
	require.True(t, ok)
	require.Zero(t, r)

	page := os.Getpagesize()
	mem := a.Allocate(0, 64<<20)
	buf := mem.Reallocate(16 << 20)
	require.Len(t, buf, 16<<20)
	for i := range 3 {
		buf[i*page*100] = 1
	}
	r, ok = a.resident()
	require.True(t, ok)
	require.Equal(t, residency{memories: 1, private: uint64(3 * page)}, r, "only touched pages are resident")

	mem.Free()
	mem.Free()
	r, _ = a.resident()
	require.Zero(t, r.memories)
}

// Each memory starts as the image; a write stays in its memory and a read
// shares the image's page.
func TestMmapAllocatorImageCopyOnWrite(t *testing.T) {
	page := os.Getpagesize()
	image := bytes.Repeat([]byte("swarmwage"), 3*page/9+5) // three pages and a bit
	a, err := newMemoryAllocator(image)
	require.NoError(t, err)

	m1, m2 := a.Allocate(0, 1<<20), a.Allocate(0, 1<<20)
	b1, b2 := m1.Reallocate(8*uint64(page)), m2.Reallocate(8*uint64(page))
	require.Equal(t, image, b1[:len(image)])
	require.Equal(t, image, b2[:len(image)])
	require.Equal(t, make([]byte, len(b1)-len(image)), b1[len(image):], "zero past the image")

	b1[0], b1[5*page] = 'X', 'Y'
	require.Equal(t, byte('s'), b2[0], "a write stays in its memory")
	require.Zero(t, b2[5*page])
	_ = b2[page] // a read

	r, ok := a.resident()
	require.True(t, ok)
	require.Equal(t, 2, r.memories)
	require.Equal(t, uint64(2*page), r.private, "the two written pages")
	require.Equal(t, uint64(7*page), r.shared, "the image's four pages, all read by both, but b1's first, now its own")

	b3 := a.Allocate(0, 1<<20).Reallocate(uint64(page))
	require.Equal(t, byte('s'), b3[0], "a new memory sees the image, not an earlier write")
	m1.Free()
	m2.Free()
	require.NoError(t, a.Close())
	// Memories outlive the allocator's image handle.
	require.Equal(t, image[:page], b3[:page])
}

func TestHeapMemoryStartsWithImage(t *testing.T) {
	m := newHeapMemory(1<<20, []byte("abc"))
	b := m.Reallocate(4096)
	require.Equal(t, []byte("abc\x00"), b[:4])
	b = m.Reallocate(1 << 20)
	require.Equal(t, []byte("abc\x00"), b[:4])
	require.Nil(t, m.Reallocate(1<<20+1))
}
