package ui_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/node"
	"github.com/swarmwage/swarmwage/node/nodetest"
)

const testNetwork = "uitest"

func init() { nodetest.RaiseFileLimit() }

// TestDashboardInARealBrowser drives Debian's chromium, headless, against
// two real nodes (Badger on disk, libp2p on loopback) after a hire between
// them: the buyer's pages show the job and the balance, the seller's the
// listing and its earnings; a job started while the page is open shows up
// and settles without a reload; no credential shows no data; a replayed
// credential fails. Screenshots of every page are kept (the test logs where).
func TestDashboardInARealBrowser(t *testing.T) {
	chrome := needChromium(t)
	shots := artifactDir(t)
	ctx := context.Background()

	gate := filepath.Join(t.TempDir(), "gate")
	worker := slowMedianWorker(t, gate)
	boot := nodetest.Start(t, nodetest.NewRepo(t, testNetwork), node.Options{})
	seller := nodetest.Start(t, nodetest.NewRepo(t, testNetwork), node.Options{}, boot)
	buyer := nodetest.Start(t, nodetest.NewRepo(t, testNetwork), node.Options{}, boot)
	sellerAPI := dial(t, seller)
	_, err := sellerAPI.AddListing(ctx, controlapi.AddListingRequest{Capability: "compute.statistics.mean", Price: "0.05", Handler: "builtin"})
	require.NoError(t, err)
	_, err = sellerAPI.AddListing(ctx, controlapi.AddListingRequest{Capability: "compute.statistics.median", Price: "0.02", Handler: "exec:/bin/sh " + worker})
	require.NoError(t, err)
	nodetest.WaitReady(t, boot, seller, buyer)
	require.NoError(t, buyer.Escrow.Deposit(ctx, nodetest.Amount(t, "10"), "test"))
	first := hire(t, buyer, "compute.statistics.mean", `{"data":[1,2,3,4]}`)
	require.Equal(t, controlapi.OutcomeReleased, first.Outcome, first.Error)
	require.Eventually(t, func() bool {
		b, err := seller.Escrow.Balance(ctx)
		return err == nil && b.Earned == nodetest.Amount(t, "0.05")
	}, 20*time.Second, 20*time.Millisecond)

	browser := startBrowser(t, chrome)

	// The buyer: overview with its peer ID and balance.
	buyerLogin := login(t, buyer)
	b := newTab(t, browser)
	b.open(buyerLogin)
	b.waitReady("overview")
	loc := b.eval(`location.href`)
	require.NotContains(t, loc, "login=", "the credential is dropped from the address bar")
	require.Equal(t, buyer.APIURL()+"/#/overview", loc)
	require.Equal(t, buyer.Host.ID().String(), b.text(`[data-field="peer id"]`))
	require.Equal(t, "9.95 credits", b.text(`[data-field="available"]`))
	require.Equal(t, "0.05 credits", b.text(`[data-field="paid"]`))
	require.Equal(t, testNetwork, b.text(`[data-field="network"]`))
	require.Contains(t, b.text(`[data-field="version"]`), node.UserAgent)
	require.NotEqual(t, "0", b.text(`[data-field="peers"]`))
	b.shot(shots, "buyer-overview")

	// Jobs: the hire, released.
	b.nav("jobs")
	b.waitFor(fmt.Sprintf(`tr[data-job=%q][data-outcome="released"]`, first.JobID))
	require.Contains(t, b.text(fmt.Sprintf(`tr[data-job=%q]`, first.JobID)), "compute.statistics.mean")
	b.shot(shots, "buyer-jobs")

	// Live: a job started while the page is open appears running, then
	// settles, without a reload (the marker survives).
	b.eval(`window.noReload = 'still here'`)
	slow := make(chan controlapi.HireInfo, 1)
	go func() { slow <- hireInfo(buyer, "compute.statistics.median", `{"data":[1,2,3,4]}`) }()
	b.waitFor(`#jobs tr[data-role="buyer"][data-outcome="running"]`)
	slowID := b.eval(`document.querySelector('#jobs tr[data-outcome="running"]').dataset.job`)
	b.shot(shots, "buyer-jobs-running")
	require.NoError(t, os.WriteFile(gate, nil, 0o600))
	b.waitFor(fmt.Sprintf(`tr[data-job=%q][data-outcome="released"]`, slowID))
	require.Equal(t, "still here", b.eval(`window.noReload`), "the page reloaded instead of updating live")
	res := <-slow
	require.Equal(t, controlapi.OutcomeReleased, res.Outcome, res.Error)
	require.Equal(t, slowID, res.JobID)
	require.Equal(t, "live", b.text(`#live`))

	// Filters: by capability and by role.
	b.selectValue("#filter-capability", "compute.statistics.median")
	require.Equal(t, "1", b.eval(`String(document.querySelectorAll('#jobs tbody tr').length)`))
	b.selectValue("#filter-role", "seller")
	b.waitFor(`#jobs-table .empty`)
	b.selectValue("#filter-role", "")
	b.selectValue("#filter-capability", "")
	b.selectValue("#filter-outcome", "released")
	require.Equal(t, "2", b.eval(`String(document.querySelectorAll('#jobs tbody tr').length)`))

	// A job's detail: input, output, checks, escrow and signed receipts.
	b.click(fmt.Sprintf(`tr[data-job=%q]`, first.JobID))
	b.waitFor(`#job-receipts [data-receipt="settle"]`)
	require.Contains(t, b.text("#job-input"), `"data"`)
	require.JSONEq(t, `{"result":2.5}`, b.text("#job-output"))
	require.Equal(t, "released", b.text(`#job-escrow [data-state]`))
	passed := b.eval(`String(document.querySelectorAll('#job-checks tr[data-passed="true"]').length)`)
	require.Equal(t, fmt.Sprint(len(first.Verification.Checks)), passed)
	require.Equal(t, "0", b.eval(`String(document.querySelectorAll('#job-checks tr[data-passed="false"]').length)`))
	rec, err := buyer.Escrow.Get(ctx, first.JobID)
	require.NoError(t, err)
	var lock map[string]any
	require.NoError(t, json.Unmarshal([]byte(b.text(`[data-receipt="lock"] pre`)), &lock))
	require.Equal(t, rec.Lock.JobID, lock["job_id"])
	require.NotEmpty(t, lock["signature"])
	require.Contains(t, b.text(`[data-receipt="delivery"] pre`), rec.Delivery.OutputHash)
	require.Contains(t, b.text(`[data-receipt="settle"] pre`), `"decision": "release"`)
	b.shot(shots, "buyer-job-detail")

	// Money: what it spent, per capability and per day.
	b.nav("money")
	b.waitFor(`#money-caps tr[data-capability="compute.statistics.mean"]`)
	require.Equal(t, "0.05", b.text(`#money-caps tr[data-capability="compute.statistics.mean"] [data-field="spent"]`))
	require.Equal(t, "0.02", b.text(`#money-caps tr[data-capability="compute.statistics.median"] [data-field="spent"]`))
	require.Equal(t, "2", b.eval(`String(document.querySelectorAll('#chart-caps rect.spent').length)`))
	require.Equal(t, "1", b.eval(`String(document.querySelectorAll('#chart-days rect.spent').length)`), "today's spending is one bar")
	require.True(t, b.evalBool(`document.getElementById('evm').hidden`), "the evm section shows only on the evm rail")
	b.shot(shots, "buyer-money")

	// The seller, in a browser profile of its own: listings with jobs
	// served and earnings.
	s := newTab(t, browser)
	s.open(login(t, seller))
	s.waitReady("overview")
	require.Equal(t, seller.Host.ID().String(), s.text(`[data-field="peer id"]`))
	require.Equal(t, "0.07 credits", s.text(`[data-field="earned"]`))
	s.shot(shots, "seller-overview")
	s.nav("listings")
	mean := `#listings tr[data-capability="compute.statistics.mean"]`
	s.waitFor(mean)
	require.Equal(t, "1", s.text(mean+` [data-field="served"]`))
	require.Equal(t, "0.05", s.text(mean+` [data-field="earned"]`))
	require.Equal(t, "0.02", s.text(`#listings tr[data-capability="compute.statistics.median"] [data-field="earned"]`))
	s.shot(shots, "seller-listings")

	// Add a listing from the form, and remove one (two clicks).
	s.typeInto(`#ls-form input[name="capability"]`, "compute.statistics.stddev")
	s.typeInto(`#ls-form input[name="price"]`, "0.03")
	s.click(`#ls-form button[type="submit"]`)
	s.waitFor(`#listings tr[data-capability="compute.statistics.stddev"]`)
	o, err := seller.Market.Store().Get(ctx, "compute.statistics.stddev")
	require.NoError(t, err)
	require.Equal(t, "0.03", o.Signed.Listing.Price.String())
	s.typeInto(`#ls-form input[name="capability"]`, "compute.nothing.here")
	s.typeInto(`#ls-form input[name="price"]`, "0.01")
	s.click(`#ls-form button[type="submit"]`)
	s.waitFor(`#ls-msg.bad`)
	require.Contains(t, s.text("#ls-msg"), "compute.nothing.here")
	s.shot(shots, "seller-listings-added")
	s.click(`#listings tr[data-capability="compute.statistics.stddev"] button.danger`)
	s.click(`#listings tr[data-capability="compute.statistics.stddev"] button.danger.armed`)
	s.waitGone(`#listings tr[data-capability="compute.statistics.stddev"]`)
	_, err = seller.Market.Store().Get(ctx, "compute.statistics.stddev")
	require.ErrorIs(t, err, market.ErrNotListed)

	s.nav("jobs")
	s.waitFor(fmt.Sprintf(`tr[data-job=%q][data-role="seller"][data-outcome="released"]`, slowID))
	s.shot(shots, "seller-jobs")
	s.nav("money")
	s.waitFor(`#money-caps tr[data-capability="compute.statistics.mean"]`)
	require.Equal(t, "0.05", s.text(`#money-caps tr[data-capability="compute.statistics.mean"] [data-field="earned"]`))
	require.Equal(t, "1", s.eval(`String(document.querySelectorAll('#chart-days rect.earned').length)`))
	s.shot(shots, "seller-money")

	// No credential: a login hint and no data, and the API refuses it.
	anon := newTab(t, browser)
	anon.open(buyer.APIURL() + "/")
	anon.waitFor(`body[data-auth="none"] #login:not([hidden])`)
	require.Empty(t, anon.eval(`document.getElementById('page').textContent`))
	require.NotContains(t, anon.eval(`document.body.innerText`), buyer.Host.ID().String())
	require.Equal(t, "401", anon.evalAwait(`fetch('/v1/id', {headers: {'X-Swarmwage-Dashboard': '1'}}).then(r => String(r.status))`))
	anon.shot(shots, "no-credential")

	// A replayed credential fails, in a fresh profile too.
	replay := newTab(t, browser)
	replay.open(buyerLogin)
	replay.waitFor(`body[data-auth="none"] #login:not([hidden])`)
	require.Contains(t, replay.text("#login-msg"), "used or has expired")
	require.NotContains(t, replay.eval(`location.href`), "login=")
	replay.shot(shots, "replayed-credential")
}

