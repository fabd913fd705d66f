package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fixedResolver maps every name to fixed addresses (tests only).
type fixedResolver map[string][]netip.Addr

func (f fixedResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := f[host]; ok {
		return a, nil
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a}, nil
	}
	return nil, fmt.Errorf("no such host %s", host)
}

// fixtureServer serves testdata/*.html and a few special routes.
func fixtureServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/page/{name}", func(w http.ResponseWriter, r *http.Request) {
		b, err := os.ReadFile(filepath.Join("testdata", filepath.Base(r.PathValue("name"))))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(b)
	})
	mux.HandleFunc("/big/{kb}", func(w http.ResponseWriter, r *http.Request) {
		var kb int
		_, _ = fmt.Sscan(r.PathValue("kb"), &kb)
		if r.URL.Query().Get("chunked") != "" {
			w.Header().Set("Transfer-Encoding", "chunked")
		} else {
			w.Header().Set("Content-Length", fmt.Sprint(kb*1024))
		}
		w.Header().Set("Content-Type", "text/html")
		chunk := []byte(strings.Repeat("<p>filler text </p>\n", 1024/20) + strings.Repeat(" ", 1024%20))
		for i := 0; i < kb; i++ {
			_, _ = w.Write(chunk)
		}
	})
	mux.HandleFunc("/latin1", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=iso-8859-1")
		_, _ = w.Write([]byte("<html><head><title>Caf\xe9 cr\xe8me</title></head><body></body></html>"))
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func serverAddr(t *testing.T, srv *httptest.Server) netip.AddrPort {
	t.Helper()
	return serverAddrB(t, srv.URL)
}

func serverAddrB(t testing.TB, rawURL string) netip.AddrPort {
	t.Helper()
	u, err := url.Parse(rawURL)
	require.NoError(t, err)
	ap, err := netip.ParseAddrPort(u.Host)
	require.NoError(t, err)
	return ap
}

var fixedNow = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// allowedRegistry reaches srv through the explicit test-only allowance.
func allowedRegistry(t *testing.T, srv *httptest.Server, opts ...Option) *Registry {
	t.Helper()
	opts = append([]Option{withAllowAddr(serverAddr(t, srv)), WithClock(func() time.Time { return fixedNow })}, opts...)
	return newTestRegistry(t, opts...)
}

func extract(t *testing.T, r *Registry, in map[string]any) (extractOutput, error) {
	t.Helper()
	out, err := run(t, r, CapExtractFromURL, in)
	if err != nil {
		return extractOutput{}, err
	}
	var o extractOutput
	require.NoError(t, json.Unmarshal(out, &o))
	return o, nil
}

var allFields = []string{"title", "price_currency", "price_amount", "availability", "brand", "main_image_url",
	"description_short", "published_at", "author"}

func TestExtractJSONLDProduct(t *testing.T) {
	srv := fixtureServer(t)
	r := allowedRegistry(t, srv)
	u := srv.URL + "/page/product-jsonld.html"
	o, err := extract(t, r, map[string]any{"url": u, "fields": append(allFields, "sku", "no_such_field")})
	require.NoError(t, err)
	require.Equal(t, u, o.URL)
	require.Equal(t, "2026-11-29T12:00:00Z", o.ExtractedAt)
	ex := o.Extracted
	require.Equal(t, "Trail Runner 3", ex["title"])
	require.Equal(t, "EUR", ex["price_currency"])
	require.Equal(t, 1299.0, ex["price_amount"])
	require.Equal(t, "in_stock", ex["availability"])
	require.Equal(t, "Peakline", ex["brand"])
	require.Equal(t, "https://cdn.example.com/shoes/tr3-front.jpg", ex["main_image_url"])
	require.Equal(t, "TR3-42", ex["sku"])
	desc := ex["description_short"].(string)
	require.LessOrEqual(t, len(desc), 280)
	require.True(t, strings.HasPrefix(desc, "A lightweight trail running shoe"))
	require.True(t, strings.HasSuffix(desc, "…"))
	for _, f := range []string{"published_at", "author", "no_such_field"} {
		v, ok := ex[f]
		require.True(t, ok, "requested field %s must be present", f)
		require.Nil(t, v, f)
	}
	// 8 JSON-LD fields of 11 requested.
	require.InDelta(t, 8*0.95/11, o.Confidence, 0.001)
}

func TestExtractOpenGraphArticle(t *testing.T) {
	srv := fixtureServer(t)
	r := allowedRegistry(t, srv)
	o, err := extract(t, r, map[string]any{"url": srv.URL + "/page/article-og.html",
		"fields": []string{"title", "description_short", "main_image_url", "published_at", "author", "url"}})
	require.NoError(t, err)
	ex := o.Extracted
	require.Equal(t, "How escrow keeps agent markets honest", ex["title"])
	require.Equal(t, "Buyers lock funds, sellers deliver, verifiers decide.", ex["description_short"])
	require.Equal(t, "https://img.example.org/escrow.png", ex["main_image_url"])
	require.Equal(t, "2026-03-14T09:30:00+01:00", ex["published_at"])
	require.Equal(t, "Ada Example", ex["author"])
	require.Equal(t, "https://news.example.org/escrow", ex["url"])
	require.InDelta(t, (5*0.85+0.75)/6, o.Confidence, 0.001)
}

func TestExtractPlainHTML(t *testing.T) {
	srv := fixtureServer(t)
	r := allowedRegistry(t, srv)
	o, err := extract(t, r, map[string]any{"url": srv.URL + "/page/plain.html",
		"fields": []string{"title", "description_short", "main_image_url", "published_at", "author", "price_amount",
			"price_currency", "availability", "canonical_url"}})
	require.NoError(t, err)
	ex := o.Extracted
	require.Equal(t, "Garden Hose 30m", ex["title"])
	require.Equal(t, "This flexible garden hose is thirty metres long and does not kink when you pull it around corners.", ex["description_short"])
	require.Equal(t, "https://img.example.net/hose.jpg", ex["main_image_url"])
	require.Equal(t, "2025-07-01T00:00:00Z", ex["published_at"])
	require.Equal(t, "Written by Grace Gardener", ex["author"])
	require.Equal(t, 24.5, ex["price_amount"])
	require.Equal(t, "GBP", ex["price_currency"])
	require.Equal(t, "out_of_stock", ex["availability"])
	require.Nil(t, ex["canonical_url"], "an http canonical URL is not an https URL")
	require.InDelta(t, 8*0.45/9, o.Confidence, 0.001)
}

func TestExtractLegacyCharset(t *testing.T) {
	srv := fixtureServer(t)
	o, err := extract(t, allowedRegistry(t, srv), map[string]any{"url": srv.URL + "/latin1", "fields": []string{"title"}})
	require.NoError(t, err)
	require.Equal(t, "Café crème", o.Extracted["title"])
}

func TestExtractMaxResponseKB(t *testing.T) {
	srv := fixtureServer(t)
	r := allowedRegistry(t, srv)
	fields := []string{"title"}
	for _, chunked := range []string{"", "?chunked=1"} {
		_, err := extract(t, r, map[string]any{"url": srv.URL + "/big/600" + chunked, "fields": fields})
		var tl *TooLargeError
		require.True(t, errors.As(err, &tl), "600 KB over the 512 KB default: %v", err)
		require.Equal(t, 415, tl.HTTPStatus())
		require.Equal(t, 512, tl.LimitKB)

		_, err = extract(t, r, map[string]any{"url": srv.URL + "/big/600" + chunked, "fields": fields, "max_response_kb": 700})
		require.NoError(t, err)
		_, err = extract(t, r, map[string]any{"url": srv.URL + "/big/20" + chunked, "fields": fields, "max_response_kb": 10})
		require.True(t, errors.As(err, &tl), "%v", err)
	}
}

func TestExtractInputRejections(t *testing.T) {
	r := newTestRegistry(t)
	testCases := []struct {
		name string
		in   map[string]any
	}{
		{"missing url", map[string]any{"fields": []string{"title"}}},
		{"missing fields", map[string]any{"url": "https://example.com/"}},
		{"empty fields", map[string]any{"url": "https://example.com/", "fields": []string{}}},
		{"bad field name", map[string]any{"url": "https://example.com/", "fields": []string{"Title Case"}}},
		{"max_response_kb too big", map[string]any{"url": "https://example.com/", "fields": []string{"title"}, "max_response_kb": 4097}},
		{"max_response_kb zero", map[string]any{"url": "https://example.com/", "fields": []string{"title"}, "max_response_kb": 0}},
		{"max_response_kb fractional", map[string]any{"url": "https://example.com/", "fields": []string{"title"}, "max_response_kb": 1.5}},
		{"credentials in url", map[string]any{"url": "https://user:pw@example.com/", "fields": []string{"title"}}},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := extract(t, r, tc.in)
			requireInputError(t, err)
		})
	}
}

