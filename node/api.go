package node

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
	"time"

	"github.com/swarmwage/swarmwage/controlapi"
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

// apiServer is the control API: HTTP on loopback with a bearer token, and
// the dashboard (package ui) with its session cookie. Every answer carries
// ui.SecurityHeaders; a request whose Host is not this loopback address is
// refused (DNS rebinding).
type apiServer struct {
	n     *Node
	srv   *http.Server
	url   string
	token string
	done  chan struct{}
	ui    *ui.UI
	reach *reachability
	// hosts are the Host header values this server answers.
	hosts []string
}

func startAPI(n *Node) (*apiServer, error) {
	ln, err := net.Listen("tcp", n.Config.API)
	if err != nil && n.Config.API == DefaultAPIAddr {
		// Another node on this machine has the default port. Clients find
		// the API through <repo>/api, so any free port serves as well.
		n.log.Warn("default control API port in use; using a free port", "addr", DefaultAPIAddr)
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		return nil, fmt.Errorf("control API on %s: %w (choose another with --api, or port 0 for any free port)", n.Config.API, err)
	}
	tok := make([]byte, 32)
	if _, err := rand.Read(tok); err != nil {
		ln.Close()
		return nil, fmt.Errorf("control API token: %w", err)
	}
	a := &apiServer{n: n, url: "http://" + ln.Addr().String(), token: hex.EncodeToString(tok), done: make(chan struct{})}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	a.hosts = []string{"127.0.0.1:" + port, "localhost:" + port, "[::1]:" + port}
	a.reach = watchReachability(n)
	if a.ui, err = ui.New(dashboardBackend{n: n, reach: a.reach}, ui.Config{URL: a.url, Logger: n.log}); err != nil {
		a.reach.close()
		ln.Close()
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/id", a.handleID)
	mux.HandleFunc("GET /v1/peers", a.handlePeers)
	mux.HandleFunc("GET /v1/status", a.handleStatus)
	mux.HandleFunc("GET /v1/listings", a.handleListings)
	mux.HandleFunc("POST /v1/listings", a.handleAddListing)
	mux.HandleFunc("DELETE /v1/listings/{id}", a.handleRemoveListing)
	mux.HandleFunc("POST /v1/listings/test", a.handleTestListing)
	mux.HandleFunc("GET /v1/find", a.handleFind)
	mux.HandleFunc("GET /v1/events", a.handleEvents)
	a.registerMarket(mux)
	a.registerOps(mux)
	a.ui.Register(mux)
	a.registerFaults(mux)
	root := http.NewServeMux()
	root.Handle("/v1/", a.auth(mux))
	root.Handle("/", a.ui.Handler())
	a.srv = &http.Server{Handler: a.guard(root), ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 64 << 10}
	go func() {
		defer close(a.done)
		_ = a.srv.Serve(ln)
	}()
	// The token first, then the URL: a client that sees api can read the token.
	if err := atomicfile.Write(filepath.Join(n.Repo.Dir, controlapi.TokenFile), []byte(a.token), 0o600); err != nil {
		a.close()
		return nil, err
	}
	if err := atomicfile.Write(filepath.Join(n.Repo.Dir, controlapi.URLFile), []byte(a.url+"\n"), 0o600); err != nil {
		a.close()
		return nil, err
	}
	return a, nil
}

func (a *apiServer) close() error {
	// Remove the files first so that no client picks up a dying daemon.
	os.Remove(filepath.Join(a.n.Repo.Dir, controlapi.URLFile))
	os.Remove(filepath.Join(a.n.Repo.Dir, controlapi.TokenFile))
	// Event streams never go idle: end them, or Shutdown waits for them.
	a.n.events.close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := a.srv.Shutdown(ctx)
	<-a.done
	a.reach.close()
	return err
}

// guard runs before every route: the security headers, the Host check and
// the body cap.
func (a *apiServer) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ui.SecurityHeaders(w.Header())
		if !slices.Contains(a.hosts, strings.ToLower(r.Host)) {
			// A page on a hostile name that resolves to 127.0.0.1 (DNS
			// rebinding) sends its own name as Host.
			apiError(w, http.StatusForbidden, fmt.Sprintf("Host %q is not this node's control API: use %s", r.Host, a.url))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxAPIBody)
		next.ServeHTTP(w, r)
	})
}

// auth lets a request through with the bearer token of <repo>/api.token,
// or, without an Authorization header, with a dashboard session cookie on
// the routes the dashboard may use (ui.UI.Authorize).
func (a *apiServer) auth(next http.Handler) http.Handler {
	want := []byte("Bearer " + a.token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := r.Header.Get("Authorization")
		if got == "" && a.ui.HasCookie(r) {
			if status, err := a.ui.Authorize(r); err != nil {
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

func (a *apiServer) handleID(w http.ResponseWriter, r *http.Request) {
	info, err := a.n.ID(r.Context())
	if err != nil {
		apiError(w, http.StatusInternalServerError, err.Error())
		return
	}
	apiJSON(w, info)
}

func (a *apiServer) handleStatus(w http.ResponseWriter, r *http.Request) {
	info, err := a.n.Status(r.Context())
	if err != nil {
		apiError(w, http.StatusInternalServerError, err.Error())
		return
	}
	apiJSON(w, info)
}

func (a *apiServer) handlePeers(w http.ResponseWriter, r *http.Request) {
	apiJSON(w, a.n.Peers())
}

func (a *apiServer) handleListings(w http.ResponseWriter, r *http.Request) {
	info, err := Listings(r.Context(), a.n.Market.Store())
	if err != nil {
		apiError(w, http.StatusInternalServerError, err.Error())
		return
	}
	apiJSON(w, info)
}

func (a *apiServer) handleAddListing(w http.ResponseWriter, r *http.Request) {
	var req controlapi.AddListingRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		apiError(w, http.StatusBadRequest, "decode listing request: "+err.Error())
		return
	}
	p, err := listingParams(req)
	if err != nil {
		apiError(w, http.StatusBadRequest, err.Error())
		return
	}
	o, err := a.n.Market.AddListing(r.Context(), p)
	if err != nil {
		apiFail(w, err)
		return
	}
	apiJSON(w, controlapi.NewListingInfo(o))
}

func (a *apiServer) handleRemoveListing(w http.ResponseWriter, r *http.Request) {
	if err := a.n.Market.RemoveListing(r.Context(), r.PathValue("id")); err != nil {
		apiFail(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (a *apiServer) handleFind(w http.ResponseWriter, r *http.Request) {
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
		a.n.Routing.Forget(capID)
	}
	info, err := a.n.Find(ctx, capID, limit)
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
		routed, err := a.n.Market.Explain(ctx, capID, qos, 0)
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
	case errors.Is(err, verify.ErrInvalidID), errors.Is(err, verify.ErrUnknownCapability), errors.Is(err, controlapi.ErrBadRequest):
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

// apiFail answers err with the status statusOf gives it and its code.
func apiFail(w http.ResponseWriter, err error) {
	writeAPIError(w, statusOf(err), controlapi.ErrorBody{Error: err.Error(), Code: controlapi.ErrorCode(err)})
}

func apiJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

func apiError(w http.ResponseWriter, status int, msg string) {
	writeAPIError(w, status, controlapi.ErrorBody{Error: msg})
}

func writeAPIError(w http.ResponseWriter, status int, body controlapi.ErrorBody) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}