// TestControlAPIRefusesAForeignHost: a page on a name that resolves to
// 127.0.0.1 (DNS rebinding) sends that name as Host, and gets nothing, even
// with the right token; every answer carries the CSP.
func TestControlAPIRefusesAForeignHost(t *testing.T) {
	n := nodetest.Start(t, nodetest.NewRepo(t, testNetwork), node.Options{})
	token, err := os.ReadFile(filepath.Join(n.Repo.Dir, "api.token"))
	require.NoError(t, err)
	port := n.APIURL()[strings.LastIndex(n.APIURL(), ":")+1:]
	testCases := []struct {
		host string
		path string
		want int
	}{
		{"rebind.example:" + port, "/v1/id", http.StatusForbidden},
		{"rebind.example:" + port, "/", http.StatusForbidden},
		{"rebind.example:" + port, "/ui/app.js", http.StatusForbidden},
		{"127.0.0.2:" + port, "/v1/id", http.StatusForbidden},
		{"localhost:1", "/v1/id", http.StatusForbidden},
		{"127.0.0.1:" + port, "/v1/id", http.StatusOK},
		{"localhost:" + port, "/v1/id", http.StatusOK},
		{"LOCALHOST:" + port, "/v1/id", http.StatusOK},
		{"[::1]:" + port, "/v1/id", http.StatusOK},
		{"127.0.0.1:" + port, "/", http.StatusOK},
	}
	for _, tc := range testCases {
		t.Run(tc.host+tc.path, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, n.APIURL()+tc.path, nil)
			require.NoError(t, err)
			req.Host = tc.host
			req.Header.Set("Authorization", "Bearer "+string(token))
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			require.Equal(t, tc.want, resp.StatusCode)
			csp := resp.Header.Get("Content-Security-Policy")
			for _, d := range []string{"default-src 'self'", "script-src 'self'", "frame-ancestors 'none'"} {
				require.Contains(t, csp, d)
			}
			require.NotContains(t, csp, "unsafe-inline")
		})
	}
}

