package sandbox

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	_ "embed"

	"github.com/klauspost/compress/zstd"
)

// buildName names the build python/ holds: CPython from Debian's source
// package, compiled here by python/refresh.sh.
const buildName = "cpython-wasi (debian python3.11 source)"

const (
	// maxWasmBytes bounds the decompressed build (5 MiB today).
	maxWasmBytes = 128 << 20
	// maxStdlibBytes bounds the unzipped standard library (7 MiB today).
	maxStdlibBytes = 64 << 20
	// maxStdlibFiles bounds its file count (460 today).
	maxStdlibFiles = 10000
	// maxMemoryImage bounds the initial memory image rebuilt from the data
	// segments (under 1 MiB today).
	maxMemoryImage = 256 << 20
	// stdlibZip is the build's standard library (python/stdlib.py makes
	// it); stdlibHome is where the guest finds it, stdlibLib its
	// directory there (PYTHONHOME's lib/pythonX.Y).
	stdlibZip  = "stdlib.zip"
	stdlibHome = "/python"
	stdlibLib  = "lib/python3.11"
	stdlibDir  = stdlibHome + "/" + stdlibLib
)

var (
	//go:embed python/python.wasm.zst
	wasmZst []byte
	//go:embed python/stdlib.zip
	stdlibZipBytes []byte
	//go:embed python/SHA256
	wasmSHA256 string
	//go:embed python/VERSION
	wasmVersion string
)

// build is the interpreter as loaded from the embedded files.
type build struct {
	wasm    []byte
	image   []byte              // the initial linear memory, from the data segments
	stdlib  map[string]*memNode // path under stdlibHome -> file
	version string
	sha256  string
}

// loadBuild decompresses the embedded python.wasm, checks it and the
// standard library zip against python/SHA256 and indexes the zip.
func loadBuild() (build, error) {
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxMemory(maxWasmBytes), zstd.WithDecoderMaxWindow(maxWasmBytes))
	if err != nil {
		return build{}, fmt.Errorf("open embedded python.wasm.zst: %w", err)
	}
	defer dec.Close()
	// One shot into a buffer of the expected size: no growing copies.
	wasm, err := dec.DecodeAll(wasmZst, make([]byte, 0, 27<<20))
	if err != nil {
		return build{}, fmt.Errorf("decompress embedded python.wasm.zst: %w", err)
	}
	sums := parseSums(wasmSHA256)
	want := sums["python.wasm"]
	if err := checkSum("python.wasm", wasm, want); err != nil {
		return build{}, err
	}
	if err := checkSum(stdlibZip, stdlibZipBytes, sums[stdlibZip]); err != nil {
		return build{}, err
	}
	image, err := memoryImage(wasm)
	if err != nil {
		return build{}, fmt.Errorf("read python.wasm data segments: %w", err)
	}
	stdlib, err := stdlibFS(stdlibZipBytes)
	if err != nil {
		return build{}, fmt.Errorf("index the standard library: %w", err)
	}
	return build{wasm: wasm, image: image, stdlib: stdlib, version: strings.TrimSpace(wasmVersion), sha256: want}, nil
}

// parseSums reads a sha256sum(1) listing: file name -> hex digest.
func parseSums(list string) map[string]string {
	sums := map[string]string{}
	for _, line := range strings.Split(list, "\n") {
		if sum, name, ok := strings.Cut(strings.TrimSpace(line), "  "); ok {
			sums[strings.TrimPrefix(name, "*")] = sum
		}
	}
	return sums
}

// checkSum checks an embedded file against the digest its SHA256 file
// lists, so a build that refresh.sh did not write is refused at load.
func checkSum(name string, data []byte, want string) error {
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != want {
		if want == "" {
			want = "nothing"
		}
		return fmt.Errorf("embedded %s has sha256 %s, its SHA256 file says %s (run its refresh.sh)", name, got, want)
	}
	return nil
}

var errMalformedWasm = errors.New("malformed wasm module")

// memoryImage rebuilds the initial linear memory from the module's active
// data segments. The build's standard library zip lives there, split into
// several segments wherever it has long runs of zeros, so it cannot be cut
// out of the file directly.
func memoryImage(wasm []byte) ([]byte, error) {
	if len(wasm) < 8 || !bytes.Equal(wasm[:8], []byte("\x00asm\x01\x00\x00\x00")) {
		return nil, fmt.Errorf("%w: bad header", errMalformedWasm)
	}
	r := &wasmReader{b: wasm[8:]}
	for len(r.b) > 0 {
		id := r.byte()
		size := r.u32()
		body := r.bytes(size)
		if r.err != nil {
			return nil, r.err
		}
		if id == 11 { // data section
			return dataImage(&wasmReader{b: body})
		}
	}
	return nil, fmt.Errorf("%w: no data section", errMalformedWasm)
}

