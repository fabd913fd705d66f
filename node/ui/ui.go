package ui

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"time"

	"github.com/swarmwage/swarmwage/escrow"
)

// CSRFHeader is the header every cookie-authenticated request of the
// dashboard carries (value "1"). A cross-site page cannot set it without a
// CORS preflight, which this server never answers.
const CSRFHeader = "X-Swarmwage-Dashboard"

const (
	// maxSessionBody caps the body of POST /ui/session: one credential.
	maxSessionBody = 4 << 10
	// defaultDays and maxDays bound the per-day series of the summary.
	defaultDays = 14
	maxDays     = 90
	// eventsPattern is the one cookie route exempt from the CSRF header:
	// the browser's EventSource cannot set headers.
	eventsPattern = "GET /v1/events"
)

//go:embed assets
var assets embed.FS

// Backend is what the dashboard needs from the node besides its control API
// routes. Package node implements it.
type Backend interface {
	// Records lists the node's escrow records (both roles), newest first.
	Records(ctx context.Context) ([]escrow.Record, error)
	// Status is what the overview shows besides GET /v1/id.
	Status(ctx context.Context) Status
}

// Status describes the running node for the overview page.
type Status struct {
	// Version is the binary's version, e.g. "swarmwage/0.1 (devel)".
	Version string `json:"version"`
	// Reachability is what AutoNAT found: "public", "private" or "unknown".
	Reachability string `json:"reachability"`
}

// Config configures a UI.
type Config struct {
	// URL is the control API's base URL, http://127.0.0.1:PORT; login links
	// point there. Required.
	URL string
	// Now is the clock of credentials and sessions. Defaults to time.Now.
	Now func() time.Time
	// Logger defaults to slog.Default().
	Logger *slog.Logger
}

// UI serves the dashboard. It is safe for concurrent use.
type UI struct {
	b        Backend
	base     string
	cookie   string
	now      func() time.Time
	log      *slog.Logger
	logins   *secrets
	sessions *secrets
	public   *http.ServeMux
	// allowed holds the patterns a session cookie opens (CookieRoutes).
	allowed *http.ServeMux
}

// New returns the dashboard of the node behind b.
func New(b Backend, cfg Config) (*UI, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || u.Scheme != "http" || u.Port() == "" {
		return nil, fmt.Errorf("dashboard: API URL %q: want http://HOST:PORT", cfg.URL)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	d := &UI{
		b:        b,
		base:     u.Scheme + "://" + u.Host,
		cookie:   "swarmwage_session_" + u.Port(),
		now:      cfg.Now,
		log:      cfg.Logger.With("subsystem", "swarmwage/ui"),
		logins:   newSecrets(maxLogins),
		sessions: newSecrets(maxSessions),
		public:   http.NewServeMux(),
		allowed:  http.NewServeMux(),
	}
	d.public.HandleFunc("GET /{$}", d.serveIndex)
	d.public.HandleFunc("GET /ui/{file}", d.serveAsset)
	d.public.HandleFunc("POST /ui/session", d.handleSession)
	d.public.HandleFunc("POST /ui/logout", d.handleLogout)
	for _, p := range CookieRoutes() {
		d.allowed.Handle(p, http.NotFoundHandler())
	}
	return d, nil
}

// CookieRoutes are the control API routes a dashboard session may call:
// what the pages read, adding and removing listings, and the evm rail's
// withdrawal. Everything else (hire, deposit, refund, rate, find, minting
// logins) needs the bearer token.
func CookieRoutes() []string {
	return []string{
		"GET /v1/id",
		"GET /v1/peers",
		"GET /v1/listings",
		"POST /v1/listings",
		"DELETE /v1/listings/{id}",
		"GET /v1/wallet",
		"POST /v1/wallet/withdraw",
		"GET /v1/escrow",
		"GET /v1/escrow/{id}",
		"GET /v1/jobs",
		"GET /v1/jobs/{id}",
		eventsPattern,
		"GET /v1/dashboard/summary",
	}
}

// CookieName is the session cookie's name, which carries the API's port.
func (u *UI) CookieName() string { return u.cookie }

// Handler serves the pages, their assets and the login exchange. It needs
// no authentication: the pages hold no data, and they fetch everything
// through the API with the session cookie.
func (u *UI) Handler() http.Handler { return u.public }

// Register adds the dashboard's API routes to the control API's mux, behind
// its authentication: GET /v1/dashboard/summary (cookie or bearer) and
// POST /v1/dashboard/login (bearer only).
func (u *UI) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET /v1/dashboard/summary", u.handleSummary)
	mux.HandleFunc("POST /v1/dashboard/login", u.handleLogin)
}

// HasCookie reports whether r carries a session cookie, valid or not: the
// API then authenticates it with Authorize instead of the bearer token.
func (u *UI) HasCookie(r *http.Request) bool {
	_, err := r.Cookie(u.cookie)
	return err == nil
}

// Authorize checks a cookie request to the control API: a live session,
// a route of CookieRoutes, and the CSRF header. It returns the status code
// to answer with when it refuses.
func (u *UI) Authorize(r *http.Request) (int, error) {
	c, err := r.Cookie(u.cookie)
	if err != nil || !u.sessions.valid(c.Value, u.now()) {
		return http.StatusUnauthorized, ErrNoSession
	}
	_, pattern := u.allowed.Handler(r)
	if pattern == "" {
		return http.StatusForbidden, ErrNotForDashboard
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
		return http.StatusForbidden, fmt.Errorf("%w (Sec-Fetch-Site: %s)", ErrCSRF, site)
	}
	if pattern != eventsPattern && r.Header.Get(CSRFHeader) != "1" {
		return http.StatusForbidden, ErrCSRF
	}
	return 0, nil
}

