package ui

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
)

type fakeBackend struct{ recs []escrow.Record }

func (f fakeBackend) Records(context.Context) ([]escrow.Record, error) { return f.recs, nil }
func (f fakeBackend) Status(context.Context) Status {
	return Status{Version: "swarmwage/0.1 test", Reachability: "private"}
}

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func newTestUI(t *testing.T, recs ...escrow.Record) (*UI, *clock) {
	t.Helper()
	c := &clock{t: time.Date(2026, 5, 10, 15, 0, 0, 0, time.UTC)}
	u, err := New(fakeBackend{recs: recs}, Config{URL: "http://127.0.0.1:5801", Now: c.now, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	return u, c
}

// credentialOf cuts the credential out of a login URL.
func credentialOf(t *testing.T, url string) string {
	t.Helper()
	base, cred, ok := strings.Cut(url, "/#login=")
	require.True(t, ok, url)
	require.Equal(t, "http://127.0.0.1:5801", base)
	require.Len(t, cred, 2*secretBytes)
	return cred
}

// exchange posts a credential to /ui/session as the page does.
func exchange(u *UI, cred string, header bool) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:5801/ui/session", strings.NewReader(`{"credential":"`+cred+`"}`))
	if header {
		req.Header.Set(CSRFHeader, "1")
	}
	w := httptest.NewRecorder()
	u.Handler().ServeHTTP(w, req)
	return w
}

func sessionCookie(t *testing.T, u *UI, w *httptest.ResponseRecorder) *http.Cookie {
	t.Helper()
	for _, c := range w.Result().Cookies() {
		if c.Name == u.CookieName() {
			return c
		}
	}
	t.Fatalf("no %s cookie in %v", u.CookieName(), w.Result().Header)
	return nil
}

func TestLoginCredentialWorksOnceForASessionCookie(t *testing.T) {
	u, _ := newTestUI(t)
	info, err := u.Login()
	require.NoError(t, err)
	cred := credentialOf(t, info.URL)

	w := exchange(u, cred, true)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	c := sessionCookie(t, u, w)
	require.Equal(t, "swarmwage_session_5801", c.Name)
	require.True(t, c.HttpOnly)
	require.Equal(t, http.SameSiteStrictMode, c.SameSite)
	require.Equal(t, "/", c.Path)
	require.Equal(t, int(SessionTTL/time.Second), c.MaxAge)
	require.NotContains(t, c.Value, cred, "the session is not the credential")

	// Replayed: refused, and no cookie.
	w = exchange(u, cred, true)
	require.Equal(t, http.StatusUnauthorized, w.Code)
	require.Contains(t, w.Body.String(), "used or has expired")
	require.Empty(t, w.Result().Cookies())
}

func TestLoginCredentialExpires(t *testing.T) {
	u, clk := newTestUI(t)
	info, err := u.Login()
	require.NoError(t, err)
	require.Equal(t, clk.now().Add(LoginTTL), info.ExpiresAt)
	clk.add(LoginTTL)
	w := exchange(u, credentialOf(t, info.URL), true)
	require.Equal(t, http.StatusUnauthorized, w.Code)
}

func TestSessionRefusesBadExchanges(t *testing.T) {
	testCases := []struct {
		name   string
		body   string
		header bool
		origin string
		want   int
	}{
		{name: "no CSRF header", body: "VALID", want: http.StatusForbidden},
		{name: "cross origin", body: "VALID", header: true, origin: "http://evil.example", want: http.StatusForbidden},
		{name: "unknown credential", body: strings.Repeat("ab", secretBytes), header: true, want: http.StatusUnauthorized},
		{name: "empty credential", body: "", header: true, want: http.StatusUnauthorized},
		{name: "not JSON", body: "\x00", header: true, want: http.StatusBadRequest},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			u, _ := newTestUI(t)
			info, err := u.Login()
			require.NoError(t, err)
			body := `{"credential":"` + strings.ReplaceAll(tc.body, "VALID", credentialOf(t, info.URL)) + `"}`
			if tc.body == "\x00" {
				body = "not json"
			}
			req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:5801/ui/session", strings.NewReader(body))
			if tc.header {
				req.Header.Set(CSRFHeader, "1")
			}
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			w := httptest.NewRecorder()
			u.Handler().ServeHTTP(w, req)
			require.Equal(t, tc.want, w.Code, w.Body.String())
			require.Empty(t, w.Result().Cookies())
		})
	}
}

