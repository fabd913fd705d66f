package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/node"
)

// ServerName is the implementation name the server reports to clients.
const ServerName = "swarmwage"

// instructions tell the client's model how the tools fit together.
const instructions = `swarmwage is a market where AI agents hire each other for jobs with a
machine-checkable result. Typical use: swarmwage_capabilities (find the capability ID and its input
schema; free), swarmwage_find (sellers, prices, ratings; free), swarmwage_hire (COSTS CREDITS: the
price is held in escrow, the output is verified locally, and the hold is refunded if verification
fails), then optionally swarmwage_rate. swarmwage_wallet shows the balance and the spending caps
this server enforces.`

// Server is an MCP server bound to one swarmwage repo. It reaches the
// network through the daemon serving that repo (its control API). A Server
// is one session for the per-session cap: serve one client with it.
type Server struct {
	repoDir string
	guard   *guard
	log     *slog.Logger
	mcp     *sdk.Server
}

// config is what Options set.
type config struct {
	limits  Limits
	logger  *slog.Logger
	version string
	now     func() time.Time
}

// Option configures New.
type Option func(*config) error

// WithLimits sets the spending guard. Defaults to no caps with risk tier 3
// refused.
func WithLimits(l Limits) Option {
	return func(c *config) error {
		if l.MaxPerHire < 0 || l.MaxPerSession < 0 || l.MaxPerDay < 0 {
			return fmt.Errorf("%w: a cap cannot be negative", ErrBadLimits)
		}
		c.limits = l
		return nil
	}
}

// WithLogger sets the logger; over stdio it must not write to stdout.
// Defaults to discarding logs.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error {
		c.logger = l
		return nil
	}
}

// WithVersion sets the version reported to clients. Defaults to "dev".
func WithVersion(v string) Option {
	return func(c *config) error {
		c.version = v
		return nil
	}
}

// New returns a server for the repo at repoDir. The daemon need not run
// yet: each tool that needs it dials it when called and, if none runs,
// answers with an error saying how to start one.
func New(repoDir string, opts ...Option) (*Server, error) {
	cfg := config{version: "dev", now: time.Now}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	if cfg.logger == nil {
		cfg.logger = slog.New(slog.DiscardHandler)
	}
	if repoDir == "" {
		return nil, errors.New("mcp server: no repo directory")
	}
	s := &Server{
		repoDir: repoDir,
		guard:   newGuard(cfg.limits, repoDir, cfg.now),
		log:     cfg.logger,
	}
	s.mcp = sdk.NewServer(&sdk.Implementation{Name: ServerName, Title: "swarmwage agent market", Version: cfg.version},
		&sdk.ServerOptions{Instructions: instructions, Logger: cfg.logger, Capabilities: &sdk.ServerCapabilities{}})
	if err := s.addTools(); err != nil {
		return nil, err
	}
	return s, nil
}

// Run serves one client over t until the client disconnects or ctx ends.
func (s *Server) Run(ctx context.Context, t sdk.Transport) error {
	return s.mcp.Run(ctx, t)
}

// Connect starts a session over t and returns at once; for tests and
// embedding (Run is the usual entry point).
func (s *Server) Connect(ctx context.Context, t sdk.Transport) (*sdk.ServerSession, error) {
	return s.mcp.Connect(ctx, t, nil)
}

// dial returns a client of the daemon, or an error whose message tells the
// agent (and its user) how to start one.
func (s *Server) dial() (*controlapi.Client, error) {
	cl, err := controlapi.Dial(s.repoDir)
	if err != nil {
		return nil, s.daemonErr(err)
	}
	return cl, nil
}

// daemonErr turns an error talking to the daemon into a message an agent
// can act on.
func (s *Server) daemonErr(err error) error {
	if !errors.Is(err, controlapi.ErrNoDaemon) {
		var ae *controlapi.APIError
		if errors.As(err, &ae) {
			return fmt.Errorf("the swarmwage daemon refused: %s", ae.Message)
		}
		return err
	}
	if _, oerr := node.Open(s.repoDir); oerr != nil {
		var nr node.NoRepoError
		if errors.As(oerr, &nr) {
			return fmt.Errorf("there is no swarmwage repo at %s. Ask the user to create one with 'swarmwage --repo %s init', add test credits with 'swarmwage --repo %s wallet deposit 10' once the daemon runs, and start the node with 'swarmwage --repo %s daemon' (kept running); then call this tool again. swarmwage_capabilities and swarmwage_verify work without a daemon",
				s.repoDir, s.repoDir, s.repoDir, s.repoDir)
		}
	}
	return fmt.Errorf("no swarmwage daemon is running for the repo %s, so this tool cannot reach the market. Ask the user to start one with 'swarmwage --repo %s daemon' and keep it running, then call this tool again. swarmwage_capabilities and swarmwage_verify work without a daemon",
		s.repoDir, s.repoDir)
}
