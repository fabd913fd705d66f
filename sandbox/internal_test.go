package sandbox

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"testing/synctest"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// The host must never hold more than the cap, however the guest writes.
func TestCappedBufferNeverGrowsPastLimit(t *testing.T) {
	testCases := []struct {
		name   string
		limit  int
		writes []int
	}{
		{name: "one huge write", limit: 1000, writes: []int{1 << 20}},
		{name: "many small writes", limit: 1000, writes: repeat(7, 500)},
		{name: "exact fill", limit: 1000, writes: []int{600, 400, 1}},
		{name: "large cap, growing", limit: 100 << 10, writes: repeat(3000, 100)},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			b := newCappedBuffer(tc.limit)
			total := 0
			for _, n := range tc.writes {
				got, err := b.Write(bytes.Repeat([]byte("x"), n))
				require.NoError(t, err)
				require.Equal(t, n, got, "writes report success so the guest keeps running")
				total += n
				require.LessOrEqual(t, cap(b.buf), tc.limit)
			}
			require.Len(t, b.String(), min(total, tc.limit))
			require.Equal(t, total > tc.limit, b.truncated)
		})
	}
}

func TestCappedBufferCutKeepsUTF8Valid(t *testing.T) {
	for limit := 1; limit <= 12; limit++ {
		b := newCappedBuffer(limit)
		_, _ = b.Write([]byte("a✓b€c😀d"))
		s := b.String()
		require.True(t, utf8.ValidString(s), "limit %d: %q", limit, s)
		require.True(t, strings.HasPrefix("a✓b€c😀d", s))
		require.GreaterOrEqual(t, len(s), limit-3)
	}
	// Invalid bytes the guest wrote itself are not the cut's business.
	b := newCappedBuffer(10)
	_, _ = b.Write([]byte{0xff, 'a'})
	require.Equal(t, "\xffa", b.String())
}

func TestJobClockStartsAtZeroWhenJobBegins(t *testing.T) {
	// In a synctest bubble time moves only when every goroutine waits, so
	// the readings are exact.
	synctest.Test(t, func(t *testing.T) {
		c := newJobClock()
		time.Sleep(time.Hour)
		require.Zero(t, c.nanotime(), "frozen while the interpreter waits")
		c.begin()
		require.Zero(t, c.nanotime(), "the job's clock starts at zero")
		time.Sleep(5 * time.Millisecond)
		require.Equal(t, int64(5*time.Millisecond), c.nanotime())
	})
}

func TestJobReaderServesPayloadThenEOF(t *testing.T) {
	gone := make(chan struct{})
	r := newJobReader(gone)
	go r.feed(jobPayload(Request{Code: "print(1)", Stdin: "in"}))
	// The interactive loop's read is 1 KiB (C stdio): it gets the line only.
	line := make([]byte, 1024)
	n, err := r.Read(line)
	require.NoError(t, err)
	require.Equal(t, jobLine, string(line[:n]))
	select {
	case <-r.waiting:
	default:
		t.Fatal("first Read did not signal readiness")
	}
	got, err := io.ReadAll(r)
	require.NoError(t, err)
	require.Equal(t, uint64(8), binary.LittleEndian.Uint64(got[:8]))
	require.Equal(t, "print(1)in", string(got[8:]))

	r = newJobReader(gone)
	go r.feed(jobPayload(Request{Language: LanguageJavaScript, Code: "1", Stdin: "in"}))
	got, err = io.ReadAll(r)
	require.NoError(t, err)
	require.Equal(t, "\x01\x00\x00\x00\x00\x00\x00\x001in", string(got), "QuickJS reads no line")

	r = newJobReader(gone)
	close(gone)
	n, err = r.Read(make([]byte, 8))
	require.Zero(t, n)
	require.ErrorIs(t, err, io.EOF, "a discarded interpreter reads EOF")
}

func TestStdlibFromBuild(t *testing.T) {
	b, err := loadBuild()
	require.NoError(t, err)
	require.NoError(t, fstest.TestFS(newMemFS(b.stdlib), stdlibLib+"/os.pyc", stdlibLib+"/encodings/utf_8.pyc", stdlibLib+"/json/__init__.pyc"))
}

func TestMemFS(t *testing.T) {
	m := newMemFS(map[string]*memNode{"a/b/c.txt": eagerNode([]byte("c")), "a/d.txt": eagerNode([]byte("dd")), "e": eagerNode(nil)})
	require.NoError(t, fstest.TestFS(m, "a/b/c.txt", "a/d.txt", "e"))
	_, err := m.Open("../x")
	require.Error(t, err)
}