// LoginInfo is the answer of POST /v1/dashboard/login.
type LoginInfo struct {
	// URL opens the dashboard and logs in, once, before ExpiresAt.
	URL       string    `json:"url"`
	ExpiresAt time.Time `json:"expires_at"`
}

// Login mints a one-time login credential and returns the URL that
// carries it (in the fragment, which the browser never sends).
func (u *UI) Login() (LoginInfo, error) {
	now := u.now()
	exp := now.Add(LoginTTL)
	cred, err := u.logins.add(now, exp)
	if err != nil {
		return LoginInfo{}, fmt.Errorf("mint dashboard login: %w", err)
	}
	return LoginInfo{URL: u.base + "/#login=" + cred, ExpiresAt: exp.UTC()}, nil
}

func (u *UI) handleLogin(w http.ResponseWriter, r *http.Request) {
	if u.HasCookie(r) && r.Header.Get("Authorization") == "" {
		// The API's auth lets cookie requests through only to CookieRoutes,
		// which this is not; refuse here too, so a change there cannot
		// let a session mint more logins.
		writeError(w, http.StatusForbidden, ErrNotForDashboard)
		return
	}
	info, err := u.Login()
	if err != nil {
		writeError(w, http.StatusInternalServerError, err)
		return
	}
	writeJSON(w, info)
}

// sessionRequest is the body of POST /ui/session.
type sessionRequest struct {
	Credential string `json:"credential"`
}

// handleSession exchanges a one-time credential for a session cookie.
func (u *UI) handleSession(w http.ResponseWriter, r *http.Request) {
	if err := sameOrigin(r); err != nil {
		writeError(w, http.StatusForbidden, err)
		return
	}
	var req sessionRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxSessionBody)).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, fmt.Errorf("decode login: %w", err))
		return
	}
	now := u.now()
	if req.Credential == "" || !u.logins.take(req.Credential, now) {
		u.log.Info("dashboard login refused: credential unknown, used or expired")
		writeError(w, http.StatusUnauthorized, ErrBadCredential)
		return
	}
	sid, err := u.sessions.add(now, now.Add(SessionTTL))
	if err != nil {
		writeError(w, http.StatusInternalServerError, fmt.Errorf("start session: %w", err))
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: u.cookie, Value: sid, Path: "/", MaxAge: int(SessionTTL / time.Second),
		HttpOnly: true, SameSite: http.SameSiteStrictMode,
	})
	u.log.Info("dashboard login")
	writeJSON(w, map[string]bool{"ok": true})
}

func (u *UI) handleLogout(w http.ResponseWriter, r *http.Request) {
	if err := sameOrigin(r); err != nil {
		writeError(w, http.StatusForbidden, err)
		return
	}
	if c, err := r.Cookie(u.cookie); err == nil {
		u.sessions.remove(c.Value)
	}
	http.SetCookie(w, &http.Cookie{Name: u.cookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	w.WriteHeader(http.StatusNoContent)
}

// sameOrigin checks a state-changing request to /ui/: the CSRF header, and
// the Origin the browser sends, when it sends one.
func sameOrigin(r *http.Request) error {
	if r.Header.Get(CSRFHeader) != "1" {
		return ErrCSRF
	}
	if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host {
		return fmt.Errorf("origin %q is not this dashboard", o)
	}
	return nil
}

func (u *UI) handleSummary(w http.ResponseWriter, r *http.Request) {
	days := defaultDays
	if s := r.URL.Query().Get("days"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxDays {
			writeError(w, http.StatusBadRequest, fmt.Errorf("days %q: want 1 to %d", s, maxDays))
			return
		}
		days = n
	}
	recs, err := u.b.Records(r.Context())
	if err != nil {
		writeError(w, http.StatusInternalServerError, err)
		return
	}
	st := u.b.Status(r.Context())
	sum := Summarize(recs, u.now(), days)
	sum.Version, sum.Reachability = st.Version, st.Reachability
	writeJSON(w, sum)
}

func (u *UI) serveIndex(w http.ResponseWriter, r *http.Request) {
	u.serveFile(w, "index.html")
}

func (u *UI) serveAsset(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	if name == "index.html" || path.Base(name) != name {
		http.NotFound(w, r)
		return
	}
	u.serveFile(w, name)
}

func (u *UI) serveFile(w http.ResponseWriter, name string) {
	data, err := fs.ReadFile(assets, "assets/"+name)
	if errors.Is(err, fs.ErrNotExist) {
		http.Error(w, "404 page not found", http.StatusNotFound)
		return
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, err)
		return
	}
	ct := mime.TypeByExtension(path.Ext(name))
	if ct == "" {
		ct = "application/octet-stream"
	}
	w.Header().Set("Content-Type", ct)
	// Revalidate: a new binary serves new assets under the same names.
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(data)
}

// SecurityHeaders sets the headers every answer of the control API carries:
// a strict Content-Security-Policy (only this origin's own files, no inline
// script or style, no framing), no MIME sniffing, no Referer.
func SecurityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
}

// ContentSecurityPolicy is the policy of every control API answer. Charts
// are SVG built through the DOM, so no 'unsafe-inline' is needed anywhere.
const ContentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

func writeError(w http.ResponseWriter, status int, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": err.Error()})
}
