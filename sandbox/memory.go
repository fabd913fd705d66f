package sandbox

import "github.com/tetratelabs/wazero/experimental"

// memoryAllocator gives instances their linear memories (memory_linux.go,
// memory_other.go).
type memoryAllocator interface {
	experimental.MemoryAllocator
	// resident returns how many linear memories are live and how many of
	// their bytes are in RAM; ok is false where that is not known.
	resident() (n int, bytes uint64, ok bool)
}

// heapMemory is a linear memory on the Go heap that doubles its capacity
// when it grows, so a program growing page by page copies O(n) in total.
type heapMemory struct {
	buf []byte
	max uint64
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