func TestAuthorizeCookieRequests(t *testing.T) {
	u, clk := newTestUI(t)
	info, err := u.Login()
	require.NoError(t, err)
	w := exchange(u, credentialOf(t, info.URL), true)
	require.Equal(t, http.StatusOK, w.Code)
	good := sessionCookie(t, u, w)

	testCases := []struct {
		name   string
		method string
		path   string
		cookie string
		csrf   bool
		site   string
		want   int
	}{
		{name: "read route", method: "GET", path: "/v1/jobs", csrf: true, want: 0},
		{name: "job detail", method: "GET", path: "/v1/jobs/abc", csrf: true, want: 0},
		{name: "escrow receipts", method: "GET", path: "/v1/escrow/abc", csrf: true, want: 0},
		{name: "add listing", method: "POST", path: "/v1/listings", csrf: true, want: 0},
		{name: "remove listing", method: "DELETE", path: "/v1/listings/compute.statistics.mean", csrf: true, want: 0},
		{name: "summary", method: "GET", path: "/v1/dashboard/summary", csrf: true, want: 0},
		{name: "events without header (EventSource)", method: "GET", path: "/v1/events", want: 0},
		{name: "same-origin fetch", method: "GET", path: "/v1/id", csrf: true, site: "same-origin", want: 0},
		{name: "read without CSRF header", method: "GET", path: "/v1/jobs", want: http.StatusForbidden},
		{name: "cross-site fetch", method: "GET", path: "/v1/id", csrf: true, site: "cross-site", want: http.StatusForbidden},
		{name: "hire is bearer only", method: "POST", path: "/v1/hire", csrf: true, want: http.StatusForbidden},
		{name: "deposit is bearer only", method: "POST", path: "/v1/wallet/deposit", csrf: true, want: http.StatusForbidden},
		{name: "refund is bearer only", method: "POST", path: "/v1/escrow/abc/refund", csrf: true, want: http.StatusForbidden},
		{name: "minting logins is bearer only", method: "POST", path: "/v1/dashboard/login", csrf: true, want: http.StatusForbidden},
		{name: "find is bearer only", method: "GET", path: "/v1/find", csrf: true, want: http.StatusForbidden},
		{name: "unknown session", method: "GET", path: "/v1/jobs", cookie: strings.Repeat("cd", secretBytes), csrf: true, want: http.StatusUnauthorized},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, "http://127.0.0.1:5801"+tc.path, nil)
			v := good.Value
			if tc.cookie != "" {
				v = tc.cookie
			}
			req.AddCookie(&http.Cookie{Name: u.CookieName(), Value: v})
			if tc.csrf {
				req.Header.Set(CSRFHeader, "1")
			}
			if tc.site != "" {
				req.Header.Set("Sec-Fetch-Site", tc.site)
			}
			require.True(t, u.HasCookie(req))
			status, err := u.Authorize(req)
			require.Equal(t, tc.want, status, "%v", err)
			require.Equal(t, tc.want == 0, err == nil)
		})
	}

	// The session ends after SessionTTL.
	clk.add(SessionTTL)
	req := httptest.NewRequest("GET", "http://127.0.0.1:5801/v1/jobs", nil)
	req.AddCookie(good)
	req.Header.Set(CSRFHeader, "1")
	status, err := u.Authorize(req)
	require.Equal(t, http.StatusUnauthorized, status)
	require.ErrorIs(t, err, ErrNoSession)
}

func TestLogoutEndsTheSession(t *testing.T) {
	u, _ := newTestUI(t)
	info, err := u.Login()
	require.NoError(t, err)
	c := sessionCookie(t, u, exchange(u, credentialOf(t, info.URL), true))
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:5801/ui/logout", nil)
	req.Header.Set(CSRFHeader, "1")
	req.AddCookie(c)
	w := httptest.NewRecorder()
	u.Handler().ServeHTTP(w, req)
	require.Equal(t, http.StatusNoContent, w.Code)
	req = httptest.NewRequest("GET", "http://127.0.0.1:5801/v1/jobs", nil)
	req.AddCookie(c)
	req.Header.Set(CSRFHeader, "1")
	status, _ := u.Authorize(req)
	require.Equal(t, http.StatusUnauthorized, status)
}

func TestOutstandingLoginsAndSessionsAreCapped(t *testing.T) {
	u, _ := newTestUI(t)
	var creds []string
	for range maxLogins + 3 {
		info, err := u.Login()
		require.NoError(t, err)
		creds = append(creds, credentialOf(t, info.URL))
	}
	require.Len(t, u.logins.items, maxLogins)
	// The newest work; the oldest were evicted.
	require.Equal(t, http.StatusOK, exchange(u, creds[len(creds)-1], true).Code)
	require.Equal(t, http.StatusUnauthorized, exchange(u, creds[0], true).Code)
	for range maxSessions + 2 {
		info, err := u.Login()
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, exchange(u, credentialOf(t, info.URL), true).Code)
	}
	require.Len(t, u.sessions.items, maxSessions)
}