func TestMemoryImage(t *testing.T) {
	// A module with a data section: an active segment at 4 and one at 10,
	// and a passive one that is not part of the image.
	mod := []byte("\x00asm\x01\x00\x00\x00")
	data := []byte{3,
		0, 0x41, 4, 0x0b, 2, 'a', 'b',
		1, 3, 'x', 'y', 'z',
		0, 0x41, 10, 0x0b, 1, 'c',
	}
	mod = append(mod, 1, 0) // empty type section
	mod = append(mod, 11, byte(len(data)))
	mod = append(mod, data...)
	img, err := memoryImage(mod)
	require.NoError(t, err)
	require.Equal(t, []byte{0, 0, 0, 0, 'a', 'b', 0, 0, 0, 0, 'c'}, img)

	for _, bad := range [][]byte{nil, []byte("\x00asm\x02\x00\x00\x00"), mod[:len(mod)-1], []byte("\x00asm\x01\x00\x00\x00")} {
		_, err := memoryImage(bad)
		require.ErrorIs(t, err, errMalformedWasm)
	}
}

func FuzzMemoryImageNoPanic(f *testing.F) {
	f.Add([]byte("\x00asm\x01\x00\x00\x00\x0b\x07\x01\x00\x41\x04\x0b\x01a"))
	f.Add([]byte("\x00asm\x01\x00\x00\x00\x0b\x05\x01\x00\x41\x7f\x0b"))
	f.Fuzz(func(t *testing.T, b []byte) {
		img, err := memoryImage(b)
		if err == nil {
			require.LessOrEqual(t, len(img), maxMemoryImage)
		}
	})
}

func FuzzStdlibFSNoPanic(f *testing.F) {
	f.Add(stdlibZipBytes[len(stdlibZipBytes)-22:])
	f.Add([]byte("PK\x05\x06"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if files, err := stdlibFS(b); err == nil {
			for _, n := range files {
				_, _ = n.bytes()
			}
		}
	})
}

func repeat(n, times int) []int {
	out := make([]int, times)
	for i := range out {
		out[i] = n
	}
	return out
}

func TestMedian(t *testing.T) {
	require.Nil(t, median(nil))
	require.Equal(t, 2.0, *median([]float64{3, 1, 2}))
	require.Equal(t, 2.5, *median([]float64{4, 1, 2, 3}))
}

func TestStripData(t *testing.T) {
	head := []byte("\x00asm\x01\x00\x00\x00")
	memory := []byte{5, 3, 1, 0, 1}
	data := func(segs ...byte) []byte { return append([]byte{11, byte(len(segs))}, segs...) }
	active := data(1, 0, 0x41, 4, 0x0b, 2, 'a', 'b')
	cat := func(parts ...[]byte) []byte { return bytes.Join(append([][]byte{head}, parts...), nil) }

	out, err := stripData(cat(memory, active))
	require.NoError(t, err)
	require.Equal(t, cat(memory), out)

	_, err = stripData(cat([]byte{2, 10, 1, 1, 'm', 3, 'm', 'e', 'm', 2, 0, 1}, memory, active))
	require.ErrorContains(t, err, "imported")
	for name, bad := range map[string][]byte{
		"passive segment":   cat(memory, data(1, 1, 1, 'x')),
		"data count":        cat(memory, []byte{12, 1, 1}, active),
		"no memory":         cat(active),
		"imported memory":   cat([]byte{2, 10, 1, 1, 'm', 3, 'm', 'e', 'm', 2, 0, 1}, memory, active),
		"truncated":         cat(memory, active[:len(active)-1]),
		"non-constant base": cat(memory, data(1, 0, 0x23, 0, 0x0b, 1, 'a')),
	} {
		_, err := stripData(bad)
		require.ErrorIs(t, err, errMalformedWasm, name)
	}
}

func TestResolvePython3(t *testing.T) {
	dir := t.TempDir()
	shim := filepath.Join(dir, "python3")
	require.NoError(t, os.WriteFile(shim, []byte("#!/bin/sh\necho /opt/py/bin/python3.11\necho 3.11.7\n"), 0o755))
	exe, version, err := resolvePython3(t.Context(), shim)
	require.NoError(t, err)
	require.Equal(t, "/opt/py/bin/python3.11", exe)
	require.Equal(t, "3.11.7", version)

	broken := filepath.Join(dir, "broken")
	require.NoError(t, os.WriteFile(broken, []byte("#!/bin/sh\nexit 3\n"), 0o755))
	_, _, err = resolvePython3(t.Context(), broken)
	require.Error(t, err)

	silent := filepath.Join(dir, "silent")
	require.NoError(t, os.WriteFile(silent, []byte("#!/bin/sh\necho\n"), 0o755))
	_, _, err = resolvePython3(t.Context(), silent)
	require.ErrorContains(t, err, "sys.executable is empty")
}
