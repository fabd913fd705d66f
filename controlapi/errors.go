package controlapi

import (
	"errors"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/node/storage"
)

// ErrBadRequest wraps errors in a listing request (bad price, handler, ...).
var ErrBadRequest = errors.New("invalid request")

// ErrorBody is the body of every control API error: the message for
// people, and for errors a client acts on, a stable code (errorCodes).
type ErrorBody struct {
	Error string `json:"error"`
	Code  string `json:"code,omitempty"`
}

// errorCodes are the codes of the control API's errors that a client tells
// apart, and the error each stands for: APIError.Is maps a code back to it.
func errorCodes() []struct {
	code string
	err  error
} {
	return []struct {
		code string
		err  error
	}{
		{"bad_state", escrow.ErrBadState},
		{"escrow_not_found", escrow.ErrNotFound},
		{"wrong_amount", escrow.ErrWrongAmount},
		{"invalid_message", escrow.ErrInvalidMessage},
		{"job_not_found", market.ErrJobNotFound},
		{"not_listed", market.ErrNotListed},
		{"bad_rating", market.ErrBadRating},
		{"disk_full", storage.ErrDiskFull},
	}
}

// ErrorCode is err's code, or "" when it has none.
func ErrorCode(err error) string {
	for _, c := range errorCodes() {
		if errors.Is(err, c.err) {
			return c.code
		}
	}
	return ""
}
