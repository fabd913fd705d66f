package sandbox

import (
	"encoding/binary"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/tetratelabs/wazero/experimental"
)

// mmapAllocator reserves each instance's maximum memory as one mmap region
// that grows in place. wazero's default copies the whole memory at every
// grow: a memory bomb took 4.6 s and 1 GB of host RSS with it, 2.6 s and
// 345 MB with this. Untouched pages cost no RSS (MAP_NORESERVE), and Free
// returns them at once.
//
// With an initial image (the module's data segments laid out, which New
// then strips from the module) the start of each reservation is a private
// copy-on-write mapping of one sealed memfd holding it: instantiating
// copies nothing, a page the guest reads is shared with every instance,
// and a page it writes becomes its own. wazero laid 24,171 segments into
// every instance, about 5 ms of each job. Writes never reach the memfd
// (MAP_PRIVATE, and it is sealed against writes), so no instance sees
// another's.
//
// It keeps the live memories so resident can tell what they hold.
type mmapAllocator struct {
	image     *os.File // the sealed memfd, nil without an image
	imageLen  int      // its size, a whole number of pages
	imageView []byte   // a read-only view of it, for the heap fallback

	mu   sync.Mutex
	live map[*mmapMemory]struct{}
	// learning is set by learnHot until a memory is freed; hot is then
	// the page numbers of the image that memory had written.
	learning bool
	hot      []int
}

// newMemoryAllocator returns the allocator; image, when not empty, is the
// initial content of every memory it allocates.
func newMemoryAllocator(image []byte) (memoryAllocator, error) {
	a := &mmapAllocator{live: make(map[*mmapMemory]struct{})}
	if len(image) == 0 {
		return a, nil
	}
	fd, err := unix.MemfdCreate("swarmwage-python-memory", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, fmt.Errorf("memfd for the initial memory image: %w", err)
	}
	f := os.NewFile(uintptr(fd), "swarmwage-python-memory")
	page := os.Getpagesize()
	a.imageLen = (len(image) + page - 1) / page * page
	if err := a.fillImage(f, image); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("memfd for the initial memory image: %w", err)
	}
	a.image = f
	return a, nil
}

func (a *mmapAllocator) fillImage(f *os.File, image []byte) error {
	if err := f.Truncate(int64(a.imageLen)); err != nil {
		return err
	}
	if _, err := f.WriteAt(image, 0); err != nil {
		return err
	}
	if _, err := unix.FcntlInt(f.Fd(), unix.F_ADD_SEALS, unix.F_SEAL_WRITE|unix.F_SEAL_GROW|unix.F_SEAL_SHRINK|unix.F_SEAL_SEAL); err != nil {
		return fmt.Errorf("seal: %w", err)
	}
	view, err := unix.Mmap(int(f.Fd()), 0, a.imageLen, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return fmt.Errorf("map: %w", err)
	}
	a.imageView = view
	return nil
}

// Allocate implements experimental.MemoryAllocator.
func (a *mmapAllocator) Allocate(_, maxBytes uint64) experimental.LinearMemory {
	b, err := unix.Mmap(-1, 0, int(maxBytes), unix.PROT_READ|unix.PROT_WRITE,
		unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_NORESERVE)
	if err == nil && a.image != nil {
		n := min(a.imageLen, len(b))
		if _, err = unix.MmapPtr(int(a.image.Fd()), 0, unsafe.Pointer(&b[0]), uintptr(n),
			unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_FIXED); err != nil {
			_ = unix.Munmap(b)
		}
	}
	if err != nil {
		// Out of address space or mappings: fall back to the Go heap.
		return newHeapMemory(maxBytes, a.imageView)
	}
	m := &mmapMemory{buf: b, owner: a}
	a.mu.Lock()
	a.live[m] = struct{}{}
	a.mu.Unlock()
	return m
}