// stripData returns wasm without its data section, for an allocator that
// starts every memory with memoryImage(wasm) instead. It refuses a module
// whose data is not all of that image: passive segments (which code may
// copy in later), a data count section, an imported memory.
func stripData(wasm []byte) ([]byte, error) {
	if len(wasm) < 8 || !bytes.Equal(wasm[:8], []byte("\x00asm\x01\x00\x00\x00")) {
		return nil, fmt.Errorf("%w: bad header", errMalformedWasm)
	}
	out := append(make([]byte, 0, len(wasm)), wasm[:8]...)
	r := &wasmReader{b: wasm[8:]}
	ownMemory := false
	for len(r.b) > 0 {
		start := len(wasm) - len(r.b)
		id := r.byte()
		body := r.bytes(r.u32())
		if r.err != nil {
			return nil, r.err
		}
		switch id {
		case 12:
			return nil, fmt.Errorf("%w: a data count section (passive data)", errMalformedWasm)
		case sectionImport:
			if importsMemory(body) {
				return nil, fmt.Errorf("%w: the memory is imported", errMalformedWasm)
			}
		case 5:
			ownMemory = true
		case 11:
			if hasPassiveData(body) {
				return nil, fmt.Errorf("%w: passive or foreign data segments", errMalformedWasm)
			}
			continue
		}
		out = append(out, wasm[start:len(wasm)-len(r.b)]...)
	}
	if !ownMemory {
		return nil, fmt.Errorf("%w: no memory section", errMalformedWasm)
	}
	return out, nil
}

func importsMemory(body []byte) bool {
	r := &wasmReader{b: body}
	for n := r.u32(); n > 0 && r.err == nil; n-- {
		r.bytes(r.u32())
		r.bytes(r.u32())
		switch r.byte() {
		case externFunc:
			r.u32()
		case externTable:
			r.byte()
			readLimits(r)
		case externMemory:
			return true
		case externGlobal:
			r.byte()
			r.byte()
		default:
			return true // unknown: assume the worst
		}
	}
	return r.err != nil
}

// hasPassiveData reports whether a data section has a segment that is not
// active in memory 0 with a constant offset (or cannot be read).
func hasPassiveData(body []byte) bool {
	r := &wasmReader{b: body}
	for n := r.u32(); n > 0 && r.err == nil; n-- {
		if flags := r.u32(); flags != 0 {
			return true
		}
		if r.byte() != opI32Const {
			return true
		}
		r.s32()
		if r.byte() != opEnd {
			return true
		}
		r.bytes(r.u32())
	}
	return r.err != nil || len(r.b) != 0
}

type segment struct {
	offset uint32
	data   []byte
}

// dataImage lays the active segments of a data section body into one slice.
func dataImage(r *wasmReader) ([]byte, error) {
	n := r.u32()
	var segs []segment
	end := uint64(0)
	for i := uint32(0); i < n && r.err == nil; i++ {
		flags := r.u32()
		if flags == 2 {
			_ = r.u32() // memory index
		}
		var off uint32
		if flags != 1 { // 1 is passive: not part of the initial image
			if r.byte() != 0x41 { // i32.const
				return nil, fmt.Errorf("%w: data segment %d: offset is not a constant", errMalformedWasm, i)
			}
			off = uint32(r.s32())
			if r.byte() != 0x0b { // end
				return nil, fmt.Errorf("%w: data segment %d: offset expression not ended", errMalformedWasm, i)
			}
		}
		data := r.bytes(r.u32())
		if flags > 2 {
			return nil, fmt.Errorf("%w: data segment %d: flags %d", errMalformedWasm, i, flags)
		}
		if flags == 1 || r.err != nil {
			continue
		}
		segs = append(segs, segment{off, data})
		end = max(end, uint64(off)+uint64(len(data)))
		if end > maxMemoryImage {
			return nil, fmt.Errorf("%w: data segments reach past %d bytes", errMalformedWasm, maxMemoryImage)
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	image := make([]byte, end)
	for _, s := range segs {
		copy(image[s.offset:], s.data)
	}
	return image, nil
}

// wasmReader decodes the LEB128 integers and byte vectors of a wasm module.
// The first error sticks; later reads return zero values.
type wasmReader struct {
	b   []byte
	err error
}

func (r *wasmReader) fail() {
	if r.err == nil {
		r.err = fmt.Errorf("%w: truncated", errMalformedWasm)
	}
	r.b = nil
}

func (r *wasmReader) byte() byte {
	if len(r.b) == 0 {
		r.fail()
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *wasmReader) u32() uint32 {
	var v uint64
	for shift := 0; shift < 35; shift += 7 {
		c := r.byte()
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			if v > 0xffffffff {
				break
			}
			return uint32(v)
		}
	}
	r.fail()
	return 0
}

func (r *wasmReader) s32() int32 {
	var v int64
	for shift := 0; shift < 35; shift += 7 {
		c := r.byte()
		v |= int64(c&0x7f) << shift
		if c < 0x80 {
			if c&0x40 != 0 && shift+7 < 64 {
				v |= -1 << (shift + 7)
			}
			return int32(v)
		}
	}
	r.fail()
	return 0
}

func (r *wasmReader) bytes(n uint32) []byte {
	if uint64(n) > uint64(len(r.b)) {
		r.fail()
		return nil
	}
	b := r.b[:n]
	r.b = r.b[n:]
	return b
}

// stdlibFS indexes the standard library zip by path under stdlibHome
// (newMemFS makes the tree). Files are inflated on first open: a job
// imports a handful of the 460, and New stays fast.
func stdlibFS(zipped []byte) (map[string]*memNode, error) {
	zr, err := zip.NewReader(bytes.NewReader(zipped), int64(len(zipped)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", stdlibZip, err)
	}
	if len(zr.File) > maxStdlibFiles {
		return nil, fmt.Errorf("%s has %d files, limit %d", stdlibZip, len(zr.File), maxStdlibFiles)
	}
	files := make(map[string]*memNode, len(zr.File))
	total := uint64(0)
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, "/") {
			continue
		}
		name := path.Join(stdlibLib, f.Name)
		if !fs.ValidPath(name) {
			return nil, fmt.Errorf("%s: bad file name %q", stdlibZip, f.Name)
		}
		total += f.UncompressedSize64
		if total > maxStdlibBytes {
			return nil, fmt.Errorf("%s: standard library exceeds %d bytes", stdlibZip, maxStdlibBytes)
		}
		files[name] = &memNode{size: int64(f.UncompressedSize64), load: func() ([]byte, error) { return readZipFile(f) }}
	}
	return files, nil
}

// readZipFile inflates f, which must hold the size its header declares.
func readZipFile(f *zip.File) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%s: open %s: %w", stdlibZip, f.Name, err)
	}
	defer rc.Close()
	data := make([]byte, f.UncompressedSize64)
	if _, err := io.ReadFull(rc, data); err != nil {
		return nil, fmt.Errorf("%s: read %s: %w", stdlibZip, f.Name, err)
	}
	if n, _ := rc.Read(make([]byte, 1)); n > 0 {
		return nil, fmt.Errorf("%s: %s is longer than its header says", stdlibZip, f.Name)
	}
	return data, nil
}

