package controlapi

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/internal/atomicfile"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/market/route"
	"github.com/swarmwage/swarmwage/node/ui"
	"github.com/swarmwage/swarmwage/verify"
)

const (
	// maxAPIBody caps a control API request body: a hire carries its input,
	// base64 images up to verify.MaxInputSize among them.
	maxAPIBody = verify.MaxInputSize + 1<<20
	// maxFindTimeout caps the timeout a find request may ask for.
	maxFindTimeout = 2 * time.Minute
)

// ErrNotRunning is returned when a job is not one this daemon is hiring
// (a job cancel of a hire that ended meanwhile).
var ErrNotRunning = errors.New("no hire of that job runs in this daemon")

// ErrNoRailAddress: the node settles in credits, which have no address.
var ErrNoRailAddress = errors.New("this node settles in credits, which have no address and cannot be withdrawn; create a node with 'swarmwage init --settlement evm' to use the evm rail")

// Dashboard is the web dashboard the server also serves (*ui.UI): its
// pages at /, its routes under /v1/ and its session cookie.
type Dashboard interface {
	// Register adds the dashboard's own /v1/ routes.
	Register(mux *http.ServeMux)
	// Handler serves the pages.
	Handler() http.Handler
	// HasCookie reports whether r carries a dashboard session cookie.
	HasCookie(r *http.Request) bool
	// Authorize checks that cookie for r's route.
	Authorize(r *http.Request) (int, error)
}

// ServerConfig says where a Server keeps its files and what else it serves.
type ServerConfig struct {
	// Dir is the node's repo: the server writes URLFile and TokenFile
	// there once it listens and removes them when it closes.
	Dir string
	// Dashboard, when set, is served at / and under /v1/.
	Dashboard Dashboard
}

// Server is the control API: HTTP on loopback with a bearer token, and
// the dashboard with its session cookie. Every answer carries
// ui.SecurityHeaders; a request whose Host is not this loopback address is
// refused (DNS rebinding).
type Server struct {
	b     Backend
	dir   string
	srv   *http.Server
	url   string
	token string
	done  chan struct{}
	quit  chan struct{}
	once  sync.Once
	ui    Dashboard
	// hosts are the Host header values this server answers.
	hosts []string
}

// URLOf is the URL a server listening on ln answers at.
func URLOf(ln net.Listener) string { return "http://" + ln.Addr().String() }

// Serve answers the control API on ln from b, then writes the token and
// URL files into cfg.Dir. The server owns ln from then on, even on error.
func Serve(ln net.Listener, b Backend, cfg ServerConfig) (*Server, error) {
	tok := make([]byte, 32)
	if _, err := rand.Read(tok); err != nil {
		ln.Close()
		return nil, fmt.Errorf("control API token: %w", err)
	}
	s := &Server{b: b, dir: cfg.Dir, ui: cfg.Dashboard, url: URLOf(ln), token: hex.EncodeToString(tok), done: make(chan struct{}), quit: make(chan struct{})}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	s.hosts = []string{"127.0.0.1:" + port, "localhost:" + port, "[::1]:" + port}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/id", s.handleID)
	mux.HandleFunc("GET /v1/peers", s.handlePeers)
	mux.HandleFunc("GET /v1/status", s.handleStatus)
	mux.HandleFunc("GET /v1/listings", s.handleListings)
	mux.HandleFunc("POST /v1/listings", s.handleAddListing)
	mux.HandleFunc("DELETE /v1/listings/{id}", s.handleRemoveListing)
	mux.HandleFunc("POST /v1/listings/test", s.handleTestListing)
	mux.HandleFunc("GET /v1/find", s.handleFind)
	mux.HandleFunc("GET /v1/events", s.handleEvents)
	s.registerMarket(mux)
	s.registerOps(mux)
	root := http.NewServeMux()
	if s.ui != nil {
		s.ui.Register(mux)
		root.Handle("/", s.ui.Handler())
	}
	s.registerFaults(mux)
	root.Handle("/v1/", s.auth(mux))
	s.srv = &http.Server{Handler: s.guard(root), ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 64 << 10}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(ln)
	}()
	// The token first, then the URL: a client that sees api can read the token.
	if err := atomicfile.Write(filepath.Join(s.dir, TokenFile), []byte(s.token), 0o600); err != nil {
		s.Close()
		return nil, err
	}
	if err := atomicfile.Write(filepath.Join(s.dir, URLFile), []byte(s.url+"\n"), 0o600); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// URL is the server's URL.
func (s *Server) URL() string { return s.url }

// Close removes the URL and token files, ends the event streams and shuts
// the server down. It is idempotent.
func (s *Server) Close() error {
	var err error
	s.once.Do(func() {
		// Remove the files first so that no client picks up a dying daemon.
		os.Remove(filepath.Join(s.dir, URLFile))
		os.Remove(filepath.Join(s.dir, TokenFile))
		// Event streams never go idle: end them, or Shutdown waits for them.
		close(s.quit)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err = s.srv.Shutdown(ctx)
		<-s.done
	})
	return err
}

// guard runs before every route: the security headers, the Host check and
// the body cap.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ui.SecurityHeaders(w.Header())
		if !slices.Contains(s.hosts, strings.ToLower(r.Host)) {
			// A page on a hostile name that resolves to 127.0.0.1 (DNS
			// rebinding) sends its own name as Host.
			apiError(w, http.StatusForbidden, fmt.Sprintf("Host %q is not this node's control API: use %s", r.Host, s.url))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxAPIBody)
		next.ServeHTTP(w, r)
	})
}

