package x402

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/big"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/ethereum/go-ethereum/common"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/escrow/evm"
)

// Defaults and limits.
const (
	// DefaultHireTimeout bounds a hire through the door (the job and its
	// verification); a client's authorization must outlive it.
	DefaultHireTimeout = 60 * time.Second
	// DefaultSettleMargin is the time kept after the hire for the
	// settlement transaction: an authorization whose validBefore is closer
	// than this is refused, and the hire is cut short to leave it.
	DefaultSettleMargin = 30 * time.Second
	// minHireTime: an authorization that leaves less than this for the
	// hire is refused rather than started and failed.
	minHireTime = 5 * time.Second
	// MaxBody bounds the job's input (the request body): the agent
	// endpoint takes no larger input either.
	MaxBody = 1 << 20
	// chainTimeout bounds each chain read of a payment check.
	chainTimeout = 10 * time.Second
	// settleTimeout bounds the settlement transaction and its
	// confirmations.
	settleTimeout = 2 * time.Minute
	// maxCapabilityLen bounds the {capability} path segment.
	maxCapabilityLen = 128
	// DefaultBodyTimeout bounds reading the request body: a client that
	// trickles its input holds a connection, not a hire.
	DefaultBodyTimeout = 30 * time.Second
)

// Sentinels a Hirer wraps its errors with, so the door answers the right
// status.
var (
	// ErrInvalidInput: the input does not fit the capability (400).
	ErrInvalidInput = errors.New("invalid input")
	// ErrNoSeller: no seller of the capability (or none within the price).
	ErrNoSeller = errors.New("no seller")
)

// HireRequest is one job the door buys for a paying client.
type HireRequest struct {
	Capability string
	Input      json.RawMessage
	// MaxPrice is the most the node may pay the seller, in the rail's
	// base units: the client's authorization less the gateway's fee.
	MaxPrice int64
	Timeout  time.Duration
}

// HireResult is what the hire did.
type HireResult struct {
	JobID      string
	Capability string
	Seller     string
	// Price is what the seller was paid, in base units.
	Price int64
	// Output and Verification (the local verification report) as JSON.
	Output       json.RawMessage
	Verification json.RawMessage
	// Passed: the output passed verification and the job was released
	// to the seller. Only then is the client's authorization settled.
	Passed bool
	// Outcome names what happened ("released", "verification_failed",
	// "job_failed", "no_seller", ...), Error why when it failed.
	Outcome string
	Error   string
}

// Hirer is the node's hire service as the door needs it: the price of the
// best seller, and a hire with escrow and local verification.
type Hirer interface {
	// Quote returns what the best seller of capability asks for one job
	// (base units), after checking input against the capability's input
	// schema; errors wrap ErrInvalidInput or ErrNoSeller where they apply.
	Quote(ctx context.Context, capability string, input json.RawMessage) (int64, error)
	// Hire buys one job and returns whatever happened.
	Hire(ctx context.Context, req HireRequest) HireResult
}

// Terms are what the node asks to be paid in: the token's EIP-712 domain
// (chain, token, name, version) and the node's own address.
type Terms struct {
	Domain evm.TokenDomain
	PayTo  common.Address
}

// Chain is the evm rail as the door needs it (escrow/evm's Rail has these
// methods; the node's adapter connects them).
type Chain interface {
	Terms(ctx context.Context) (Terms, error)
	AuthorizationState(ctx context.Context, authorizer common.Address, nonce [32]byte) (bool, error)
	TokenBalance(ctx context.Context, addr common.Address) (*big.Int, error)
	// TransferWithAuthorization submits the transfer from the node's key
	// and returns its transaction once confirmed.
	TransferWithAuthorization(ctx context.Context, a evm.Authorization, sig []byte) (common.Hash, error)
	// AuthorizationUsedTx finds the transaction that used the nonce.
	AuthorizationUsedTx(ctx context.Context, authorizer common.Address, nonce [32]byte) (common.Hash, bool, error)
}

// Option configures a Handler.
type Option func(*Handler)

// WithFee sets the gateway's fee, added to the seller's price (base
// units; [gateway] fee).
func WithFee(fee int64) Option { return func(h *Handler) { h.fee = fee } }

