package controlapi

import (
	"encoding/json"
	"net/url"
)

// Paging of the control API's list routes (GET /v1/jobs, GET /v1/escrow).

// ListQuery reads a list request's limit and cursor.
func ListQuery(q url.Values) (int, *CursorPos, error) {
	limit, err := parseListLimit(q.Get("limit"))
	if err != nil {
		return 0, nil, err
	}
	c := q.Get("cursor")
	if c == "" {
		return limit, nil, nil
	}
	p, err := decodeCursor(c)
	if err != nil {
		return 0, nil, err
	}
	return limit, &p, nil
}

// PageCut is how many of recs (fetched with limit+1) make the page: at
// most limit, and no more than fit in maxBytes (at least one); more
// reports whether records are left for a next page.
func PageCut[T any](recs []T, limit, maxBytes int) (n int, more bool) {
	size := 0
	for n < len(recs) && n < limit {
		b, err := json.Marshal(recs[n])
		if err == nil && n > 0 && size+len(b) > maxBytes {
			break
		}
		size += len(b)
		n++
	}
	return n, n < len(recs)
}
