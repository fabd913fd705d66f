// Package gateway is the door through which agents that do not run
// swarmwage hire through a node ([gateway] listen, 'swarmwage daemon
// --gateway ADDR'). It serves, on plain HTTP:
//
//	GET  /.well-known/agent-card.json  the A2A v1.0 agent card (public)
//	POST /a2a                          A2A v1.0 JSON-RPC: SendMessage,
//	                                   SendStreamingMessage (SSE), GetTask,
//	                                   ListTasks, CancelTask, SubscribeToTask
//	POST /x402/{capability}            the x402 door, when the node is on
//	                                   the evm rail (WithX402)
//
// Every hire goes through the node's one hire service (node.RunHire:
// route, quote, lock, run, verify, settle), as the CLI's and MCP's do: the
// gateway has no pipeline of its own. An A2A task is one hire, SUBMITTED,
// then WORKING with a status update per stage (routing, quote, lock,
// accepted, progress, delivery, verification), then COMPLETED with an
// artifact holding the output, the verification report and the signed
// receipt; FAILED (the hold refunded, with the reason), REJECTED (no seller
// within the price, a cap, bad input) or CANCELED (CancelTask before
// delivery, refunded). Tasks are stored in the node's Badger database
// under "gateway/" and survive a restart: a task whose job was locked
// follows the job until it settles.
//
// Access: every route but the agent card needs "Authorization: Bearer
// <token>" with the token of <repo>/gateway.token (made at the first
// start, mode 0600), unless [gateway] open = true. Spending caps
// [gateway] max_per_hire and max_per_day bound what callers spend: the
// per-hire cap is each hire's maximum price, and the per-day cap is
// checked by the escrow lock in its own transaction (escrow.SpendCap, the
// mechanism MCP uses), over every lock the gateway made since local
// midnight and did not get refunded.
//
// Limits: request bodies are capped (maxBody), headers must arrive within
// readHeaderTimeout, and every request has a deadline: a plain call
// requestTimeout, a blocking SendMessage or a stream the longest hire plus
// a margin.
package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/gateway/x402"
	"github.com/swarmwage/swarmwage/node"
)

const (
	// ServiceName names the gateway in logs.
	ServiceName = "swarmwage/gateway"
	// ProtocolVersion is the A2A version the gateway speaks.
	ProtocolVersion = "1.0"
	// VersionHeader carries the A2A version of a request and an answer.
	VersionHeader = "A2A-Version"

	// CardPath is where the agent card is served.
	CardPath = "/.well-known/agent-card.json"
	// A2APath is the JSON-RPC endpoint.
	A2APath = "/a2a"
	// X402Path prefixes the x402 door's routes.
	X402Path = "/x402/"

	// maxBody caps a request body: a hire's input with its envelope. Larger
	// inputs go through the control API.
	maxBody = 8 << 20
	// maxHeaderBytes caps request headers.
	maxHeaderBytes = 16 << 10
	// readHeaderTimeout bounds the arrival of a request's headers and
	// readTimeout of its body (BufferBody).
	readHeaderTimeout = 10 * time.Second
	readTimeout       = time.Minute
	// requestTimeout is the deadline of a call that does not wait for a
	// hire (GetTask, ListTasks, CancelTask, the card).
	requestTimeout = 30 * time.Second
	// hireWait is the deadline of a call that waits for a hire (a blocking
	// SendMessage, a stream): the longest hire and a margin to settle.
	hireWait = maxHireTimeout + 2*time.Minute
	// keepAlive is how often an idle stream gets an SSE comment, so that
	// proxies keep it open.
	keepAlive = 15 * time.Second
	// idleTimeout closes idle keep-alive connections.
	idleTimeout = 2 * time.Minute
	// maxSkills caps the skills of the agent card.
	maxSkills = 256
)

// config is what Options set.
type config struct {
	x402    http.Handler
	log     *slog.Logger
	store   Store
	version string
	now     func() time.Time
	token   string
}