// resident implements memoryAllocator from /proc/self/pagemap: a page of
// a live memory is private once the guest wrote it (an anonymous page
// mapped only there), shared when present and still the image's.
func (a *mmapAllocator) resident() (residency, bool) {
	pagemap, err := os.Open("/proc/self/pagemap")
	if err != nil {
		return residency{}, false
	}
	defer pagemap.Close()
	a.mu.Lock()
	defer a.mu.Unlock()
	page := uint64(os.Getpagesize())
	var r residency
	var entries []byte
	for m := range a.live {
		pages := (m.size.Load() + page - 1) / page
		if uint64(cap(entries)) < 8*pages {
			entries = make([]byte, 8*pages)
		}
		entries = entries[:8*pages]
		off := int64(uintptr(unsafe.Pointer(&m.buf[0])) / uintptr(page) * 8)
		if _, err := pagemap.ReadAt(entries, off); err != nil {
			return residency{}, false
		}
		for i := uint64(0); i < pages; i++ {
			e := binary.LittleEndian.Uint64(entries[8*i:])
			// Bits of pagemap(5). A page read but never written past the
			// image is the kernel's zero page: present, not exclusive.
			const present, filePage, exclusive = 1 << 63, 1 << 61, 1 << 56
			switch {
			case e&present == 0:
			case e&filePage != 0:
				r.shared += page
			case e&exclusive != 0:
				r.private += page
			}
		}
		r.memories++
	}
	return r, true
}

// Close implements memoryAllocator.
func (a *mmapAllocator) Close() error {
	if a.image == nil {
		return nil
	}
	err := unix.Munmap(a.imageView)
	if cerr := a.image.Close(); err == nil {
		err = cerr
	}
	return err
}

// mmapMemory is a linear memory in a fixed mmap reservation.
type mmapMemory struct {
	buf   []byte
	size  atomic.Uint64 // the guest's current memory size, for resident
	owner *mmapAllocator
	once  sync.Once
}

// Reallocate implements experimental.LinearMemory; it never moves the memory.
func (m *mmapMemory) Reallocate(size uint64) []byte {
	if size > uint64(len(m.buf)) {
		return nil
	}
	m.size.Store(size)
	return m.buf[:size]
}

// Free implements experimental.LinearMemory. Unmapping tens of MiB of
// touched pages takes milliseconds, and wazero frees before it returns the
// job's exit, so it happens off the job's path.
func (m *mmapMemory) Free() {
	m.once.Do(func() {
		m.owner.mu.Lock()
		delete(m.owner.live, m)
		buf := m.buf
		m.buf = nil
		learn := m.owner.learning
		m.owner.learning = false
		m.owner.mu.Unlock()
		if learn {
			m.owner.learnFrom(buf)
		}
		go func() { _ = unix.Munmap(buf) }()
	})
}

// learnHot implements memoryAllocator.
func (a *mmapAllocator) learnHot() {
	a.mu.Lock()
	a.learning = a.image != nil
	a.mu.Unlock()
}

// learnFrom keeps the pages of the image that buf, a memory about to be
// unmapped, has made its own.
func (a *mmapAllocator) learnFrom(buf []byte) {
	page := os.Getpagesize()
	pages := a.imageLen / page
	entries := make([]byte, 8*pages)
	pagemap, err := os.Open("/proc/self/pagemap")
	if err != nil {
		return
	}
	defer pagemap.Close()
	if _, err := pagemap.ReadAt(entries, int64(uintptr(unsafe.Pointer(&buf[0]))/uintptr(page)*8)); err != nil {
		return
	}
	var hot []int
	for i := range pages {
		const present, filePage = 1 << 63, 1 << 61
		if e := binary.LittleEndian.Uint64(entries[8*i:]); e&present != 0 && e&filePage == 0 {
			hot = append(hot, i)
		}
	}
	a.mu.Lock()
	a.hot = hot
	a.mu.Unlock()
}

// prefault implements memoryAllocator with MADV_POPULATE_WRITE (Linux
// 5.14), which copies the pages as a write would, over runs of hot pages.
func (a *mmapAllocator) prefault(mem []byte) {
	a.mu.Lock()
	hot := a.hot
	a.mu.Unlock()
	page := os.Getpagesize()
	for i := 0; i < len(hot); {
		j := i + 1
		for j < len(hot) && hot[j] == hot[j-1]+1 {
			j++
		}
		from, to := hot[i]*page, (hot[j-1]+1)*page
		if to > len(mem) {
			break
		}
		if unix.Madvise(mem[from:to], unix.MADV_POPULATE_WRITE) != nil {
			return // an older kernel: the job faults them in itself
		}
		i = j
	}
}
