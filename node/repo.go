package node

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/internal/atomicfile"
)

// Files and folders of a repo.
const (
	keyFile    = "identity.key"
	configFile = "config.toml"
	dataDir    = "data"
	lockFile   = "repo.lock"
	cacheDir   = "cache"

	// maxAPIFileSize caps the api and api.token files; a larger one is an
	// error, not something to read whole.
	maxAPIFileSize = 2048
)

var (
	// ErrRepoExists is returned by Init when the directory already holds a repo.
	ErrRepoExists = errors.New("repo already exists")
	// ErrRepoLocked is returned when another process holds the repo.
	ErrRepoLocked = errors.New("repo is in use by another swarmwage process")
)

// NoRepoError is returned when a directory holds no swarmwage repo.
type NoRepoError struct{ Path string }

var _ error = NoRepoError{}

func (e NoRepoError) Error() string {
	return fmt.Sprintf("no swarmwage repo at %s; run 'swarmwage init' (or 'swarmwage --repo DIR init') to create one", e.Path)
}

// Repo is an opened repo directory: its config and identity. Opening does
// not take the lock; Lock does.
type Repo struct {
	Dir    string
	Config Config
	Key    crypto.PrivKey
	ID     peer.ID

	lock *os.File
	// lockWaited, when set, is called each time lockWaiting finds the
	// lock held and waits: tests synchronise on it.
	lockWaited func()
}

// Init creates a repo at dir for network: an Ed25519 identity (0600), the
// config file and the data directory. It never touches an existing repo:
// one whose identity is missing or corrupt gets the *IdentityError that
// says how to recover it with its data.
func Init(dir string, cfg Config) (*Repo, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if hasRepoFiles(dir) {
		r, err := Open(dir)
		if err != nil {
			return nil, err // says what is wrong and how to recover, keeping data/
		}
		return nil, fmt.Errorf("%w at %s (peer ID %s): it is ready to use as it is; choose another --repo for a second node", ErrRepoExists, dir, r.ID)
	}
	if err := os.MkdirAll(filepath.Join(dir, dataDir), 0o700); err != nil {
		return nil, fmt.Errorf("create repo %s: %w", dir, err)
	}
	key, err := newIdentityKey()
	if err != nil {
		return nil, err
	}
	if err := writeKey(dir, key); err != nil {
		return nil, err
	}
	if err := cfg.write(filepath.Join(dir, configFile)); err != nil {
		return nil, err
	}
	return Open(dir)
}

// hasRepoFiles reports whether dir holds any part of a repo: an identity,
// a config or a database.
func hasRepoFiles(dir string) bool {
	if exists(filepath.Join(dir, keyFile)) || exists(filepath.Join(dir, configFile)) {
		return true
	}
	entries, err := os.ReadDir(filepath.Join(dir, dataDir))
	return err == nil && len(entries) > 0
}

// Open opens the repo at dir. A missing or unreadable identity.key in a
// repo that has a config or data is an *IdentityError.
func Open(dir string) (*Repo, error) {
	path := filepath.Join(dir, keyFile)
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if !hasRepoFiles(dir) {
			return nil, NoRepoError{Path: dir}
		}
		return nil, &IdentityError{Repo: dir, Problem: "is missing"}
	}
	if err != nil {
		return nil, fmt.Errorf("read identity %s: %w", path, err)
	}
	key, id, err := parseKey(raw)
	if err != nil {
		return nil, &IdentityError{Repo: dir, Problem: "is corrupt (" + err.Error() + ")"}
	}
	cfg, err := loadConfig(filepath.Join(dir, configFile))
	if err != nil {
		return nil, err
	}
	return &Repo{Dir: dir, Config: cfg, Key: key, ID: id}, nil
}

// maxKeyFile caps identity.key: an Ed25519 key is 68 bytes encoded.
const maxKeyFile = 4 << 10

// parseKey decodes identity.key's bytes.
func parseKey(raw []byte) (crypto.PrivKey, peer.ID, error) {
	if len(raw) > maxKeyFile {
		return nil, "", fmt.Errorf("%d bytes, more than a key", len(raw))
	}
	key, err := crypto.UnmarshalPrivateKey(raw)
	if err != nil {
		return nil, "", err
	}
	id, err := peer.IDFromPrivateKey(key)
	if err != nil {
		return nil, "", err
	}
	return key, id, nil
}

func newIdentityKey() (crypto.PrivKey, error) {
	key, _, err := crypto.GenerateEd25519Key(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate identity: %w", err)
	}
	return key, nil
}

// writeKey writes key as the repo's identity.key (0600), atomically.
func writeKey(dir string, key crypto.PrivKey) error {
	raw, err := crypto.MarshalPrivateKey(key)
	if err != nil {
		return fmt.Errorf("encode identity: %w", err)
	}
	return atomicfile.Write(filepath.Join(dir, keyFile), raw, 0o600)
}

// Lock takes the repo's lock so that one process at a time opens its data.
// The lock file holds the owner's PID for the error message of the next one.
func (r *Repo) Lock() error {
	f, err := os.OpenFile(filepath.Join(r.Dir, lockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("lock repo: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		pid, _ := readSmall(f.Name())
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			owner := ""
			if p := strings.TrimSpace(pid); p != "" {
				owner = " (pid " + p + ")"
			}
			return fmt.Errorf("%w%s at %s: is a daemon already running? stop it, or use its API", ErrRepoLocked, owner, r.Dir)
		}
		return fmt.Errorf("lock repo: %w", err)
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	r.lock = f
	return nil
}

// Unlock releases the lock taken by Lock.
func (r *Repo) Unlock() error {
	if r.lock == nil {
		return nil
	}
	_ = r.lock.Truncate(0)
	err := r.lock.Close() // closing releases the flock
	r.lock = nil
	return err
}

// DataDir is the Badger directory.
func (r *Repo) DataDir() string { return filepath.Join(r.Dir, dataDir) }

// CacheDir is the directory for caches that may be deleted at any time (the
// compiled sandbox module).
func (r *Repo) CacheDir() string { return filepath.Join(r.Dir, cacheDir) }

// readSmall reads a file of at most maxAPIFileSize bytes.
func readSmall(path string) (string, error) { return atomicfile.ReadSmall(path, maxAPIFileSize) }

// DaemonRunning reports whether a process holds the repo's lock, which is
// how a daemon left 'api' files behind after a crash is told apart from a
// live one.
func DaemonRunning(dir string) bool {
	f, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return errors.Is(err, syscall.EWOULDBLOCK)
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}

// RemoveStaleAPI removes the api files a crashed daemon left behind.
func RemoveStaleAPI(dir string) {
	os.Remove(filepath.Join(dir, controlapi.URLFile))
	os.Remove(filepath.Join(dir, controlapi.TokenFile))
}
