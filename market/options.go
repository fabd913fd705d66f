package market

import (
	"log/slog"
	"testing"
)

// Option configures a Market.
type Option func(*config) error

type config struct {
	logger  *slog.Logger
	runtime func() any
	// tamper rewrites listings before they are served (tests only).
	tamper func(*SignedListing)
}

func defaultConfig() config {
	return config{logger: slog.Default().With("subsystem", "swarmwage/market")}
}

// Logger sets the logger. Defaults to slog.Default().
func Logger(l *slog.Logger) Option {
	return func(c *config) error { c.logger = l.With("subsystem", "swarmwage/market"); return nil }
}

// SandboxRuntime sets the function that describes the sandbox runtime served
// at GET /capabilities/code.execute.sandboxed/runtime. Defaults to none.
func SandboxRuntime(f func() any) Option {
	return func(c *config) error { c.runtime = f; return nil }
}

// withTamper makes the agent endpoint serve listings rewritten by f, to test
// that buyers reject what was changed in transit.
func withTamper(_ *testing.T, f func(*SignedListing)) Option {
	return func(c *config) error { c.tamper = f; return nil }
}