// WithHireTimeout bounds each hire (default DefaultHireTimeout).
func WithHireTimeout(d time.Duration) Option { return func(h *Handler) { h.hireTimeout = d } }

// WithSettleMargin sets the time kept for the settlement (default
// DefaultSettleMargin).
func WithSettleMargin(d time.Duration) Option { return func(h *Handler) { h.settleMargin = d } }

// WithLogger sets the logger (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(h *Handler) { h.log = l } }

// WithBodyTimeout bounds reading the request body (default
// DefaultBodyTimeout).
func WithBodyTimeout(d time.Duration) Option { return func(h *Handler) { h.bodyTimeout = d } }

// WithClock sets the clock (tests).
func WithClock(now func() time.Time) Option { return func(h *Handler) { h.now = now } }

// Handler serves POST /x402/{capability}. Safe for concurrent use; Close
// stops it.
type Handler struct {
	hirer        Hirer
	chain        Chain
	db           *badger.DB
	fee          int64
	hireTimeout  time.Duration
	settleMargin time.Duration
	bodyTimeout  time.Duration
	log          *slog.Logger
	now          func() time.Time

	ctx    context.Context // hires and settlements run under it
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	inflight map[string]chan struct{} // authorization key -> closed when it is answered
}

// New builds the door over the node's hire service, its evm rail and its
// Badger (authorization records under x402/auth/). It resumes, in the
// background, what a previous run left: an authorization whose output had
// passed verification is settled; one whose job was still running is
// marked failed and never settled.
func New(hirer Hirer, chain Chain, db *badger.DB, opts ...Option) (*Handler, error) {
	if hirer == nil || chain == nil || db == nil {
		return nil, errors.New("x402: new handler: hirer, chain and db are needed")
	}
	h := &Handler{hirer: hirer, chain: chain, db: db, hireTimeout: DefaultHireTimeout, settleMargin: DefaultSettleMargin,
		bodyTimeout: DefaultBodyTimeout, log: slog.Default(), now: time.Now, inflight: map[string]chan struct{}{}}
	for _, o := range opts {
		o(h)
	}
	if h.fee < 0 {
		return nil, fmt.Errorf("x402: fee %d: must not be negative", h.fee)
	}
	if h.hireTimeout < minHireTime || h.settleMargin <= 0 {
		return nil, fmt.Errorf("x402: hire timeout %s (at least %s) and settle margin %s (positive)", h.hireTimeout, minHireTime, h.settleMargin)
	}
	h.log = h.log.With("door", "x402")
	h.ctx, h.cancel = context.WithCancel(context.Background())
	open, err := openRecords(db)
	if err != nil {
		return nil, fmt.Errorf("x402: read authorization records: %w", err)
	}
	// Every open record is marked in flight before any resumes: a resume
	// that ends at once releases its key under h.mu, which must not meet
	// this loop still writing the map.
	done := make(map[string]chan struct{}, len(open))
	h.mu.Lock()
	for key := range open {
		done[key] = make(chan struct{})
		h.inflight[key] = done[key]
	}
	h.mu.Unlock()
	for key, rec := range open {
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			defer h.release(key, done[key])
			h.resume(h.ctx, []byte(key), rec)
		}()
	}
	return h, nil
}

// Close stops the running hires and settlements and waits for them.
// Records stay: the next New resumes them.
func (h *Handler) Close() error {
	h.cancel()
	h.wg.Wait()
	return nil
}

// Mount serves h at POST /x402/{capability} on mux.
func Mount(mux *http.ServeMux, h *Handler) { mux.Handle("POST /x402/{capability}", h) }

var capabilityRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// ServeHTTP answers one request: 402 with the terms without a payment,
// else the paid job's output (200) once its output passed verification and
// the authorization is settled.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		failJSON(w, http.StatusMethodNotAllowed, "use POST with the job's input as the JSON body")
		return
	}
	capID := r.PathValue("capability")
	if capID == "" {
		capID = strings.TrimPrefix(r.URL.Path, "/x402/")
	}
	if len(capID) > maxCapabilityLen || !capabilityRe.MatchString(capID) {
		failJSON(w, http.StatusNotFound, "no such capability: the path is /x402/{capability ID}")
		return
	}
	// Deadlines: the body is read within bodyTimeout; the answer may take
	// the whole hire and its settlement, whatever the server's default
	// write timeout (servers that cannot set deadlines keep their own).
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(h.bodyTimeout))
	_ = rc.SetWriteDeadline(time.Now().Add(h.bodyTimeout + h.hireTimeout + h.settleMargin + settleTimeout))
	input, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	var mbe *http.MaxBytesError
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		failJSON(w, http.StatusRequestTimeout, fmt.Sprintf("the input did not arrive within %s", h.bodyTimeout))
		return
	case errors.As(err, &mbe):
		failJSON(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the input is larger than %d bytes", MaxBody))
		return
	case err != nil:
		failJSON(w, http.StatusBadRequest, "read the input: "+err.Error())
		return
	}
	if !json.Valid(input) || !strings.HasPrefix(strings.TrimSpace(string(input)), "{") {
		failJSON(w, http.StatusBadRequest, "the body must be the job's input, a JSON object")
		return
	}
	sigHeader := r.Header.Get(HeaderPaymentSignature)
	if sigHeader == "" {
		a := h.required(r, capID, input, "")
		a.write(w)
		return
	}
	if len(sigHeader) > MaxSignatureHeader {
		failJSON(w, http.StatusRequestHeaderFieldsTooLarge, fmt.Sprintf("%s is larger than %d bytes", HeaderPaymentSignature, MaxSignatureHeader))
		return
	}
	pay, err := DecodePaymentSignature(sigHeader)
	if err != nil {
		h.required(r, capID, input, "invalid_payload: "+err.Error()).write(w)
		return
	}
	h.paid(w, r, capID, input, sigHeader, pay)
}

// required is the 402 answer with the current terms, and reason if a
// payment was refused.
func (h *Handler) required(r *http.Request, capID string, input json.RawMessage, reason string) answer {
	ctx, cancel := context.WithTimeout(r.Context(), chainTimeout)
	defer cancel()
	terms, err := h.chain.Terms(ctx)
	if err != nil {
		h.log.Warn("x402 terms unavailable", "err", err)
		return failure(http.StatusServiceUnavailable, "the node's chain is unavailable: "+err.Error())
	}
	price, err := h.hirer.Quote(ctx, capID, input)
	switch {
	case errors.Is(err, ErrInvalidInput):
		return failure(http.StatusBadRequest, err.Error())
	case errors.Is(err, ErrNoSeller):
		return failure(http.StatusNotFound, err.Error())
	case err != nil:
		return failure(http.StatusBadGateway, "price the job: "+err.Error())
	}
	if price > math.MaxInt64-h.fee {
		return failure(http.StatusBadGateway, "the seller's price is out of range")
	}
	pr := &PaymentRequired{
		X402Version: Version,
		Error:       reason,
		Resource:    ResourceInfo{URL: resourceURL(r), Description: "one verified job of " + capID + " on swarmwage", MimeType: "application/json"},
		Accepts:     []Requirements{h.requirements(terms, price+h.fee)},
	}
	if reason == "" {
		pr.Error = "Payment required"
	}
	return answer{status: http.StatusPaymentRequired, body: pr, required: pr}
}

func (h *Handler) requirements(t Terms, amount int64) Requirements {
	return Requirements{
		Scheme:            SchemeExact,
		Network:           Network(t.Domain.ChainID.Int64()),
		Asset:             t.Domain.Token.Hex(),
		Amount:            fmt.Sprint(amount),
		PayTo:             t.PayTo.Hex(),
		MaxTimeoutSeconds: int64((h.hireTimeout + h.settleMargin) / time.Second),
		Extra:             Extra{Name: t.Domain.Name, Version: t.Domain.Version, AssetTransferMethod: AssetTransferMethodEIP3009},
	}
}

func resourceURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + r.URL.Path
}