// TestSessionCookieOpensOnlyTheDashboardRoutes runs the login exchange
// against a real node, then uses the cookie as a browser would: reads work
// with the CSRF header, the event stream works without it, a hire or a
// deposit does not, and the bearer token still works for the CLI.
func TestSessionCookieOpensOnlyTheDashboardRoutes(t *testing.T) {
	n := nodetest.Start(t, nodetest.NewRepo(t, testNetwork), node.Options{})
	info := login(t, n)
	cred := info[strings.Index(info, "#login=")+len("#login="):]
	post := func(body string) *http.Response {
		req, err := http.NewRequest(http.MethodPost, n.APIURL()+"/ui/session", strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("X-Swarmwage-Dashboard", "1")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp
	}
	resp := post(`{"credential":"` + cred + `"}`)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if strings.HasPrefix(c.Name, "swarmwage_session_") {
			cookie = c
		}
	}
	require.NotNil(t, cookie)
	require.True(t, cookie.HttpOnly)
	require.Equal(t, http.SameSiteStrictMode, cookie.SameSite)
	require.Equal(t, http.StatusUnauthorized, post(`{"credential":"`+cred+`"}`).StatusCode, "a credential works once")

	call := func(method, path, body string, csrf bool) int {
		req, err := http.NewRequest(method, n.APIURL()+path, strings.NewReader(body))
		require.NoError(t, err)
		req.AddCookie(cookie)
		if csrf {
			req.Header.Set("X-Swarmwage-Dashboard", "1")
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	require.Equal(t, http.StatusOK, call("GET", "/v1/id", "", true))
	require.Equal(t, http.StatusOK, call("GET", "/v1/wallet", "", true))
	require.Equal(t, http.StatusOK, call("GET", "/v1/dashboard/summary", "", true))
	require.Equal(t, http.StatusForbidden, call("GET", "/v1/id", "", false))
	require.Equal(t, http.StatusForbidden, call("POST", "/v1/hire", `{"capability":"compute.statistics.mean","input":{"data":[1]}}`, true))
	require.Equal(t, http.StatusForbidden, call("POST", "/v1/wallet/deposit", `{"amount":"5"}`, true))
	require.Equal(t, http.StatusForbidden, call("POST", "/v1/dashboard/login", "", true))
	b, err := n.Escrow.Balance(context.Background())
	require.NoError(t, err)
	require.Zero(t, b.Deposited, "the refused deposit did nothing")

	// The event stream: opened with the cookie alone, it delivers a job
	// event as it happens.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, n.APIURL()+"/v1/events", nil)
	require.NoError(t, err)
	req.AddCookie(cookie)
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	buf := make([]byte, 4096)
	nr, err := resp.Body.Read(buf)
	require.NoError(t, err)
	require.Contains(t, string(buf[:nr]), ": connected")

	// The bearer token still works: the CLI's client.
	cl := dial(t, n)
	_, err = cl.Balance(context.Background())
	require.NoError(t, err)
}

// ---- helpers ----

// needChromium finds Debian's chromium, installing it with apt-get when it
// is missing and the test runs as root (CI does). Otherwise it fails and
// says how to install it: the dashboard is only tested in a real browser.
func needChromium(t *testing.T) string {
	t.Helper()
	find := func() string {
		for _, name := range []string{"chromium", "chromium-browser"} {
			if p, err := exec.LookPath(name); err == nil {
				return p
			}
		}
		return ""
	}
	if p := find(); p != "" {
		return p
	}
	if os.Geteuid() != 0 {
		t.Fatal("chromium is not installed and this test is not root, so it cannot install it: run 'sudo apt-get install -y chromium'")
	}
	t.Log("chromium is missing: installing it with apt-get")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	install := func() ([]byte, error) {
		cmd := exec.CommandContext(ctx, "apt-get", "install", "-y", "-qq", "chromium")
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		return cmd.CombinedOutput()
	}
	if out, err := install(); err != nil {
		t.Logf("apt-get install chromium: %v\n%s\nrunning apt-get update", err, out)
		if out, err := exec.CommandContext(ctx, "apt-get", "update", "-qq").CombinedOutput(); err != nil {
			t.Fatalf("apt-get update: %v\n%s", err, out)
		}
		if out, err := install(); err != nil {
			t.Fatalf("apt-get install -y chromium: %v\n%s", err, out)
		}
	}
	p := find()
	if p == "" {
		t.Fatal("apt-get installed chromium, but no chromium is on PATH")
	}
	return p
}

// artifactDir is where the screenshots go: $SWARMWAGE_ARTIFACTS/dashboard
// when set (CI keeps it), else a temp dir removed after the test.
func artifactDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if root := os.Getenv("SWARMWAGE_ARTIFACTS"); root != "" {
		dir = filepath.Join(root, "dashboard")
		require.NoError(t, os.MkdirAll(dir, 0o755))
	}
	t.Logf("dashboard screenshots: %s (set SWARMWAGE_ARTIFACTS to keep them)", dir)
	return dir
}

// slowMedianWorker writes an exec worker for compute.statistics.median that
// waits until gate exists, so the test decides when the job finishes. It
// answers the median of the test's input, [1,2,3,4].
func slowMedianWorker(t *testing.T, gate string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "slow-median.sh")
	script := fmt.Sprintf("cat >/dev/null\nwhile [ ! -e %q ]; do sleep 0.05; done\necho '{\"result\":2.5}'\n", gate)
	require.NoError(t, os.WriteFile(p, []byte(script), 0o600))
	return p
}