// Option configures New.
type Option func(*config) error

// WithX402 mounts the x402 door's handler at POST /x402/{capability}. It
// gets the request as it came (no bearer token is asked: an x402 client
// pays with its signed authorization). Defaults to nil: /x402/ answers 501
// with a JSON error saying the node is not on the evm rail.
func WithX402(h http.Handler) Option {
	return func(c *config) error {
		c.x402 = h
		return nil
	}
}

// WithLogger sets the logger. Defaults to slog.Default().
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error {
		c.log = l
		return nil
	}
}

// WithStore keeps tasks in s. Defaults to the node's Badger database.
func WithStore(s Store) Option {
	return func(c *config) error {
		c.store = s
		return nil
	}
}

// WithVersion is the version the agent card gives. Defaults to "dev".
func WithVersion(v string) Option {
	return func(c *config) error {
		c.version = v
		return nil
	}
}

// Server is a node's gateway. Safe for concurrent use.
type Server struct {
	n     *node.Node
	cfg   config
	open  bool
	tasks *taskManager
	mux   *http.ServeMux
	// x402 is the door New built (evm rail), closed with the server.
	x402 *x402.Handler

	mu        sync.Mutex
	srv       *http.Server
	ln        net.Listener
	closeOnce sync.Once
	closeErr  error
}

// New builds the gateway of n from n.Config.Gateway. It serves nothing
// until Start.
func New(n *node.Node, opts ...Option) (*Server, error) {
	cfg := config{version: "dev", now: time.Now}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	if cfg.log == nil {
		cfg.log = slog.Default()
	}
	cfg.log = cfg.log.With("service", ServiceName)
	if cfg.store == nil {
		cfg.store = NewBadgerStore(n.DB)
	}
	gc := n.Config.Gateway
	s := &Server{n: n, cfg: cfg, open: gc.Open}
	if !gc.Open {
		tok, err := EnsureToken(n.Repo.Dir)
		if err != nil {
			return nil, fmt.Errorf("gateway token: %w", err)
		}
		s.cfg.token = tok
	}
	perHire, perDay, _ := gc.Amounts()
	if s.cfg.x402 == nil && n.Settler != nil {
		// On the evm rail the gateway also serves the x402 door, with the
		// [gateway] fee on top of the seller's price.
		h, err := n.NewX402(x402.Config{Fee: gc.Fee}, x402.WithLogger(cfg.log))
		if err != nil {
			return nil, fmt.Errorf("gateway: x402 door: %w", err)
		}
		s.x402 = h
		s.cfg.x402 = h
	}
	s.tasks = newTaskManager(nodeHirer{n}, cfg.store, Caps{MaxPerHire: perHire, MaxPerDay: perDay}, cfg.log, cfg.now)
	s.mux = s.routes()
	return s, nil
}

// Start takes over the tasks a previous run left open and serves on
// n.Config.Gateway.Listen.
func (s *Server) Start(ctx context.Context) error {
	if err := s.tasks.reconcile(ctx); err != nil {
		return fmt.Errorf("gateway: take over open tasks: %w", err)
	}
	addr := s.n.Config.Gateway.Listen
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		s.tasks.close()
		return fmt.Errorf("gateway on %s: %w", addr, err)
	}
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: readHeaderTimeout, // the body's deadline: BufferBody
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(s.cfg.log.Handler(), slog.LevelDebug),
	}
	s.mu.Lock()
	s.srv, s.ln = srv, ln
	s.mu.Unlock()
	go func() { _ = srv.Serve(ln) }()
	s.cfg.log.Info("gateway serving", "addr", ln.Addr().String(), "open", s.open)
	return nil
}

// StartNode is node.Options.StartGateway's shape: it builds and starts
// the gateway of n.
func StartNode(opts ...Option) func(context.Context, *node.Node) (io.Closer, error) {
	return func(ctx context.Context, n *node.Node) (io.Closer, error) {
		s, err := New(n, opts...)
		if err != nil {
			return nil, err
		}
		if err := s.Start(ctx); err != nil {
			return nil, err
		}
		return s, nil
	}
}