// TestExtractSSRFRefused: every way of pointing the seller at itself or its
// network is refused with a 400, and the test server is reachable only
// through the explicit test-only allowance.
func TestExtractSSRFRefused(t *testing.T) {
	srv := fixtureServer(t)
	other := fixtureServer(t)
	port := serverAddr(t, srv).Port()
	resolver := fixedResolver{
		"rebind.example":  {netip.MustParseAddr("127.0.0.1")},
		"private.example": {netip.MustParseAddr("10.0.0.7")},
		"mapped.example":  {netip.MustParseAddr("::ffff:127.0.0.1")},
	}
	guarded := newTestRegistry(t, withResolver(resolver), WithFetchTimeout(5*time.Second))
	allowed := allowedRegistry(t, srv, withResolver(resolver), WithFetchTimeout(5*time.Second))
	page := "/page/plain.html"
	testCases := []struct {
		name string
		r    *Registry
		url  string
	}{
		{"file scheme", guarded, "file:///etc/passwd"},
		{"data scheme", guarded, "data:text/html,<title>x</title>"},
		{"ftp scheme", guarded, "ftp://example.com/"},
		{"localhost", guarded, "http://localhost/"},
		{"localhost with port", guarded, fmt.Sprintf("http://localhost:%d%s", port, page)},
		{"sub.localhost", guarded, "http://foo.localhost/"},
		{"127.0.0.1", guarded, "http://127.0.0.1/"},
		{"127.0.0.1 test server without the allowance", guarded, srv.URL + page},
		{"::1", guarded, "http://[::1]/"},
		{"IPv4-mapped loopback", guarded, "http://[::ffff:127.0.0.1]/"},
		{"10.x", guarded, "http://10.1.2.3/"},
		{"192.168.x", guarded, "http://192.168.1.1/"},
		{"0.0.0.0", guarded, "http://0.0.0.0/"},
		{"metadata", guarded, "http://169.254.169.254/latest/meta-data/"},
		{"metadata name", guarded, "http://metadata.google.internal/computeMetadata/v1/"},
		{"ULA IPv6", guarded, "http://[fd00:ec2::254]/"},
		{"hostname resolving to loopback", guarded, fmt.Sprintf("http://rebind.example:%d%s", port, page)},
		{"hostname resolving to private", guarded, "http://private.example/"},
		{"hostname resolving to mapped loopback", guarded, "http://mapped.example/"},
		{"redirect to another loopback server", allowed, srv.URL + "/redirect?to=" + url.QueryEscape(other.URL+page)},
		{"redirect to localhost", allowed, srv.URL + "/redirect?to=" + url.QueryEscape(fmt.Sprintf("http://localhost:%d%s", port, page))},
		{"redirect to file", allowed, srv.URL + "/redirect?to=" + url.QueryEscape("file:///etc/passwd")},
		{"redirect to metadata", allowed, srv.URL + "/redirect?to=" + url.QueryEscape("http://169.254.169.254/")},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := extract(t, tc.r, map[string]any{"url": tc.url, "fields": []string{"title"}})
			ie := requireInputError(t, err)
			require.Contains(t, ie.Error(), "not allowed")
		})
	}
	// The same server is fine through the allowance, and a redirect that
	// stays on the allowed address is followed.
	o, err := extract(t, allowed, map[string]any{"url": srv.URL + "/redirect?to=" + url.QueryEscape(page), "fields": []string{"title"}})
	require.NoError(t, err)
	require.Equal(t, "Garden Hose 30m", o.Extracted["title"])
}

func TestParseAmount(t *testing.T) {
	testCases := []struct {
		in   string
		want any
	}{
		{"1,299.00", 1299.0}, {"1.299,00", 1299.0}, {"1299", 1299.0}, {"12.5", 12.5}, {"$ 1 299,9", 1299.9},
		{"0", 0.0}, {"1,234,567", 1234567.0}, {"free", nil}, {"-5", nil},
	}
	for _, tc := range testCases {
		v, ok := parseAmount(tc.in)
		if tc.want == nil {
			require.False(t, ok, tc.in)
			continue
		}
		require.True(t, ok, tc.in)
		require.Equal(t, tc.want, v, tc.in)
	}
}

func TestShortenLimits(t *testing.T) {
	s := strings.Repeat("ünïcödé wörds ", 100)
	got := shorten(s, 280)
	require.LessOrEqual(t, len(got), 280)
	require.True(t, strings.HasSuffix(got, "…"))
	require.Equal(t, "short", shorten("short", 280))
}
