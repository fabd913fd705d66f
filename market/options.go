package market

import (
	"log/slog"
)

// Option configures a Market.
type Option func(*config) error

type config struct {
	logger  *slog.Logger
	runtime func() any
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