// paid handles a request with a well-formed payment.
func (h *Handler) paid(w http.ResponseWriter, r *http.Request, capID string, input json.RawMessage, header string, pay Payment) {
	ctx, cancel := context.WithTimeout(r.Context(), chainTimeout)
	terms, err := h.chain.Terms(ctx)
	cancel()
	if err != nil {
		failJSON(w, http.StatusServiceUnavailable, "the node's chain is unavailable: "+err.Error())
		return
	}
	auth := pay.Authorization
	key := authKey(terms.Domain.ChainID.Int64(), terms.Domain.Token, auth.From, auth.Nonce)
	// A replay: the same answer, no second job.
	for {
		rec, err := getRecord(h.db, key)
		if err == nil && rec.terminal() {
			rec.answer().write(w)
			return
		}
		if err != nil && !errors.Is(err, errNotFound) {
			failJSON(w, http.StatusInternalServerError, err.Error())
			return
		}
		if done := h.running(string(key)); done != nil {
			select {
			case <-done:
				continue
			case <-r.Context().Done():
				return
			}
		}
		if err == nil {
			// Not terminal and not running here: a verified record whose
			// settlement failed; try it again.
			done, ok := h.claim(string(key))
			if !ok {
				continue
			}
			res := make(chan answer, 1)
			h.wg.Add(1)
			go func() {
				defer h.wg.Done()
				defer h.release(string(key), done)
				res <- h.resumeAnswer(h.ctx, key, rec)
			}()
			h.wait(w, r, res)
			return
		}
		break
	}
	if reason, msg := h.check(r.Context(), terms, pay); reason != "" {
		h.required(r, capID, input, reason+": "+msg).write(w)
		return
	}
	done, ok := h.claim(string(key))
	if !ok { // another request with this header just started
		h.paid(w, r, capID, input, header, pay)
		return
	}
	now := h.now().UTC()
	rec := record{State: stateHiring, Capability: capID, Payer: auth.From.Hex(), Amount: auth.Value.String(),
		Created: now, Updated: now, Header: header}
	if _, created, err := createRecord(h.db, key, rec); err != nil || !created {
		h.release(string(key), done)
		if err != nil {
			failJSON(w, http.StatusInternalServerError, err.Error())
			return
		}
		h.paid(w, r, capID, input, header, pay) // raced a replay: answer as one
		return
	}
	res := make(chan answer, 1)
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		defer h.release(string(key), done)
		res <- h.run(h.ctx, key, rec, terms, capID, input, pay)
	}()
	h.wait(w, r, res)
}

// wait writes the answer of a hire or settlement running in the
// background; a client that leaves gets it on a replay.
func (h *Handler) wait(w http.ResponseWriter, r *http.Request, res <-chan answer) {
	select {
	case a := <-res:
		a.write(w)
	case <-r.Context().Done():
	}
}