// memNode is a file of a memFS: its contents, or how to get them once.
type memNode struct {
	size int64
	once sync.Once
	load func() ([]byte, error) // nil once loaded, or for eager files
	data []byte
	err  error
}

// eagerNode is a memNode with its contents at hand.
func eagerNode(data []byte) *memNode { return &memNode{size: int64(len(data)), data: data} }

func (n *memNode) bytes() ([]byte, error) {
	n.once.Do(func() {
		if n.load != nil {
			n.data, n.err = n.load()
			n.load = nil
		}
	})
	return n.data, n.err
}

// memFS is a read-only in-memory file tree. Unlike archive/zip's fs.FS its
// files can Seek and ReadAt, which CPython's FileIO asks the host for.
type memFS struct {
	files map[string]*memNode
	dirs  map[string][]fs.DirEntry
}

func newMemFS(files map[string]*memNode) *memFS {
	m := &memFS{files: files, dirs: map[string][]fs.DirEntry{".": nil}}
	for name, node := range files {
		child := memInfo{name: path.Base(name), size: node.size}
		for dir := path.Dir(name); ; dir = path.Dir(dir) {
			_, seen := m.dirs[dir]
			m.dirs[dir] = append(m.dirs[dir], child)
			if seen || dir == "." {
				break
			}
			child = memInfo{name: path.Base(dir), dir: true}
		}
	}
	for _, entries := range m.dirs {
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	}
	return m
}

// Open implements fs.FS.
func (m *memFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if node, ok := m.files[name]; ok {
		data, err := node.bytes()
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		return &memFile{Reader: bytes.NewReader(data), info: memInfo{name: path.Base(name), size: node.size}}, nil
	}
	if entries, ok := m.dirs[name]; ok {
		return &memDir{info: memInfo{name: path.Base(name), dir: true}, entries: entries}, nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

var _ fs.FS = (*memFS)(nil)

// memInfo is both the fs.FileInfo and the fs.DirEntry of a memFS node.
type memInfo struct {
	name string
	size int64
	dir  bool
}

func (i memInfo) Name() string { return i.name }
func (i memInfo) Size() int64  { return i.size }
func (i memInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (i memInfo) ModTime() time.Time         { return time.Time{} }
func (i memInfo) IsDir() bool                { return i.dir }
func (i memInfo) Sys() any                   { return nil }
func (i memInfo) Type() fs.FileMode          { return i.Mode().Type() }
func (i memInfo) Info() (fs.FileInfo, error) { return i, nil }

type memFile struct {
	*bytes.Reader
	info memInfo
}

func (f *memFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *memFile) Close() error               { return nil }

type memDir struct {
	info    memInfo
	entries []fs.DirEntry
	pos     int
}

func (d *memDir) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *memDir) Close() error               { return nil }
func (d *memDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.info.name, Err: errors.New("is a directory")}
}

// ReadDir implements fs.ReadDirFile.
func (d *memDir) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.entries[d.pos:]
	if n <= 0 {
		d.pos = len(d.entries)
		return rest, nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	rest = rest[:min(n, len(rest))]
	d.pos += len(rest)
	return rest, nil
}
