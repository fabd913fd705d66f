// Package gobuild builds this module's swarmwage binary for the tests that
// drive it as a process (faults, nattest), in a way go test's cache can see.
//
// go test caches a package's result by what the test binary imports and by
// the files and environment the tests themselves read. A binary built by a
// `go build` subprocess is neither, so without more a change to the node
// left such a test "(cached)": passing, and never run on the change.
// Binary.Path therefore reads the metadata (os.Stat, which go test records
// while tests run, not in TestMain before m.Run) of every file of the
// module, and a cached result is reused only while none of them changed.
package gobuild

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

// skipDirs are folders whose files the binary is not built from.
var skipDirs = map[string]bool{".git": true, "node_modules": true, "artifacts": true}

// Binary is a binary built from the module's sources.
type Binary struct {
	path, root string
	once       sync.Once
}

// Build builds the package pkg (such as "./cmd/swarmwage") of the module
// rooted at root into out, with the build tags tags.
func Build(root, pkg, out string, tags ...string) (*Binary, error) {
	args := []string{"build"}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	args = append(args, "-o", out, pkg)
	cmd := exec.Command(goCommand(), args...)
	cmd.Dir = root
	if msg, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, strings.TrimSpace(string(msg)))
	}
	return &Binary{path: out, root: root}, nil
}

// Path is the binary's path. The first call in a process reads the
// metadata of the sources it was built from, so that go test's cache
// knows them: call it from tests, which go test records, not TestMain.
func (b *Binary) Path() string {
	b.once.Do(func() {
		// A source that cannot be read fails the build, not this.
		_ = statSources(b.root)
	})
	return b.path
}

// statSources stats every regular file under root but skipDirs.
func statSources(root string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && skipDirs[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			_, err = os.Stat(path)
		}
		return err
	})
}

// goCommand is the go command of the toolchain running the test, which
// builds with the same Go.
func goCommand() string {
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err == nil {
		return goBin
	}
	return "go"
}