// check tests a payment against the node's terms, the signature and the
// chain. It returns an x402 invalid reason (as @x402/evm names them) and
// a message, or "" if the payment may be taken.
func (h *Handler) check(ctx context.Context, t Terms, pay Payment) (reason, msg string) {
	acc, a := pay.Accepted, pay.Authorization
	switch {
	case acc.Scheme != SchemeExact:
		return "invalid_exact_evm_scheme", fmt.Sprintf("scheme %q, this server takes %q", acc.Scheme, SchemeExact)
	case acc.Network != Network(t.Domain.ChainID.Int64()):
		return "invalid_exact_evm_network_mismatch", fmt.Sprintf("network %q, this node is on %s", acc.Network, Network(t.Domain.ChainID.Int64()))
	case !common.IsHexAddress(acc.Asset) || common.HexToAddress(acc.Asset) != t.Domain.Token:
		return "invalid_exact_evm_asset_mismatch", fmt.Sprintf("asset %s, this node takes %s", acc.Asset, t.Domain.Token)
	case !common.IsHexAddress(acc.PayTo) || common.HexToAddress(acc.PayTo) != t.PayTo, a.To != t.PayTo:
		return "invalid_exact_evm_recipient_mismatch", fmt.Sprintf("the authorization pays %s, this node is %s", a.To, t.PayTo)
	case acc.Amount != a.Value.String():
		return "invalid_exact_evm_payload_authorization_value_mismatch", fmt.Sprintf("authorization value %s, accepted amount %s", a.Value, acc.Amount)
	case !a.Value.IsInt64() || a.Value.Int64() <= h.fee:
		return "invalid_exact_evm_authorization_value", fmt.Sprintf("value %s does not cover the gateway's fee %d and a seller's price", a.Value, h.fee)
	case acc.Extra.Name != "" && acc.Extra.Name != t.Domain.Name:
		return "invalid_exact_evm_token_name_mismatch", fmt.Sprintf("extra.name %q, the token's is %q", acc.Extra.Name, t.Domain.Name)
	case acc.Extra.Version != "" && acc.Extra.Version != t.Domain.Version:
		return "invalid_exact_evm_token_version_mismatch", fmt.Sprintf("extra.version %q, the token's is %q", acc.Extra.Version, t.Domain.Version)
	case acc.Extra.AssetTransferMethod != "" && acc.Extra.AssetTransferMethod != AssetTransferMethodEIP3009:
		return "invalid_exact_evm_scheme", fmt.Sprintf("assetTransferMethod %q, this server takes %q", acc.Extra.AssetTransferMethod, AssetTransferMethodEIP3009)
	}
	if err := evm.CheckAuthorizationSignature(t.Domain, a, pay.Signature); err != nil {
		return "invalid_exact_evm_signature", err.Error()
	}
	now := h.now().Unix()
	if a.ValidAfter.Cmp(big.NewInt(now)) > 0 {
		return "invalid_exact_evm_payload_authorization_valid_after", fmt.Sprintf("validAfter %s is in the future (now %d)", a.ValidAfter, now)
	}
	need := now + int64((h.settleMargin+minHireTime)/time.Second)
	if a.ValidBefore.Cmp(big.NewInt(need)) < 0 {
		return "invalid_exact_evm_payload_authorization_valid_before", fmt.Sprintf("validBefore %s leaves less than %s for the job and its settlement (now %d)", a.ValidBefore, h.settleMargin+minHireTime, now)
	}
	cctx, cancel := context.WithTimeout(ctx, chainTimeout)
	defer cancel()
	used, err := h.chain.AuthorizationState(cctx, a.From, a.Nonce)
	if err != nil {
		return "unexpected_verify_error", "read the nonce's state: " + err.Error()
	}
	if used {
		return "invalid_exact_evm_nonce_already_used", fmt.Sprintf("nonce %x of %s is used or canceled", a.Nonce, a.From)
	}
	bal, err := h.chain.TokenBalance(cctx, a.From)
	if err != nil {
		return "unexpected_verify_error", "read the payer's balance: " + err.Error()
	}
	if bal.Cmp(a.Value) < 0 {
		return "invalid_exact_evm_insufficient_balance", fmt.Sprintf("%s holds %s of the token, the authorization moves %s", a.From, bal, a.Value)
	}
	return "", ""
}

// hireTimeoutFor is how long the hire may run: the door's timeout, cut
// short so the settlement fits before the authorization expires.
func (h *Handler) hireTimeoutFor(a evm.Authorization) time.Duration {
	left := h.hireTimeout
	if a.ValidBefore.IsInt64() {
		left = time.Unix(a.ValidBefore.Int64(), 0).Sub(h.now()) - h.settleMargin
	}
	return max(min(h.hireTimeout, left), minHireTime)
}

// run hires, verifies and, only if the output passed, settles.
func (h *Handler) run(ctx context.Context, key []byte, rec record, t Terms, capID string, input json.RawMessage, pay Payment) answer {
	a := pay.Authorization
	res := h.hirer.Hire(ctx, HireRequest{Capability: capID, Input: input, MaxPrice: a.Value.Int64() - h.fee, Timeout: h.hireTimeoutFor(a)})
	rec.JobID, rec.Updated = res.JobID, h.now().UTC()
	network := Network(t.Domain.ChainID.Int64())
	if !res.Passed {
		status, outcome := failStatus(res)
		rec.State, rec.Status, rec.Error = stateFailed, status, res.Error
		rec.Response = &SettleResponse{Success: false, ErrorReason: outcome, ErrorMessage: "nothing was settled: " + res.Error,
			Payer: a.From.Hex(), Network: network}
		rec.Body = mustJSON(failedDoc{Error: res.Error, Outcome: outcome, JobID: res.JobID, Verification: res.Verification, Settled: false})
		if err := putRecord(h.db, key, rec); err != nil {
			h.log.Error("x402: store a failed job", "job", res.JobID, "err", err)
		}
		h.log.Info("x402 job not paid", "capability", capID, "job", res.JobID, "outcome", outcome, "payer", a.From.Hex())
		return rec.answer()
	}
	rec.State, rec.Status = stateVerified, http.StatusOK
	rec.Body = mustJSON(paidDoc{JobID: res.JobID, Capability: res.Capability, Seller: res.Seller, Price: escrow.FormatAmount(res.Price),
		Output: res.Output, Verification: res.Verification})
	// Durable before the money moves: a restart settles it.
	if err := putRecord(h.db, key, rec); err != nil {
		h.log.Error("x402: store a verified job", "job", res.JobID, "err", err)
		return failure(http.StatusInternalServerError, "store the verified job: "+err.Error())
	}
	return h.settle(ctx, key, rec, t, pay)
}