func TestPagesAndAssetsAreServedWithoutData(t *testing.T) {
	u, _ := newTestUI(t)
	testCases := []struct {
		path, ctype string
		want        int
	}{
		{"/", "text/html", http.StatusOK},
		{"/ui/app.js", "javascript", http.StatusOK},
		{"/ui/charts.js", "javascript", http.StatusOK},
		{"/ui/style.css", "text/css", http.StatusOK},
		{"/ui/favicon.svg", "image/svg+xml", http.StatusOK},
		{"/ui/index.html", "", http.StatusNotFound},
		{"/ui/", "", http.StatusNotFound},
		{"/ui/missing.js", "", http.StatusNotFound},
		{"/ui/..%2fui.go", "", http.StatusNotFound},
		{"/anything", "", http.StatusNotFound},
	}
	for _, tc := range testCases {
		t.Run(tc.path, func(t *testing.T) {
			w := httptest.NewRecorder()
			u.Handler().ServeHTTP(w, httptest.NewRequest("GET", "http://127.0.0.1:5801"+tc.path, nil))
			require.Equal(t, tc.want, w.Code)
			if tc.ctype != "" {
				require.Contains(t, w.Header().Get("Content-Type"), tc.ctype)
			}
		})
	}
}

func TestIndexHasNoInlineScriptOrStyle(t *testing.T) {
	// The CSP forbids inline code; an inline block would silently not run.
	page, err := assets.ReadFile("assets/index.html")
	require.NoError(t, err)
	s := string(page)
	require.NotContains(t, s, "<style")
	require.NotContains(t, s, "style=")
	require.NotRegexp(t, `\son[a-z]+=`, s, "inline event handler")
	for _, tag := range strings.Split(s, "<script")[1:] {
		require.Contains(t, strings.SplitN(tag, ">", 2)[0], "src=", "inline <script> in index.html")
	}
	for _, name := range []string{"app.js", "charts.js"} {
		js, err := assets.ReadFile("assets/" + name)
		require.NoError(t, err)
		require.NotRegexp(t, `\.(inner|outer)HTML\b|insertAdjacentHTML|document\.write|\beval\(|new Function`, string(js),
			"%s builds the DOM with textContent only", name)
	}
}

func TestSummaryRouteNeedsSaneDays(t *testing.T) {
	u, _ := newTestUI(t)
	mux := http.NewServeMux()
	u.Register(mux)
	for q, want := range map[string]int{"": 200, "?days=1": 200, "?days=90": 200, "?days=0": 400, "?days=91": 400, "?days=x": 400} {
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, httptest.NewRequest("GET", "http://127.0.0.1:5801/v1/dashboard/summary"+q, nil))
		require.Equal(t, want, w.Code, q)
		if want == 200 {
			var s Summary
			require.NoError(t, json.Unmarshal(w.Body.Bytes(), &s))
			require.Equal(t, "private", s.Reachability)
			require.Equal(t, "swarmwage/0.1 test", s.Version)
		}
	}
}

func TestNewRejectsABadURL(t *testing.T) {
	for _, url := range []string{"", "127.0.0.1:5801", "https://127.0.0.1:5801", "http://127.0.0.1"} {
		_, err := New(fakeBackend{}, Config{URL: url})
		require.Error(t, err, url)
	}
}

// FuzzSessionExchangeNoPanic feeds the login exchange, the one handler that
// decodes a body without authentication, arbitrary bytes.
func FuzzSessionExchangeNoPanic(f *testing.F) {
	f.Add([]byte(`{"credential":"00"}`), "1")
	f.Add([]byte(`{"credential":1}`), "1")
	f.Add([]byte(`{`), "")
	f.Add([]byte(strings.Repeat("a", maxSessionBody+10)), "1")
	f.Fuzz(func(t *testing.T, body []byte, csrf string) {
		u, _ := newTestUI(t)
		req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:5801/ui/session", strings.NewReader(string(body)))
		req.Header.Set(CSRFHeader, csrf)
		w := httptest.NewRecorder()
		u.Handler().ServeHTTP(w, req)
		if w.Code == http.StatusOK {
			t.Fatalf("a made-up credential logged in: %q", body)
		}
	})
}
