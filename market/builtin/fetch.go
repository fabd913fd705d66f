package builtin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"code.dny.dev/ssrf"
)

// The extractor's HTTP client is SSRF-safe at dial time: every connection,
// including those made for redirects, resolves the host itself and passes
// each address through code.dny.dev/ssrf before connecting, so DNS rebinding
// or a redirect to an internal address cannot get through. The guard refuses
// loopback, private (RFC 1918, ULA), link-local (169.254/16 with the cloud
// metadata address, fe80::/10), CGNAT, multicast and the other IANA special
// purpose ranges, and ports other than 80 and 443. Host names "localhost",
// "*.localhost" and the well-known metadata names are refused before DNS.
// No proxy from the environment is used.

const (
	defaultFetchTimeout = 20 * time.Second
	maxRedirects        = 5
	fetchUserAgent      = "swarmwage-builtin/0.1 (+data.extract.from-url)"
)

func newSafeClient(cfg *config) *http.Client {
	guard := ssrf.New()
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	allowed := slices.Clone(cfg.allowAddrs)
	dialer.Control = func(network, address string, rc syscall.RawConn) error {
		if ap, err := netip.ParseAddrPort(address); err == nil && slices.Contains(allowed, ap) {
			return nil
		}
		if err := guard.Safe(network, address, rc); err != nil {
			return fmt.Errorf("%w: %v", errBlockedDestination, err)
		}
		return nil
	}
	resolve := cfg.resolver
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		if blockedHostName(host) {
			return nil, fmt.Errorf("%w: host %q", errBlockedDestination, host)
		}
		ips, err := resolve.LookupNetIP(ctx, "ip", strings.Trim(host, "[]"))
		if err != nil {
			return nil, fmt.Errorf("resolve %s: %w", host, err)
		}
		var errs []error
		for _, ip := range ips {
			conn, err := dialer.DialContext(ctx, "tcp", net.JoinHostPort(ip.Unmap().String(), port))
			if err == nil {
				return conn, nil
			}
			errs = append(errs, err)
		}
		if len(errs) == 0 {
			return nil, fmt.Errorf("resolve %s: no addresses", host)
		}
		return nil, errors.Join(errs...)
	}
	transport := &http.Transport{
		Proxy:                  nil,
		DialContext:            dial,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    10 * time.Second,
		ResponseHeaderTimeout:  15 * time.Second,
		MaxIdleConns:           16,
		IdleConnTimeout:        60 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
	}
	return &http.Client{
		Transport: transport,
		Timeout:   cfg.fetchTimeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= maxRedirects {
				return fmt.Errorf("stopped after %d redirects", maxRedirects)
			}
			return checkFetchURL(req.URL)
		},
	}
}

// checkFetchURL refuses URLs that are not plain http(s) to a public-looking
// host. It is a fast, explicit first line; the dial-time guard is the one that
// cannot be bypassed.
func checkFetchURL(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%w: scheme %q (only http and https)", errBlockedDestination, u.Scheme)
	}
	if u.User != nil {
		return fmt.Errorf("%w: URLs with credentials are refused", errBlockedDestination)
	}
	host := u.Hostname()
	if host == "" {
		return fmt.Errorf("%w: URL has no host", errBlockedDestination)
	}
	if blockedHostName(host) {
		return fmt.Errorf("%w: host %q", errBlockedDestination, host)
	}
	if p := u.Port(); p != "" {
		if _, err := strconv.ParseUint(p, 10, 16); err != nil {
			return fmt.Errorf("%w: port %q", errBlockedDestination, p)
		}
	}
	return nil
}

func blockedHostName(host string) bool {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	return h == "localhost" || strings.HasSuffix(h, ".localhost") ||
		h == "metadata.google.internal" || h == "metadata" || strings.HasSuffix(h, ".internal")
}

// fetchPage GETs u and returns at most limit bytes of body, the
// Content-Type and the final URL after redirects. A body longer than limit is
// a *TooLargeError.
func fetchPage(ctx context.Context, client *http.Client, u *url.URL, limit int64, limitKB int) ([]byte, string, *url.URL, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, "", nil, inputErr(CapExtractFromURL, fmt.Sprintf("url: %v", err))
	}
	req.Header.Set("User-Agent", fetchUserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5")
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(err, errBlockedDestination) {
			return nil, "", nil, inputErr(CapExtractFromURL, fmt.Sprintf("url %s: %v", u.Redacted(), errors.Unwrap(err)))
		}
		return nil, "", nil, fmt.Errorf("fetch %s: %w", u.Redacted(), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, "", nil, fmt.Errorf("fetch %s: HTTP status %s", u.Redacted(), resp.Status)
	}
	if resp.ContentLength > limit {
		return nil, "", nil, &TooLargeError{Capability: CapExtractFromURL, URL: u.Redacted(), LimitKB: limitKB, SizeBytes: resp.ContentLength}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, "", nil, fmt.Errorf("read %s: %w", u.Redacted(), err)
	}
	if int64(len(body)) > limit {
		return nil, "", nil, &TooLargeError{Capability: CapExtractFromURL, URL: u.Redacted(), LimitKB: limitKB, SizeBytes: int64(len(body))}
	}
	return body, resp.Header.Get("Content-Type"), resp.Request.URL, nil
}
