package market

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// Test-only options: they live in a _test.go file, so the binary cannot
// call them and does not link package testing.

// withTamper makes the agent endpoint serve listings rewritten by f, to test
// that buyers reject what was changed in transit.
func withTamper(_ *testing.T, f func(*SignedListing)) Option {
	return func(c *config) error { c.tamper = f; return nil }
}

// withTamperQuote rewrites the seller's signed quotes before they are sent.
func withTamperQuote(_ *testing.T, f func(*SignedQuote)) Option {
	return func(c *config) error { c.tamperQuote = f; return nil }
}

// withReadHeaderTimeout shortens the read-header deadline of agent streams.
// withQuotePrice makes the seller quote f(listing price): a seller quoting
// off its listing.
func withQuotePrice(_ *testing.T, f func(Credits) Credits) Option {
	return func(c *config) error { c.quotePrice = f; return nil }
}

func withReadHeaderTimeout(_ *testing.T, d time.Duration) Option {
	return func(c *config) error { c.readHeaderTimeout = d; return nil }
}

// withHandler makes every job run f instead of its listing's handler.
func withHandler(_ *testing.T, f func(ctx context.Context, input json.RawMessage) (json.RawMessage, error)) Option {
	return func(c *config) error { c.runHandler = f; return nil }
}

// withAcceptGrace sets how long a job runs before its lock is written on
// its own.
func withAcceptGrace(_ *testing.T, d time.Duration) Option {
	return func(c *config) error { c.acceptGrace = d; return nil }
}

// withDropEarly makes the seller end each stream right after its early
// delivery, writing nothing (a crash before the commit).
func withDropEarly(_ *testing.T) Option {
	return func(c *config) error { c.dropEarly = true; return nil }
}