// Addr is the address the gateway listens on, once started.
func (s *Server) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln == nil {
		return ""
	}
	return s.ln.Addr().String()
}

// Handler is the gateway's HTTP handler, with its limits and access rules.
func (s *Server) Handler() http.Handler { return s.mux }

// Close stops serving, stops the hires of running tasks (refunded) and
// waits until their tasks are stored. It is idempotent.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		srv := s.srv
		s.mu.Unlock()
		if srv != nil {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			err := srv.Shutdown(ctx)
			cancel()
			if err != nil {
				err = srv.Close() // streams still open are cut
			}
			s.closeErr = err
		}
		s.tasks.close()
		if s.x402 != nil {
			s.closeErr = errors.Join(s.closeErr, s.x402.Close())
		}
	})
	return s.closeErr
}

// routes builds the mux.
func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("GET "+CardPath, s.limit(requestTimeout, http.HandlerFunc(s.handleCard)))
	mux.Handle("POST "+A2APath, s.limit(0, s.auth(http.HandlerFunc(s.handleA2A))))
	door := s.cfg.x402
	if door == nil {
		door = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			httpError(w, http.StatusNotImplemented, `the x402 door is off: this node is not on the evm rail ([settlement] rail = "evm" serves POST /x402/{capability})`)
		})
	}
	mux.Handle("POST "+X402Path+"{capability}", s.limit(hireWait, door))
	mux.Handle("/", s.limit(requestTimeout, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		httpError(w, http.StatusNotFound, fmt.Sprintf("no route %s %s: the gateway serves GET %s, POST %s and POST %s{capability}", r.Method, r.URL.Path, CardPath, A2APath, X402Path))
	})))
	return mux
}

// limit caps the request body and, for timeout > 0, sets the request's
// deadline (the handler of a route that waits for hires sets its own).
// A panic in a handler is logged and answered with 500.
func (s *Server) limit(timeout time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.cfg.log.Error("gateway handler panicked", "path", r.URL.Path, "panic", v)
				httpError(w, http.StatusInternalServerError, "internal error")
			}
		}()
		if timeout > 0 {
			ctx, cancel := context.WithTimeout(r.Context(), timeout)
			defer cancel()
			_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(timeout))
			r = r.WithContext(ctx)
		}
		BufferBody(maxBody, readTimeout, next).ServeHTTP(w, r)
	})
}

// auth asks for the bearer token unless the gateway is open.
func (s *Server) auth(next http.Handler) http.Handler {
	if s.open {
		return next
	}
	return RequireToken(s.cfg.token, next)
}

// httpError answers a non-JSON-RPC error as {"error": msg}.
func httpError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

// nodeHirer is the node's hire service as tasks use it.
type nodeHirer struct{ *node.Node }

// Receipt is the signed receipt of a job this node bought: lock, delivery
// and settle, with the rail.
func (h nodeHirer) Receipt(ctx context.Context, jobID string) (json.RawMessage, error) {
	rec, err := h.Escrow.GetRole(ctx, jobID, escrow.RoleBuyer)
	if err != nil {
		return nil, err
	}
	rail := rec.Rail
	if rail == "" {
		rail = escrow.RailCredits
	}
	b, err := escrow.Receipt{Lock: rec.Lock, Delivery: rec.Delivery, Settle: rec.Settle, Rail: rail}.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("receipt of %s: %w", jobID, err)
	}
	return b, nil
}

var _ hirer = nodeHirer{}

// isVersionOK reports whether a request's A2A-Version header is one this
// gateway speaks (1.x; absent counts as the current version, for clients
// such as curl).
func isVersionOK(v string) bool {
	v = strings.TrimSpace(v)
	return v == "" || v == "1" || strings.HasPrefix(v, "1.")
}
