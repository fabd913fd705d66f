//go:build !linux

package sandbox

import "github.com/tetratelabs/wazero/experimental"

// heapAllocator allocates linear memories on the Go heap, each a copy of
// the image; the mmap one is Linux only.
type heapAllocator struct{ image []byte }

func newMemoryAllocator(image []byte) (memoryAllocator, error) { return heapAllocator{image}, nil }

// Allocate implements experimental.MemoryAllocator.
func (a heapAllocator) Allocate(_, maxBytes uint64) experimental.LinearMemory {
	return newHeapMemory(maxBytes, a.image)
}

// resident implements memoryAllocator: not known here.
func (heapAllocator) resident() (residency, bool) { return residency{}, false }

// learnHot implements memoryAllocator: a heap memory is its own already.
func (heapAllocator) learnHot() {}

// prefault implements memoryAllocator.
func (heapAllocator) prefault([]byte) {}

// Close implements memoryAllocator.
func (heapAllocator) Close() error { return nil }