func dial(t *testing.T, n *node.Node) *controlapi.Client {
	t.Helper()
	cl, err := controlapi.Dial(n.Repo.Dir)
	require.NoError(t, err)
	return cl
}

// login mints a one-time dashboard login through the control API, as
// 'swarmwage dashboard' does.
func login(t *testing.T, n *node.Node) string {
	t.Helper()
	info, err := dial(t, n).DashboardLogin(context.Background())
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(info.URL, n.APIURL()+"/#login="), info.URL)
	return info.URL
}

func hireInfo(n *node.Node, capID, input string) controlapi.HireInfo {
	return n.Hire(context.Background(), market.HireRequest{
		Capability: capID, Input: json.RawMessage(input), MaxPrice: 100_000, Timeout: 2 * time.Minute,
	})
}

func hire(t *testing.T, n *node.Node, capID, input string) controlapi.HireInfo {
	t.Helper()
	res := hireInfo(n, capID, input)
	require.Equal(t, string(escrow.StateReleased), res.Escrow.State, res.Error)
	return res
}

// startBrowser starts one headless chromium for the test.
func startBrowser(t *testing.T, path string) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // root in CI; the pages are the test's own
		chromedp.Flag("disable-gpu", true),
		chromedp.WindowSize(1280, 900),
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc, chromedp.WithLogf(t.Logf))
	t.Cleanup(func() { cancel(); cancelAlloc() })
	// The first Run starts the browser; later tabs share it.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate("about:blank")))
	return ctx
}

