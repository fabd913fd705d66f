package sandbox

import (
	"bytes"
	"encoding/binary"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// What the kernel makes resident for one touch is its business: it may
// fault around a read of the image (fault_around_bytes, 64 KiB by
// default), answer a read past the image with a page of its own rather
// than the zero page (Linux 6.18 here did), and give a write a large folio
// (mTHP, 16 KiB to 1 MiB) or a whole transparent huge page. The tests below therefore check what the allocator promises (a
// written page is the memory's own, a read page is the image's, nothing is
// shared past the image) and bound the rest: a touch makes resident at most
// the huge-page block around it, hugeBlock bytes (2 MiB on amd64). What
// this kernel actually does is measured by BenchmarkImageCopyOnWrite.

// hugeBlock is the most a single touch can make resident: the PMD size of
// transparent huge pages, 2 MiB where the kernel does not say.
func hugeBlock(t testing.TB) uint64 {
	t.Helper()
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size")
	if err != nil {
		return 2 << 20
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	require.NoError(t, err, "hpage_pmd_size")
	return max(n, uint64(os.Getpagesize()))
}

// pageState is what pagemap(5) says of one page of a memory.
type pageState byte

const (
	pageAbsent  pageState = '.' // not in RAM
	pageImage   pageState = 'S' // the image's page, shared through the memfd
	pageOwn     pageState = 'P' // an anonymous page only this memory maps
	pageZeroish pageState = 'z' // present, anonymous, not exclusive (the zero page)
)

// pageStates reads the state of every page of buf, as a string of
// pageState, for messages that show the whole memory.
func pageStates(t *testing.T, buf []byte) string {
	t.Helper()
	pagemap, err := os.Open("/proc/self/pagemap")
	require.NoError(t, err)
	defer pagemap.Close()
	page := os.Getpagesize()
	entries := make([]byte, 8*(len(buf)/page))
	_, err = pagemap.ReadAt(entries, int64(uintptr(unsafe.Pointer(&buf[0]))/uintptr(page)*8))
	require.NoError(t, err)
	var s strings.Builder
	for i := 0; i < len(entries); i += 8 {
		const present, filePage, exclusive = 1 << 63, 1 << 61, 1 << 56
		switch e := binary.LittleEndian.Uint64(entries[i:]); {
		case e&present == 0:
			s.WriteByte(byte(pageAbsent))
		case e&filePage != 0:
			s.WriteByte(byte(pageImage))
		case e&exclusive != 0:
			s.WriteByte(byte(pageOwn))
		default:
			s.WriteByte(byte(pageZeroish))
		}
	}
	return s.String()
}

// A memory costs RAM only where it was touched: three writes far apart in
// 16 MiB make those pages resident, and at most the huge-page block around
// each of them.
func TestMmapAllocatorResident(t *testing.T) {
	a, err := newMemoryAllocator(nil)
	require.NoError(t, err)
	defer func() { require.NoError(t, a.Close()) }()
	r, ok := a.resident()
	require.True(t, ok)
	require.Zero(t, r)

	page, block := os.Getpagesize(), hugeBlock(t)
	mem := a.Allocate(0, 64<<20)
	buf := mem.Reallocate(16 << 20)
	require.Len(t, buf, 16<<20)
	touched := []int{1 << 20, 7 << 20, 13 << 20} // each in a 2 MiB block of its own
	for _, off := range touched {
		buf[off] = 1
	}
	states := pageStates(t, buf)
	for _, off := range touched {
		require.Equal(t, pageOwn, pageState(states[off/page]), "the written page at %d is the memory's own", off)
	}
	r, ok = a.resident()
	require.True(t, ok)
	require.Equal(t, 1, r.memories)
	require.Zero(t, r.shared, "no image, nothing shared")
	require.GreaterOrEqual(t, r.private, uint64(len(touched)*page), "the written pages")
	require.LessOrEqual(t, r.private, min(uint64(len(touched))*block, uint64(len(buf))),
		"at most a huge-page block per touch is resident: %q", states)

	mem.Free()
	mem.Free()
	r, _ = a.resident()
	require.Zero(t, r.memories)
}

// Each memory starts as the image; a write stays in its memory (it gets a
// page of its own) and a read shares the image's page.
func TestMmapAllocatorImageCopyOnWrite(t *testing.T) {
	page := os.Getpagesize()
	image := bytes.Repeat([]byte("swarmwage"), 3*page/9+5) // three pages and a bit
	const imagePages, memPages = 4, 8
	a, err := newMemoryAllocator(image)
	require.NoError(t, err)

	m1, m2 := a.Allocate(0, 1<<20), a.Allocate(0, 1<<20)
	b1, b2 := m1.Reallocate(memPages*uint64(page)), m2.Reallocate(memPages*uint64(page))
	require.Equal(t, image, b1[:len(image)])
	require.Equal(t, image, b2[:len(image)])
	require.Equal(t, make([]byte, len(b1)-len(image)), b1[len(image):], "zero past the image")

	b1[0], b1[5*page] = 'X', 'Y'
	require.Equal(t, byte('s'), b2[0], "a write stays in its memory")
	require.Zero(t, b2[5*page])
	_ = b2[page] // a read

	s1, s2 := pageStates(t, b1), pageStates(t, b2)
	require.Equal(t, pageOwn, pageState(s1[0]), "b1's written image page is its own copy: %q", s1)
	require.Equal(t, pageOwn, pageState(s1[5]), "b1's written page past the image is its own: %q", s1)
	for _, i := range []int{0, 1} {
		require.Equal(t, pageImage, pageState(s2[i]), "b2's read page %d is still the image's: %q", i, s2)
	}
	require.NotContains(t, s2[:imagePages], string(pageOwn), "b2 wrote nothing of the image")
	for _, s := range []string{s1, s2} {
		require.NotContains(t, s[imagePages:], string(pageImage), "nothing past the image is the image's")
	}

	r, ok := a.resident()
	require.True(t, ok)
	require.Equal(t, 2, r.memories)
	require.GreaterOrEqual(t, r.private, uint64(2*page), "the two written pages")
	require.GreaterOrEqual(t, r.shared, uint64(2*page), "b2's pages 0 and 1 at least")
	require.LessOrEqual(t, r.shared, uint64(2*imagePages*page), "only the image is shared")
	require.LessOrEqual(t, r.private+r.shared, uint64(2*memPages*page))

	b3 := a.Allocate(0, 1<<20).Reallocate(uint64(page))
	require.Equal(t, byte('s'), b3[0], "a new memory sees the image, not an earlier write")
	m1.Free()
	m2.Free()
	require.NoError(t, a.Close())
	// Memories outlive the allocator's image handle.
	require.Equal(t, image[:page], b3[:page])
}

// BenchmarkImageCopyOnWrite measures what this kernel makes resident, in
// a fresh memory over a 256 KiB image, for one read of an image page (the
// pages faulted around it, fault_around_bytes), one read past the image
// (the zero page, or a page of its own on kernels that allocate on read)
// and one write to the image and one past it (the folio size of a write).
// The tests only bound these figures.
func BenchmarkImageCopyOnWrite(b *testing.B) {
	page := os.Getpagesize()
	image := bytes.Repeat([]byte{7}, 64*page)
	a, err := newMemoryAllocator(image)
	require.NoError(b, err)
	defer func() { require.NoError(b, a.Close()) }()
	var read, readPrivate, written uint64
	for b.Loop() {
		mem := a.Allocate(0, 4<<20)
		buf := mem.Reallocate(4 << 20)
		_, _ = buf[10*page], buf[3<<20]
		r, ok := a.resident()
		require.True(b, ok)
		read += r.shared
		readPrivate += r.private
		buf[40*page], buf[1<<20] = 1, 1
		w, ok := a.resident()
		require.True(b, ok)
		written += w.private - r.private
		mem.Free()
	}
	n := float64(b.N) * float64(page)
	b.ReportMetric(float64(read)/n, "shared-pages/image-read")
	b.ReportMetric(float64(readPrivate)/n, "private-pages/zero-read")
	b.ReportMetric(float64(written)/n/2, "private-pages/write")
}

func TestHeapMemoryStartsWithImage(t *testing.T) {
	m := newHeapMemory(1<<20, []byte("abc"))
	b := m.Reallocate(4096)
	require.Equal(t, []byte("abc\x00"), b[:4])
	b = m.Reallocate(1 << 20)
	require.Equal(t, []byte("abc\x00"), b[:4])
	require.Nil(t, m.Reallocate(1<<20+1))
}
