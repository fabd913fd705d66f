package market

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ErrNoProgram is returned by ResolveExec when an exec handler's program
// cannot be found or run.
var ErrNoProgram = errors.New("program not found")

// ResolveExec checks that the program of an exec (or mcp) handler exists and can be
// run, and makes the handler independent of where the daemon starts: the
// program becomes an absolute path (looked up in PATH when its name has no
// '/', else taken relative to dir) and the handler runs in dir, so relative
// file names among its arguments ("python3 workers/x.py") mean what they
// meant where the listing was added. dir must be absolute; empty means this
// process's working directory. Other kinds of handlers are returned as they
// are.
func ResolveExec(h HandlerConfig, dir string) (HandlerConfig, error) {
	if (h.Kind != HandlerExec && h.Kind != HandlerMCP) || len(h.Command) == 0 {
		return h, nil
	}
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return h, fmt.Errorf("exec handler: working directory: %w", err)
		}
		dir = wd
	}
	if !filepath.IsAbs(dir) {
		return h, fmt.Errorf("exec handler: directory %q is not absolute", dir)
	}
	prog := h.Command[0]
	var path string
	switch {
	case !strings.Contains(prog, "/"):
		p, err := exec.LookPath(prog)
		if err != nil {
			return h, fmt.Errorf("exec handler: %w: %q is not in PATH (give its path, as exec:/usr/local/bin/%s)", ErrNoProgram, prog, prog)
		}
		path = p
	case filepath.IsAbs(prog):
		path = prog
	default:
		path = filepath.Join(dir, prog)
	}
	if !filepath.IsAbs(path) {
		// LookPath found it through a relative PATH entry.
		abs, err := filepath.Abs(path)
		if err != nil {
			return h, fmt.Errorf("exec handler: %s: %w", path, err)
		}
		path = abs
	}
	if err := checkExecutable(path); err != nil {
		return h, fmt.Errorf("exec handler: %w: %s", ErrNoProgram, err)
	}
	if err := checkScriptArgs(h.Command[1:], dir); err != nil {
		return h, fmt.Errorf("exec handler: %w: %s", ErrNoProgram, err)
	}
	out := h
	out.Command = append([]string{path}, h.Command[1:]...)
	out.Dir = dir
	return out, nil
}

// checkExecutable reports why path is not a program this process could
// start.
func checkExecutable(path string) error {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s does not exist", path)
	}
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	if fi.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("%s is not executable (chmod +x it, or run it through its interpreter, as exec:python3 %s)", path, path)
	}
	return nil
}

// quoteCommand writes argv as one command line that SplitCommand splits
// back into the same argv: words that need it are single-quoted.
func quoteCommand(argv []string) string {
	words := make([]string, len(argv))
	for i, a := range argv {
		words[i] = quoteWord(a)
	}
	return strings.Join(words, " ")
}

func quoteWord(s string) string {
	if s == "" {
		return "''"
	}
	if !strings.ContainsAny(s, " \t\n'\"\\") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// isScriptExt reports whether ext is the extension of files an
// interpreter runs: an argument ending in one names a file ('exec:python3
// handler.py').
func isScriptExt(ext string) bool {
	switch strings.ToLower(ext) {
	case ".py", ".js", ".mjs", ".cjs", ".ts", ".sh", ".bash", ".rb", ".pl", ".php", ".lua", ".r", ".jl", ".wasm", ".jar":
		return true
	}
	return false
}

// checkScriptArgs reports an argument that names a file (a script, or a
// path starting with ./ or ../) that does not exist in dir: checking only
// the interpreter would accept 'exec:python3 nothere.py', whose every job
// then fails.
func checkScriptArgs(args []string, dir string) error {
	for _, a := range args {
		if a == "" || strings.HasPrefix(a, "-") || strings.ContainsAny(a, " \t\n=;|&$'\"`*?<>") {
			continue
		}
		if !isScriptExt(filepath.Ext(a)) && !strings.HasPrefix(a, "./") && !strings.HasPrefix(a, "../") {
			continue
		}
		p := a
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s (argument %q) does not exist", p, a)
		}
	}
	return nil
}