// tab is one page in a browser context of its own (its own cookies).
type tab struct {
	t   *testing.T
	ctx context.Context
}

func newTab(t *testing.T, browser context.Context) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser, chromedp.WithNewBrowserContext(), chromedp.WithListener(func(ev any) {
		// The page's console and uncaught errors go to the test log.
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			var args []string
			for _, a := range ev.Args {
				args = append(args, string(a.Value)+a.Description)
			}
			t.Logf("browser console.%s: %s", ev.Type, strings.Join(args, " "))
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			desc := d.Text
			if d.Exception != nil {
				desc += " " + d.Exception.Description
			}
			t.Logf("browser exception: %s (line %d)", desc, d.LineNumber)
		}
	}))
	t.Cleanup(cancel)
	// The first Run opens the tab, which lives as long as that Run's
	// context: give it the tab's own, not a step's timeout.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate("about:blank")))
	return &tab{t: t, ctx: ctx}
}

// stepTimeout bounds one browser step; a page that never gets there fails
// the test with the step named, instead of hanging it.
const stepTimeout = 30 * time.Second

func (b *tab) run(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.t.Fatalf("browser: %s: %v\npage: %s", what, err, b.pageText())
	}
}

func (b *tab) pageText() string {
	ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
	defer cancel()
	s, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : ''`))
	return s
}

func (b *tab) open(url string) { b.t.Helper(); b.run("open "+url, chromedp.Navigate(url)) }

func (b *tab) waitFor(sel string) {
	b.t.Helper()
	b.run("wait for "+sel, chromedp.WaitVisible(chromedp.CSS(sel)))
}

func (b *tab) waitGone(sel string) {
	b.t.Helper()
	b.run("wait for no "+sel, chromedp.WaitNotPresent(chromedp.CSS(sel)))
}

// waitReady waits for page to have loaded its data.
func (b *tab) waitReady(page string) {
	b.t.Helper()
	b.waitFor(fmt.Sprintf(`#page[data-page=%q][data-ready="1"]`, page))
}

