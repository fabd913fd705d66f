package controlapi

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market"
)

// List endpoints (GET /v1/jobs, GET /v1/escrow) answer one page at a time,
// so that no list, however long the history, comes near maxAPIResponse.
const (
	// DefaultListLimit is a page's size when the request names none.
	DefaultListLimit = 100
	// MaxListLimit caps a page's size; a larger limit gets this many.
	MaxListLimit = 1000
	// MaxListBytes caps a page's encoded size: a page ends early, with a
	// cursor, rather than grow past it. Far under maxAPIResponse.
	MaxListBytes = 8 << 20
	// maxCursor caps a cursor's length; ours are under 200 bytes.
	maxCursor = 512
	// maxCursorJobID caps the job ID inside a cursor.
	maxCursorJobID = 256
)

// ErrBadCursor is returned for a cursor this node did not write.
var ErrBadCursor = errors.New("bad list cursor")

// cursorEncoding decodes strictly, so that one position has one cursor.
var cursorEncoding = base64.RawURLEncoding.Strict()

// CursorPos is the position a cursor names: the last record of a page.
type CursorPos struct {
	CreatedAt time.Time
	Role      string
	JobID     string
}

// encodeCursor writes p as an opaque URL-safe string: base64url of
// "<unix seconds>.<nanoseconds>.<role>.<base64url job ID>" (seconds and
// nanoseconds apart, so that any time, even a zero one, round-trips).
func encodeCursor(p CursorPos) string {
	raw := strconv.FormatInt(p.CreatedAt.Unix(), 10) + "." + strconv.Itoa(p.CreatedAt.Nanosecond()) + "." +
		p.Role + "." + base64.RawURLEncoding.EncodeToString([]byte(p.JobID))
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

// decodeCursor reads a cursor written by encodeCursor. It reads bytes from
// the API's caller: every part is checked.
func decodeCursor(s string) (CursorPos, error) {
	if len(s) > maxCursor {
		return CursorPos{}, fmt.Errorf("%w: longer than %d bytes", ErrBadCursor, maxCursor)
	}
	raw, err := cursorEncoding.DecodeString(s)
	if err != nil {
		return CursorPos{}, fmt.Errorf("%w: not base64url", ErrBadCursor)
	}
	parts := strings.Split(string(raw), ".")
	if len(parts) != 4 {
		return CursorPos{}, fmt.Errorf("%w: want 4 parts, got %d", ErrBadCursor, len(parts))
	}
	sec, err := strconv.ParseInt(parts[0], 10, 64)
	if err != nil || strconv.FormatInt(sec, 10) != parts[0] {
		return CursorPos{}, fmt.Errorf("%w: bad time", ErrBadCursor)
	}
	nsec, err := strconv.Atoi(parts[1])
	if err != nil || nsec < 0 || nsec > 999_999_999 || strconv.Itoa(nsec) != parts[1] {
		return CursorPos{}, fmt.Errorf("%w: bad time", ErrBadCursor)
	}
	if parts[2] != market.RoleBuyer && parts[2] != market.RoleSeller {
		return CursorPos{}, fmt.Errorf("%w: bad role", ErrBadCursor)
	}
	id, err := cursorEncoding.DecodeString(parts[3])
	if err != nil || len(id) == 0 || len(id) > maxCursorJobID {
		return CursorPos{}, fmt.Errorf("%w: bad job ID", ErrBadCursor)
	}
	return CursorPos{CreatedAt: time.Unix(sec, int64(nsec)).UTC(), Role: parts[2], JobID: string(id)}, nil
}

// JobCursor is the cursor of the page that follows r.
func JobCursor(r market.JobRecord) string {
	return encodeCursor(CursorPos{CreatedAt: r.CreatedAt, Role: r.Role, JobID: r.JobID})
}

// EscrowCursor is the cursor of the page that follows r.
func EscrowCursor(r escrow.Record) string {
	return encodeCursor(CursorPos{CreatedAt: r.CreatedAt, Role: string(r.Role), JobID: r.JobID})
}

// parseListLimit reads a page size: absent or 0 is DefaultListLimit, more
// than MaxListLimit is MaxListLimit.
func parseListLimit(s string) (int, error) {
	if s == "" {
		return DefaultListLimit, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%w: limit %q: want a whole number from 1 to %d", ErrBadRequest, s, MaxListLimit)
	}
	if n == 0 {
		return DefaultListLimit, nil
	}
	return min(n, MaxListLimit), nil
}

// JobsPage lists at most limit job summaries of v (0: all), newest first;
// NextCursor is set when more are left.
func JobsPage(ctx context.Context, v *market.JobView, role string, limit int) (JobsInfo, error) {
	q := market.JobQuery{Role: role}
	if limit > 0 {
		q.Limit = limit + 1 // one more says whether there are more
	}
	jobs, err := v.Page(ctx, q)
	if err != nil {
		return JobsInfo{}, err
	}
	info := JobsInfo{Jobs: append([]market.JobRecord{}, jobs...)}
	if limit > 0 && len(jobs) > limit {
		info.Jobs, info.NextCursor = info.Jobs[:limit], JobCursor(jobs[limit-1])
	}
	return info, nil
}
