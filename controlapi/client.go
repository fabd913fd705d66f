package controlapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/internal/atomicfile"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/node/ui"
)

// Files a serving daemon keeps in its repo.
const (
	// URLFile holds the control API's URL.
	URLFile = "api"
	// TokenFile holds its bearer token (0600).
	TokenFile = "api.token"
	// maxFileSize caps both files; a larger one is an error.
	maxFileSize = 2048
)

// ErrNoDaemon is returned by Dial when no daemon serves the repo.
var ErrNoDaemon = errors.New("no swarmwage daemon is running for this repo; start one with 'swarmwage daemon'")

// maxAPIResponse caps a control API response.
const maxAPIResponse = 64 << 20

// Client talks to a running daemon's control API.
type Client struct {
	base  string
	token string
	http  *http.Client
}

// APIError is an error answer of the control API.
type APIError struct {
	Status  int
	Message string
	// Code is the answer's error code ("bad_state", ...), if it has one.
	Code string
}

func (e *APIError) Error() string { return e.Message }

// Is makes errors.Is(err, escrow.ErrBadState) and the like hold of an
// answer whose code stands for that error, as in the daemon.
func (e *APIError) Is(target error) bool {
	for _, c := range errorCodes() {
		if c.code == e.Code && c.err == target {
			return true
		}
	}
	return false
}

// Dial returns a client for the daemon serving repoDir, or ErrNoDaemon.
func Dial(repoDir string) (*Client, error) {
	base, err := atomicfile.ReadSmall(filepath.Join(repoDir, URLFile), maxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNoDaemon
	}
	if err != nil {
		return nil, fmt.Errorf("read daemon address: %w", err)
	}
	token, err := atomicfile.ReadSmall(filepath.Join(repoDir, TokenFile), maxFileSize)
	if err != nil {
		return nil, fmt.Errorf("read daemon token: %w", err)
	}
	base = strings.TrimSpace(base)
	if u, err := url.Parse(base); err != nil || u.Scheme != "http" {
		return nil, fmt.Errorf("daemon address %q in %s is not an http URL", base, filepath.Join(repoDir, URLFile))
	}
	c := &Client{base: base, token: strings.TrimSpace(token), http: &http.Client{}}
	return c, nil
}

// Ping checks that the daemon answers.
func (c *Client) Ping(ctx context.Context) error {
	_, err := c.ID(ctx)
	return err
}

func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		data, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("%w (%v)", ErrNoDaemon, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAPIResponse))
	if err != nil {
		return fmt.Errorf("read daemon answer: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		var e ErrorBody
		if json.Unmarshal(data, &e) != nil || e.Error == "" {
			e.Error = fmt.Sprintf("daemon answered %s", resp.Status)
		}
		return &APIError{Status: resp.StatusCode, Message: e.Error, Code: e.Code}
	}
	if out == nil || resp.StatusCode == http.StatusNoContent {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("decode daemon answer: %w", err)
	}
	return nil
}

// ID describes the daemon's node.
func (c *Client) ID(ctx context.Context) (IDInfo, error) {
	var out IDInfo
	return out, c.do(ctx, http.MethodGet, "/v1/id", nil, &out)
}

// Status describes the daemon's node.
func (c *Client) Status(ctx context.Context) (StatusInfo, error) {
	var out StatusInfo
	return out, c.do(ctx, http.MethodGet, "/v1/status", nil, &out)
}

// Peers lists the daemon's connected peers.
func (c *Client) Peers(ctx context.Context) (PeersInfo, error) {
	var out PeersInfo
	return out, c.do(ctx, http.MethodGet, "/v1/peers", nil, &out)
}

// Listings lists the daemon's listings.
func (c *Client) Listings(ctx context.Context) (ListingsInfo, error) {
	var out ListingsInfo
	return out, c.do(ctx, http.MethodGet, "/v1/listings", nil, &out)
}

// AddListing lists a capability and announces it.
func (c *Client) AddListing(ctx context.Context, req AddListingRequest) (ListingInfo, error) {
	var out ListingInfo
	return out, c.do(ctx, http.MethodPost, "/v1/listings", req, &out)
}

