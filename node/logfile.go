package node

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/swarmwage/swarmwage/internal/atomicfile"
)

// logFileName is the file in a repo that names the log file of the daemon
// that runs (or last ran) on it with 'daemon --log-file', so 'swarmwage
// logs' finds it. A daemon started without --log-file removes it: it logs
// to its stderr.
const logFileName = "log-file"

// ErrNoLogFile is returned by LogFile when the repo's daemon was not
// started with a log file.
var ErrNoLogFile = errors.New("no log file: the daemon logs to its stderr unless started with 'swarmwage daemon --log-file PATH'")

// OpenLogFile opens path for a daemon's log: appended to, created with
// mode 0600 (a log names peers, jobs and a handler's stderr), its
// directory created if missing. The caller closes the file, and records it
// with SetLogFile once it holds the repo.
func OpenLogFile(path string) (*os.File, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("log file %q: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("log file: %w", err)
	}
	f, err := os.OpenFile(abs, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("log file: %w", err)
	}
	return f, nil
}

// SetLogFile records in the repo at dir that its daemon logs to path (an
// absolute path; "": to its stderr), for LogFile.
func SetLogFile(dir, path string) error {
	if path == "" {
		if err := os.Remove(filepath.Join(dir, logFileName)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("forget the log file: %w", err)
		}
		return nil
	}
	if err := atomicfile.Write(filepath.Join(dir, logFileName), []byte(path+"\n"), 0o600); err != nil {
		return fmt.Errorf("record the log file: %w", err)
	}
	return nil
}

// LogFile is the log file of the daemon of the repo at dir (OpenLogFile),
// or ErrNoLogFile.
func LogFile(dir string) (string, error) {
	raw, err := readSmall(filepath.Join(dir, logFileName))
	if errors.Is(err, os.ErrNotExist) || (err == nil && strings.TrimSpace(raw) == "") {
		if _, serr := os.Stat(filepath.Join(dir, keyFile)); serr != nil {
			return "", NoRepoError{Path: dir}
		}
		return "", ErrNoLogFile
	}
	if err != nil {
		return "", fmt.Errorf("read %s: %w", logFileName, err)
	}
	return strings.TrimSpace(raw), nil
}
