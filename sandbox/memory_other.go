//go:build !linux

package sandbox

import "github.com/tetratelabs/wazero/experimental"

// newMemoryAllocator returns a Go-heap allocator; the mmap one is Linux only.
func newMemoryAllocator() experimental.MemoryAllocator {
	return experimental.MemoryAllocatorFunc(func(_, maxBytes uint64) experimental.LinearMemory {
		return &heapMemory{max: maxBytes}
	})
}
