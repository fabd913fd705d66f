// Package ui is the node's dashboard: a few pages of plain HTML, CSS and
// JavaScript embedded in the binary, served by the daemon on its control
// API address, and the handlers behind them.
//
// The pages read the node through its own control API (/v1/...), with a
// session cookie instead of the CLI's bearer token, plus one route of this
// package, GET /v1/dashboard/summary (earnings and spending per day and per
// capability, from the escrow records). Package node mounts the handlers and
// implements Backend; this package never imports node.
//
// # Security model
//
// The control API listens on loopback only, but a browser is a confused
// deputy: any web page it shows may send requests to 127.0.0.1. So:
//
//   - Login. 'swarmwage dashboard' asks the daemon (with the bearer token of
//     <repo>/api.token) for a one-time credential and opens
//     http://127.0.0.1:PORT/#login=CREDENTIAL. The credential is in the URL
//     fragment, which browsers never send to a server, so it is in no request
//     line, log or Referer. The page POSTs it to /ui/session, which accepts
//     it once and within LoginTTL, and answers with a session cookie
//     (HttpOnly, SameSite=Strict, Path=/); the page then drops the fragment
//     from the address bar with history.replaceState. The same address
//     without a credential or cookie shows a login hint and no data.
//   - Cookie scope. The session cookie opens only the routes the dashboard
//     uses (CookieRoutes): the read-only API routes and adding and removing
//     listings. Hires, deposits, refunds and the login route itself stay
//     bearer-only. Its name carries the port (swarmwage_session_PORT)
//     because cookies are not separated by port: two daemons on one machine
//     must not overwrite each other's session.
//   - CSRF. Besides SameSite=Strict, every cookie request must carry the
//     header X-Swarmwage-Dashboard: 1, which a cross-site page cannot send
//     without a CORS preflight this server never grants. The one exception is
//     GET /v1/events (EventSource cannot set headers): it is read-only, and a
//     cross-site page can neither get the cookie sent nor read the answer.
//   - DNS rebinding. Package node answers 403 to any request whose Host is
//     not 127.0.0.1:PORT, localhost:PORT or [::1]:PORT, so a hostile name
//     that resolves to 127.0.0.1 reaches nothing.
//   - Content-Security-Policy (SecurityHeaders). Every answer of the control
//     API says default-src 'self', no inline scripts or styles,
//     frame-ancestors 'none', and no Referer. The pages build the DOM with
//     textContent only, so a seller's output cannot inject markup.
//
// Sessions and credentials live in memory: a daemon restart logs every
// dashboard out. A process of another user on the same machine can connect
// to the loopback port but holds neither the token nor a cookie; a process
// of the same user can read api.token anyway.
package ui
