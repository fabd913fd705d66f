//go:build !linux

package sandbox

import "github.com/tetratelabs/wazero/experimental"

// heapAllocator allocates linear memories on the Go heap; the mmap one is
// Linux only.
type heapAllocator struct{}

func newMemoryAllocator() memoryAllocator { return heapAllocator{} }

// Allocate implements experimental.MemoryAllocator.
func (heapAllocator) Allocate(_, maxBytes uint64) experimental.LinearMemory {
	return &heapMemory{max: maxBytes}
}

// resident implements memoryAllocator: not known here.
func (heapAllocator) resident() (int, uint64, bool) { return 0, 0, false }