func (b *tab) nav(page string) {
	b.t.Helper()
	b.click(fmt.Sprintf(`nav a[data-page=%q]`, page))
	b.waitReady(page)
}

func (b *tab) click(sel string) { b.t.Helper(); b.run("click "+sel, chromedp.Click(chromedp.CSS(sel))) }

func (b *tab) typeInto(sel, text string) {
	b.t.Helper()
	b.run("type into "+sel,
		chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%q).value = ''`, sel)),
		chromedp.SendKeys(chromedp.CSS(sel), text))
}

func (b *tab) selectValue(sel, value string) {
	b.t.Helper()
	b.run("select "+value+" in "+sel, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(
		`(s => { s.value = %q; s.dispatchEvent(new Event('change')); })(document.querySelector(%q))`, value, sel)))
}

func (b *tab) text(sel string) string {
	b.t.Helper()
	b.waitFor(sel)
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(`document.querySelector(%q).textContent`, sel)))
	require.NoError(b.t, err, sel)
	return strings.TrimSpace(s)
}

func (b *tab) eval(js string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
	require.NoError(b.t, err, js)
	return s
}

func (b *tab) evalAwait(js string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
	require.NoError(b.t, err, js)
	return s
}

func (b *tab) evalBool(js string) bool {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js))
	require.NoError(b.t, err, js)
	return v
}

// shot saves a full-page PNG of the tab as dir/name.png.
func (b *tab) shot(dir, name string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	require.NoError(b.t, err, "screenshot "+name)
	require.NoError(b.t, os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644))
}