// settle moves the authorization's money and records the outcome.
func (h *Handler) settle(ctx context.Context, key []byte, rec record, t Terms, pay Payment) answer {
	a := pay.Authorization
	network := Network(t.Domain.ChainID.Int64())
	sctx, cancel := context.WithTimeout(ctx, settleTimeout)
	defer cancel()
	tx, err := h.chain.TransferWithAuthorization(sctx, a, pay.Signature)
	if err != nil {
		// Used anyway (an earlier attempt, or anyone who submitted it)?
		if used, serr := h.chain.AuthorizationState(sctx, a.From, a.Nonce); serr == nil && used {
			if t, found, ferr := h.chain.AuthorizationUsedTx(sctx, a.From, a.Nonce); ferr == nil && found {
				tx, err = t, nil
			} else if ferr == nil {
				return h.fail(key, rec, network, a, "the payer canceled the authorization before it was settled")
			}
		}
	}
	if err != nil {
		if !h.now().Before(time.Unix(a.ValidBefore.Int64(), 0)) {
			return h.fail(key, rec, network, a, "the authorization expired before it could be settled: "+err.Error())
		}
		h.log.Warn("x402 settlement failed; a replay of the header or a restart tries again", "job", rec.JobID, "payer", a.From.Hex(), "err", err)
		return answer{status: http.StatusPaymentRequired, body: map[string]string{"error": "settlement failed: " + err.Error()},
			settled: &SettleResponse{Success: false, ErrorReason: "settlement_failed", ErrorMessage: err.Error(), Payer: a.From.Hex(), Network: network}}
	}
	rec.State, rec.Updated = stateSettled, h.now().UTC()
	rec.Response = &SettleResponse{Success: true, Payer: a.From.Hex(), Transaction: tx.Hex(), Network: network, Amount: a.Value.String()}
	if err := putRecord(h.db, key, rec); err != nil {
		h.log.Error("x402: store a settlement", "job", rec.JobID, "tx", tx.Hex(), "err", err)
	}
	h.log.Info("x402 job paid", "capability", rec.Capability, "job", rec.JobID, "payer", a.From.Hex(), "amount", a.Value.String(), "tx", tx.Hex())
	return rec.answer()
}

// fail records that an authorization whose output passed will never be
// settled, and says so.
func (h *Handler) fail(key []byte, rec record, network string, a evm.Authorization, why string) answer {
	h.log.Warn("x402 verified job not paid", "job", rec.JobID, "payer", a.From.Hex(), "why", why)
	rec.State, rec.Updated, rec.Status, rec.Error = stateFailed, h.now().UTC(), http.StatusPaymentRequired, why
	rec.Body = mustJSON(failedDoc{Error: why, Outcome: "settlement_failed", JobID: rec.JobID})
	rec.Response = &SettleResponse{Success: false, ErrorReason: "settlement_failed", ErrorMessage: why, Payer: a.From.Hex(), Network: network}
	if err := putRecord(h.db, key, rec); err != nil {
		h.log.Error("x402: store a failed settlement", "job", rec.JobID, "err", err)
	}
	return rec.answer()
}

