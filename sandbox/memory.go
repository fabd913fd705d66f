package sandbox

import (
	"bytes"

	"github.com/tetratelabs/wazero/experimental"
)

// memoryAllocator gives instances their linear memories (memory_linux.go,
// memory_other.go), each starting with the allocator's initial image.
type memoryAllocator interface {
	experimental.MemoryAllocator
	// resident tells how much of the live memories is in RAM; false where
	// that is not known.
	resident() (residency, bool)
	// learnHot makes the next memory freed teach the allocator which
	// pages of the image a job writes; prefault then copies those pages
	// into a memory ahead of its job. Both do nothing where unsupported.
	learnHot()
	// prefault breaks the copy-on-write sharing of the hot pages of mem,
	// a memory this allocator gave, so its job does not fault on them.
	prefault(mem []byte)
	// Close releases the image; memories still live keep working.
	Close() error
}

// residency is what the live linear memories hold in RAM.
type residency struct {
	memories int
	// private is bytes of pages only one memory has: written by its
	// guest, or past the initial image.
	private uint64
	// shared is bytes of the initial image mapped and still shared with
	// the image (counted once per memory that maps them).
	shared uint64
}

// heapMemory is a linear memory on the Go heap that doubles its capacity
// when it grows, so a program growing page by page copies O(n) in total.
type heapMemory struct {
	buf []byte
	max uint64
}

// newHeapMemory returns a heap memory that starts as a copy of image.
func newHeapMemory(maxBytes uint64, image []byte) *heapMemory {
	return &heapMemory{buf: bytes.Clone(image[:min(uint64(len(image)), maxBytes)]), max: maxBytes}
}

// Reallocate implements experimental.LinearMemory.
func (m *heapMemory) Reallocate(size uint64) []byte {
	if size > m.max {
		return nil
	}
	if size > uint64(cap(m.buf)) {
		grown := make([]byte, len(m.buf), min(m.max, max(size, 2*uint64(cap(m.buf)))))
		copy(grown, m.buf)
		m.buf = grown
	}
	m.buf = m.buf[:size]
	return m.buf
}

// Free implements experimental.LinearMemory.
func (m *heapMemory) Free() { m.buf = nil }
