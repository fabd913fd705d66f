package ui

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"sync"
	"time"
)

const (
	// LoginTTL is how long a one-time login credential stays valid: long
	// enough to switch to the browser, short enough that a link left in a
	// terminal's scrollback is useless.
	LoginTTL = 2 * time.Minute
	// SessionTTL is how long a dashboard session lasts without a new login.
	SessionTTL = 12 * time.Hour
	// maxLogins caps outstanding login credentials; minting more evicts the
	// oldest. Nobody needs more than a few at once.
	maxLogins = 16
	// maxSessions caps live sessions (browser profiles); a new one evicts
	// the oldest.
	maxSessions = 32
	// secretBytes is the entropy of credentials and session IDs.
	secretBytes = 32
)

var (
	// ErrBadCredential is returned for a login credential that is unknown,
	// used or expired.
	ErrBadCredential = errors.New("this login link was used or has expired: run 'swarmwage dashboard' for a new one")
	// ErrNoSession is returned for a request without a valid session cookie.
	ErrNoSession = errors.New("not logged in: run 'swarmwage dashboard' to open the dashboard")
	// ErrCSRF is returned for a cookie request without the dashboard header.
	ErrCSRF = errors.New("missing header " + CSRFHeader + ": 1")
	// ErrNotForDashboard is returned for a cookie request to a route the
	// dashboard has no business calling.
	ErrNotForDashboard = errors.New("this route needs the bearer token of <repo>/api.token; the dashboard session does not open it")
)

// secrets is a set of hashed one-time or expiring secrets. Only hashes are
// kept, so a memory dump shows no usable credential, and lookups do not
// depend on comparing the secret itself byte by byte.
type secrets struct {
	mu    sync.Mutex
	max   int
	seq   uint64
	items map[[sha256.Size]byte]secret // by hash
}

type secret struct {
	expires time.Time
	seq     uint64 // order of minting: the smallest is evicted first
}

func newSecrets(max int) *secrets {
	return &secrets{max: max, items: make(map[[sha256.Size]byte]secret)}
}

// add mints a new secret valid until expires; now drops expired ones.
func (s *secrets) add(now, expires time.Time) (string, error) {
	b := make([]byte, secretBytes)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	value := hex.EncodeToString(b)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prune(now)
	for len(s.items) >= s.max {
		s.evictOldest()
	}
	s.seq++
	s.items[sha256.Sum256([]byte(value))] = secret{expires: expires, seq: s.seq}
	return value, nil
}

// take reports whether value is a valid secret at now and removes it.
func (s *secrets) take(value string, now time.Time) bool {
	h := sha256.Sum256([]byte(value))
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.items[h]
	delete(s.items, h)
	return ok && now.Before(e.expires)
}

// valid reports whether value is a valid secret at now, keeping it.
func (s *secrets) valid(value string, now time.Time) bool {
	h := sha256.Sum256([]byte(value))
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.items[h]
	if ok && !now.Before(e.expires) {
		delete(s.items, h)
		return false
	}
	return ok
}

// remove forgets value.
func (s *secrets) remove(value string) {
	h := sha256.Sum256([]byte(value))
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.items, h)
}

func (s *secrets) prune(now time.Time) {
	for h, e := range s.items {
		if !now.Before(e.expires) {
			delete(s.items, h)
		}
	}
}

// evictOldest drops the secret minted first.
func (s *secrets) evictOldest() {
	var oldest [sha256.Size]byte
	first := ^uint64(0)
	for h, e := range s.items {
		if e.seq < first {
			oldest, first = h, e.seq
		}
	}
	delete(s.items, oldest)
}