// resume finishes a record a previous run (or a failed settlement) left.
func (h *Handler) resume(ctx context.Context, key []byte, rec record) {
	a := h.resumeAnswer(ctx, key, rec)
	h.log.Info("x402 authorization resumed", "job", rec.JobID, "payer", rec.Payer, "status", a.status)
}

func (h *Handler) resumeAnswer(ctx context.Context, key []byte, rec record) answer {
	pay, err := DecodePaymentSignature(rec.Header)
	if err != nil {
		rec.State, rec.Status, rec.Error = stateFailed, http.StatusPaymentRequired, "stored authorization unreadable: "+err.Error()
		rec.Body = mustJSON(failedDoc{Error: rec.Error, Outcome: "error", JobID: rec.JobID})
		_ = putRecord(h.db, key, rec)
		return rec.answer()
	}
	switch rec.State {
	case stateHiring:
		// The job's outcome died with the previous run: never settle.
		why := "the gateway stopped while the job ran; nothing was settled"
		h.log.Warn("x402 job interrupted by a restart; its authorization is not settled", "payer", rec.Payer, "capability", rec.Capability)
		rec.State, rec.Status, rec.Error, rec.Updated = stateFailed, http.StatusServiceUnavailable, why, h.now().UTC()
		rec.Body = mustJSON(failedDoc{Error: why, Outcome: "interrupted"})
		rec.Response = &SettleResponse{Success: false, ErrorReason: "interrupted", ErrorMessage: why, Payer: rec.Payer}
		if err := putRecord(h.db, key, rec); err != nil {
			h.log.Error("x402: store an interrupted job", "err", err)
		}
		return rec.answer()
	case stateVerified:
		var terms Terms
		for {
			cctx, cancel := context.WithTimeout(ctx, chainTimeout)
			terms, err = h.chain.Terms(cctx)
			cancel()
			if err == nil {
				break
			}
			h.log.Warn("x402: chain unavailable; settling a verified job later", "job", rec.JobID, "err", err)
			select {
			case <-ctx.Done():
				return failure(http.StatusServiceUnavailable, "the node's chain is unavailable")
			case <-time.After(5 * time.Second):
			}
		}
		return h.settle(ctx, key, rec, terms, pay)
	}
	return rec.answer()
}

// running returns the channel of key's hire or settlement in flight.
func (h *Handler) running(key string) chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.inflight[key]
}

// claim marks key in flight, unless it already is.
func (h *Handler) claim(key string) (chan struct{}, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.inflight[key]; ok {
		return nil, false
	}
	c := make(chan struct{})
	h.inflight[key] = c
	return c, true
}

func (h *Handler) release(key string, c chan struct{}) {
	h.mu.Lock()
	if h.inflight[key] == c {
		delete(h.inflight, key)
	}
	h.mu.Unlock()
	close(c)
}

// paidDoc is the 200 body: the job and its verified output.
type paidDoc struct {
	JobID        string          `json:"job_id"`
	Capability   string          `json:"capability"`
	Seller       string          `json:"seller"`
	Price        string          `json:"price"`
	Output       json.RawMessage `json:"output"`
	Verification json.RawMessage `json:"verification,omitempty"`
}

// failedDoc is the body of a job the client did not pay for.
type failedDoc struct {
	Error        string          `json:"error"`
	Outcome      string          `json:"outcome"`
	JobID        string          `json:"job_id,omitempty"`
	Verification json.RawMessage `json:"verification,omitempty"`
	// Settled is always false: nothing was taken from the client.
	Settled bool `json:"settled"`
}

// failStatus maps a hire that did not pass to a status and outcome.
func failStatus(res HireResult) (int, string) {
	outcome := res.Outcome
	if outcome == "" {
		outcome = "error"
	}
	switch outcome {
	case "invalid_input":
		return http.StatusBadRequest, outcome
	case "no_seller":
		return http.StatusServiceUnavailable, outcome
	case "timed_out":
		return http.StatusGatewayTimeout, outcome
	default:
		return http.StatusBadGateway, outcome
	}
}

func failure(status int, msg string) answer {
	return answer{status: status, body: map[string]string{"error": msg}}
}

func failJSON(w http.ResponseWriter, status int, msg string) { failure(status, msg).write(w) }

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(`{"error":"encode the answer"}`)
	}
	return b
}
