package storage

import (
	"encoding/binary"
	"os"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// FIEMAP (linux/fiemap.h): the extents of a file, and whether each is
// written or only allocated (fallocate's unwritten extents, whose first
// write is a metadata change the file system journals).
const (
	fsIocFiemap         = 0xC020660B // _IOWR('f', 11, struct fiemap)
	fiemapFlagSync      = 0x1
	fiemapExtentLast    = 0x1
	fiemapExtentUnwrite = 0x800
	fiemapHeader        = 32
	fiemapExtent        = 56
	fiemapBatch         = 64
)

// writtenAhead reports whether every byte of path lies in a written
// extent: no hole, no unwritten extent. It fails the test when the file
// system cannot report extents (the test needs ext4, xfs or btrfs, as
// the CI's temporary directory is).
func writtenAhead(t *testing.T, path string) bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	var covered, start uint64
	for {
		buf := make([]byte, fiemapHeader+fiemapBatch*fiemapExtent)
		binary.NativeEndian.PutUint64(buf[0:], start)
		binary.NativeEndian.PutUint64(buf[8:], ^uint64(0)-start)
		binary.NativeEndian.PutUint32(buf[16:], fiemapFlagSync)
		binary.NativeEndian.PutUint32(buf[24:], fiemapBatch)
		_, _, errno := unix.Syscall(unix.SYS_IOCTL, f.Fd(), fsIocFiemap, uintptr(unsafe.Pointer(&buf[0])))
		if errno != 0 {
			t.Fatalf("FIEMAP on %s: %v (this test needs a file system that reports extents)", path, errno)
		}
		mapped := binary.NativeEndian.Uint32(buf[20:])
		if mapped == 0 {
			break
		}
		var last bool
		for i := range mapped {
			e := buf[fiemapHeader+int(i)*fiemapExtent:]
			logical, length := binary.NativeEndian.Uint64(e[0:]), binary.NativeEndian.Uint64(e[16:])
			flags := binary.NativeEndian.Uint32(e[40:])
			if logical != covered || flags&fiemapExtentUnwrite != 0 {
				return false // a hole before this extent, or an unwritten one
			}
			covered = logical + length
			start = covered
			last = flags&fiemapExtentLast != 0
		}
		if last {
			break
		}
	}
	return covered >= uint64(fi.Size())
}
