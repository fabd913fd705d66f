package builtin

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"time"
)

// Option configures New.
type Option func(*config) error

// resolver turns a host name into addresses; *net.Resolver implements it.
type resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

type config struct {
	now func() time.Time
	// resolver is used by the extractor's dialer (tests inject one that maps
	// names to loopback to prove the dial-time check).
	resolver resolver
	// allowAddrs are exact ip:port destinations the extractor may dial even
	// though they are loopback/private. Only package tests set it.
	allowAddrs []netip.AddrPort
	// fetchTimeout bounds a whole extraction fetch, redirects included.
	fetchTimeout time.Duration
	// sandbox backs code.execute.sandboxed; nil leaves it unregistered.
	sandbox SandboxRunner
}

func defaultConfig() *config {
	return &config{
		now:          time.Now,
		resolver:     net.DefaultResolver,
		fetchTimeout: defaultFetchTimeout,
	}
}

// WithClock sets the clock used for timestamps in outputs (extracted_at).
func WithClock(now func() time.Time) Option {
	return func(c *config) error {
		if now == nil {
			return errors.New("WithClock: nil clock")
		}
		c.now = now
		return nil
	}
}

// WithFetchTimeout bounds one data.extract.from-url fetch, redirects included.
// Default 20s.
func WithFetchTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return errors.New("WithFetchTimeout: timeout must be positive")
		}
		c.fetchTimeout = d
		return nil
	}
}

// withResolver replaces the DNS resolver of the extractor (tests only).
func withResolver(r resolver) Option {
	return func(c *config) error {
		c.resolver = r
		return nil
	}
}

// withAllowAddr lets the extractor dial exactly these ip:port destinations
// despite the SSRF guard. It is the explicit test-only allowance that lets
// package tests reach an httptest server on loopback; it is unexported so no
// production caller can weaken the guard.
func withAllowAddr(addrs ...netip.AddrPort) Option {
	return func(c *config) error {
		c.allowAddrs = append(c.allowAddrs, addrs...)
		return nil
	}
}