// auth lets a request through with the bearer token of <repo>/api.token,
// or, without an Authorization header, with a dashboard session cookie on
// the routes the dashboard may use (ui.UI.Authorize).
func (s *Server) auth(next http.Handler) http.Handler {
	want := []byte("Bearer " + s.token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := r.Header.Get("Authorization")
		if got == "" && s.ui != nil && s.ui.HasCookie(r) {
			if status, err := s.ui.Authorize(r); err != nil {
				apiError(w, status, err.Error())
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		if subtle.ConstantTimeCompare([]byte(got), want) != 1 {
			apiError(w, http.StatusUnauthorized, "missing or wrong bearer token (see <repo>/api.token)")
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) handleID(w http.ResponseWriter, r *http.Request) {
	info, err := s.b.ID(r.Context())
	if err != nil {
		apiError(w, http.StatusInternalServerError, err.Error())
		return
	}
	apiJSON(w, info)
}

func (s *Server) handleStatus(w http.ResponseWriter, r *http.Request) {
	info, err := s.b.Status(r.Context())
	if err != nil {
		apiError(w, http.StatusInternalServerError, err.Error())
		return
	}
	apiJSON(w, info)
}

func (s *Server) handlePeers(w http.ResponseWriter, r *http.Request) {
	apiJSON(w, s.b.Peers())
}

func (s *Server) handleListings(w http.ResponseWriter, r *http.Request) {
	info, err := s.b.Listings(r.Context())
	if err != nil {
		apiError(w, http.StatusInternalServerError, err.Error())
		return
	}
	apiJSON(w, info)
}

func (s *Server) handleAddListing(w http.ResponseWriter, r *http.Request) {
	var req AddListingRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		apiError(w, http.StatusBadRequest, "decode listing request: "+err.Error())
		return
	}
	p, err := s.b.CheckListing(req)
	if err != nil {
		apiError(w, http.StatusBadRequest, err.Error())
		return
	}
	info, err := s.b.AddListing(r.Context(), p)
	if err != nil {
		apiFail(w, err)
		return
	}
	apiJSON(w, info)
}

func (s *Server) handleRemoveListing(w http.ResponseWriter, r *http.Request) {
	if err := s.b.RemoveListing(r.Context(), r.PathValue("id")); err != nil {
		apiFail(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) handleTestListing(w http.ResponseWriter, r *http.Request) {
	var req TestListingRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		apiError(w, http.StatusBadRequest, "decode test request: "+err.Error())
		return
	}
	res, err := s.b.TestListing(r.Context(), req)
	if err != nil {
		apiFail(w, err)
		return
	}
	apiJSON(w, res)
}

func (s *Server) handleFind(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	capID := q.Get("capability")
	limit, _ := strconv.Atoi(q.Get("limit"))
	timeout := 30 * time.Second
	if t := q.Get("timeout"); t != "" {
		d, err := time.ParseDuration(t)
		if err != nil || d <= 0 || d > maxFindTimeout {
			apiError(w, http.StatusBadRequest, fmt.Sprintf("timeout %q: want a duration from 1ms to %s", t, maxFindTimeout))
			return
		}
		timeout = d
	}
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	if q.Get("refresh") != "" {
		// 'find --refresh': ask the DHT now, not the prefetch cache.
		s.b.ForgetRoute(capID)
	}
	info, err := s.b.Find(ctx, capID, limit)
	if err != nil {
		apiFail(w, err)
		return
	}
	if q.Get("explain") != "" {
		qos, err := route.ParseQoS(q.Get("qos"))
		if err != nil {
			apiError(w, http.StatusBadRequest, "qos: "+err.Error())
			return
		}
		routed, err := s.b.Explain(ctx, capID, qos)
		if err != nil {
			apiFail(w, err)
			return
		}
		info.Routing = &routed
	}
	apiJSON(w, info)
}

// statusOf maps an error to the control API status code that the client
// turns back into the same kind of error.
func statusOf(err error) int {
	switch {
	case errors.Is(err, verify.ErrInvalidID), errors.Is(err, verify.ErrUnknownCapability), errors.Is(err, ErrBadRequest):
		return http.StatusBadRequest
	case errors.Is(err, market.ErrNotListed), errors.Is(err, market.ErrJobNotFound), errors.Is(err, escrow.ErrNotFound), errors.Is(err, ErrNotRunning):
		return http.StatusNotFound
	case errors.Is(err, market.ErrBadRating), errors.Is(err, escrow.ErrBadState), errors.Is(err, escrow.ErrWrongAmount),
		errors.Is(err, escrow.ErrInvalidMessage):
		return http.StatusBadRequest
	default:
		return http.StatusInternalServerError
	}
}

// walletStatus maps a wallet error to a control API status.
func walletStatus(err error) int {
	switch {
	case errors.Is(err, ErrNoRailAddress), errors.Is(err, escrow.ErrInsufficientFunds), errors.Is(err, escrow.ErrNotCovered),
		errors.Is(err, escrow.ErrWrongAmount), errors.Is(err, ErrBadRequest):
		return http.StatusBadRequest
	case errors.Is(err, escrow.ErrRailUnavailable):
		return http.StatusServiceUnavailable
	}
	return statusOf(err)
}

// apiFail answers err with the status statusOf gives it and its code.
func apiFail(w http.ResponseWriter, err error) {
	writeAPIError(w, statusOf(err), ErrorBody{Error: err.Error(), Code: ErrorCode(err)})
}

func apiJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

func apiError(w http.ResponseWriter, status int, msg string) {
	writeAPIError(w, status, ErrorBody{Error: msg})
}

func writeAPIError(w http.ResponseWriter, status int, body ErrorBody) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}