// RemoveListing removes a listing and stops announcing it.
func (c *Client) RemoveListing(ctx context.Context, capID string) error {
	return c.do(ctx, http.MethodDelete, "/v1/listings/"+url.PathEscape(capID), nil, nil)
}

// Find searches for verified sellers of capID.
func (c *Client) Find(ctx context.Context, capID string, limit int, timeout time.Duration) (FindInfo, error) {
	return c.FindExplained(ctx, capID, limit, timeout, false, "")
}

// FindExplained is Find that, with explain, also ranks the sellers as a
// hire with QoS class qos would (FindInfo.Routing).
func (c *Client) FindExplained(ctx context.Context, capID string, limit int, timeout time.Duration, explain bool, qos string) (FindInfo, error) {
	return c.FindQuery(ctx, FindQuery{Capability: capID, Limit: limit, Timeout: timeout, Explain: explain, QoS: qos})
}

// FindQuery is a search with every option of GET /v1/find.
type FindQuery struct {
	Capability string
	Limit      int
	Timeout    time.Duration
	// Explain adds how a hire would route (QoS: the class to rank for).
	Explain bool
	QoS     string
	// Refresh bypasses the prefetch cache: the DHT is asked now.
	Refresh bool
}

// FindQuery searches the network as q says.
func (c *Client) FindQuery(ctx context.Context, fq FindQuery) (FindInfo, error) {
	capID, limit, timeout, explain, qos := fq.Capability, fq.Limit, fq.Timeout, fq.Explain, fq.QoS
	q := url.Values{"capability": {capID}}
	if fq.Refresh {
		q.Set("refresh", "1")
	}
	if explain {
		q.Set("explain", "1")
		if qos != "" {
			q.Set("qos", qos)
		}
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	if timeout > 0 {
		q.Set("timeout", timeout.String())
	}
	var out FindInfo
	return out, c.do(ctx, http.MethodGet, "/v1/find?"+q.Encode(), nil, &out)
}

// Balance is the wallet's balance.
func (c *Client) Balance(ctx context.Context) (escrow.Balance, error) {
	var out escrow.Balance
	return out, c.do(ctx, http.MethodGet, "/v1/wallet", nil, &out)
}

// Deposit adds test credits. On amino the daemon refuses unless the
// request says they are test credits (DepositTestCredits).
func (c *Client) Deposit(ctx context.Context, amount int64, memo string) (escrow.Balance, error) {
	return c.DepositTestCredits(ctx, DepositRequest{Amount: escrow.FormatAmount(amount), Memo: memo, TestCredits: true})
}

// DepositTestCredits sends a deposit request as is.
func (c *Client) DepositTestCredits(ctx context.Context, req DepositRequest) (escrow.Balance, error) {
	var out escrow.Balance
	return out, c.do(ctx, http.MethodPost, "/v1/wallet/deposit", req, &out)
}

// EscrowList lists escrow records matching f, newest first: at most
// f.Limit (0: all), fetched page by page.
func (c *Client) EscrowList(ctx context.Context, f escrow.Filter) ([]escrow.Record, error) {
	out := []escrow.Record{}
	cursor := ""
	for {
		page, err := c.EscrowPage(ctx, escrow.Filter{Role: f.Role, State: f.State, Limit: pageSize(f.Limit, len(out))}, cursor)
		if err != nil {
			return out, err
		}
		out = append(out, page.Escrows...)
		if page.NextCursor == "" || (f.Limit > 0 && len(out) >= f.Limit) {
			return out, nil
		}
		if len(page.Escrows) == 0 || page.NextCursor == cursor {
			return out, errors.New("list escrow: the daemon's pages do not advance")
		}
		cursor = page.NextCursor
	}
}

// EscrowPage gets one page of escrow records matching f (f.Limit is the
// page size; 0: the daemon's default), starting after cursor ("" for the
// first page).
func (c *Client) EscrowPage(ctx context.Context, f escrow.Filter, cursor string) (EscrowsInfo, error) {
	q := url.Values{}
	if f.Role != "" {
		q.Set("role", string(f.Role))
	}
	if f.State != "" {
		q.Set("state", string(f.State))
	}
	if f.Limit > 0 {
		q.Set("limit", strconv.Itoa(f.Limit))
	}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	var out EscrowsInfo
	err := c.do(ctx, http.MethodGet, "/v1/escrow?"+q.Encode(), nil, &out)
	return out, err
}

// pageSize is the page to ask for when limit records are wanted (0: all)
// and have records are in hand.
func pageSize(limit, have int) int {
	if limit <= 0 {
		return MaxListLimit
	}
	return min(MaxListLimit, limit-have)
}

// EscrowGet returns one job's escrow record.
func (c *Client) EscrowGet(ctx context.Context, jobID string) (escrow.Record, error) {
	var out escrow.Record
	return out, c.do(ctx, http.MethodGet, "/v1/escrow/"+url.PathEscape(jobID), nil, &out)
}

// Evidence is the receipt of a job this node sold with its input and
// output, for a third party to check (swarmwage verify --evidence).
func (c *Client) Evidence(ctx context.Context, jobID string) (escrow.Receipt, error) {
	var out escrow.Receipt
	return out, c.do(ctx, http.MethodGet, "/v1/escrow/"+url.PathEscape(jobID)+"/evidence", nil, &out)
}

// EscrowRefund refunds a delivered job before its verification window ends.
func (c *Client) EscrowRefund(ctx context.Context, jobID, reason string) (escrow.Record, error) {
	var out escrow.Record
	return out, c.do(ctx, http.MethodPost, "/v1/escrow/"+url.PathEscape(jobID)+"/refund", RefundRequest{Reason: reason}, &out)
}

// Jobs lists every job's summary (no input, no output), newest first;
// role "buyer", "seller" or "" for both.
func (c *Client) Jobs(ctx context.Context, role string) (JobsInfo, error) {
	return c.ListJobs(ctx, role, 0)
}

// ListJobs lists at most limit job summaries (0: all), newest first,
// fetched page by page. NextCursor is set when more are left.
func (c *Client) ListJobs(ctx context.Context, role string, limit int) (JobsInfo, error) {
	out := JobsInfo{Jobs: []market.JobRecord{}}
	cursor := ""
	for {
		page, err := c.JobsPage(ctx, JobsQuery{Role: role, Limit: pageSize(limit, len(out.Jobs)), Cursor: cursor})
		if err != nil {
			return out, err
		}
		out.Jobs = append(out.Jobs, page.Jobs...)
		if page.NextCursor == "" {
			return out, nil
		}
		if limit > 0 && len(out.Jobs) >= limit {
			out.NextCursor = page.NextCursor
			return out, nil
		}
		if len(page.Jobs) == 0 || page.NextCursor == cursor {
			return out, errors.New("list jobs: the daemon's pages do not advance")
		}
		cursor = page.NextCursor
	}
}

// JobsQuery asks GET /v1/jobs for one page.
type JobsQuery struct {
	// Role is "buyer", "seller" or "" for both.
	Role string
	// Limit is the page size; 0: the daemon's default (DefaultListLimit).
	Limit int
	// Cursor is the NextCursor of the previous page; "" for the first.
	Cursor string
}

// JobsPage gets one page of job summaries.
func (c *Client) JobsPage(ctx context.Context, q JobsQuery) (JobsInfo, error) {
	v := url.Values{}
	if q.Role != "" {
		v.Set("role", q.Role)
	}
	if q.Limit > 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	if q.Cursor != "" {
		v.Set("cursor", q.Cursor)
	}
	var out JobsInfo
	err := c.do(ctx, http.MethodGet, "/v1/jobs?"+v.Encode(), nil, &out)
	return out, err
}

// Job returns one job.
func (c *Client) Job(ctx context.Context, jobID string) (market.JobRecord, error) {
	var out market.JobRecord
	return out, c.do(ctx, http.MethodGet, "/v1/jobs/"+url.PathEscape(jobID), nil, &out)
}

// Rate rates a job this node bought, 1 to 5.
func (c *Client) Rate(ctx context.Context, jobID string, rating int) (market.JobRecord, error) {
	var out market.JobRecord
	return out, c.do(ctx, http.MethodPost, "/v1/jobs/"+url.PathEscape(jobID)+"/rate", RateRequest{Rating: rating}, &out)
}

// Spent returns what the node locked for hires since since and did not
// get refunded: every hire when scope is "", else those made with a spend
// cap of that scope.
func (c *Client) Spent(ctx context.Context, scope string, since time.Time) (int64, error) {
	q := url.Values{}
	if scope != "" {
		q.Set("scope", scope)
	}
	if !since.IsZero() {
		q.Set("since", since.Format(time.RFC3339Nano))
	}
	var out SpentInfo
	if err := c.do(ctx, http.MethodGet, "/v1/wallet/spent?"+q.Encode(), nil, &out); err != nil {
		return 0, err
	}
	v, err := escrow.ParseAmount(out.Spent)
	if err != nil {
		return 0, fmt.Errorf("daemon's spent figure %q: %w", out.Spent, err)
	}
	return v, nil
}

// Hire runs a hire on the daemon. progress, when set, sees the job's
// events as they come. The result describes every outcome; the error is
// for failures to talk to the daemon.
func (c *Client) Hire(ctx context.Context, req HireRequest, progress func(market.Event)) (HireInfo, error) {
	data, err := json.Marshal(req)
	if err != nil {
		return HireInfo{}, err
	}
	return c.followHire(ctx, http.MethodPost, "/v1/hire", bytes.NewReader(data), progress)
}

// Detach starts a hire that runs on in the daemon and returns once a seller
// accepted it (outcome "running", with the job ID), or with its result.
func (c *Client) Detach(ctx context.Context, req HireRequest) (HireInfo, error) {
	req.Detach = true
	var out HireInfo
	return out, c.do(ctx, http.MethodPost, "/v1/hire", req, &out)
}

// WatchJob follows a bought job's events to its end and returns its result.
func (c *Client) WatchJob(ctx context.Context, jobID string, progress func(market.Event)) (HireInfo, error) {
	return c.followHire(ctx, http.MethodGet, "/v1/jobs/"+url.PathEscape(jobID)+"/events", nil, progress)
}

// CancelJob stops a bought job not yet delivered and refunds it.
func (c *Client) CancelJob(ctx context.Context, jobID string) (escrow.Record, error) {
	var out escrow.Record
	return out, c.do(ctx, http.MethodPost, "/v1/jobs/"+url.PathEscape(jobID)+"/cancel", nil, &out)
}

// followHire reads an NDJSON stream of hire events up to the "done" event.
func (c *Client) followHire(ctx context.Context, method, path string, body io.Reader, progress func(market.Event)) (HireInfo, error) {
	hreq, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return HireInfo{}, err
	}
	hreq.Header.Set("Authorization", "Bearer "+c.token)
	hreq.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(hreq)
	if err != nil {
		return HireInfo{}, fmt.Errorf("%w (%v)", ErrNoDaemon, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		var e ErrorBody
		if json.Unmarshal(body, &e) != nil || e.Error == "" {
			e.Error = "daemon answered " + resp.Status
		}
		return HireInfo{}, &APIError{Status: resp.StatusCode, Message: e.Error, Code: e.Code}
	}
	dec := json.NewDecoder(io.LimitReader(resp.Body, maxAPIResponse))
	for {
		var ev HireEvent
		if err := dec.Decode(&ev); err != nil {
			return HireInfo{}, fmt.Errorf("read hire progress from the daemon: %w", err)
		}
		if ev.Type == EventDone && ev.Result != nil {
			return *ev.Result, nil
		}
		if progress != nil {
			progress(ev.Event)
		}
	}
}

// DashboardLogin asks the daemon for a one-time dashboard login: a URL
// that logs a browser in once, within ui.LoginTTL.
func (c *Client) DashboardLogin(ctx context.Context) (ui.LoginInfo, error) {
	var out ui.LoginInfo
	return out, c.do(ctx, http.MethodPost, "/v1/dashboard/login", nil, &out)
}

// History is the daemon's escrow history since since (zero: all of it).
func (c *Client) History(ctx context.Context, since time.Time) (escrow.History, error) {
	var out escrow.History
	path := "/v1/wallet/history"
	if !since.IsZero() {
		path += "?" + url.Values{"since": {since.UTC().Format(time.RFC3339Nano)}}.Encode()
	}
	return out, c.do(ctx, http.MethodGet, path, nil, &out)
}
