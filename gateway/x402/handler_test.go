package x402

import (
	"bufio"
	"bytes"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/swarmwage/swarmwage/escrow/evm"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/golang/glog.(*fileSink).flushDaemon"),
		goleak.IgnoreAnyFunction("github.com/dgraph-io/ristretto/v2/z.(*AllocatorPool).freeupAllocators"))
}

const testInput = `{"values":[1,2,3]}`

type door struct {
	h     *Handler
	srv   *httptest.Server
	hirer *fakeHirer
	chain *fakeChain
	payer *ecdsa.PrivateKey
	node  common.Address
}

func newDoor(t *testing.T, outcome string, opts ...Option) *door {
	t.Helper()
	payer, err := crypto.GenerateKey()
	require.NoError(t, err)
	node := common.HexToAddress("0x70997970C51812dc3A010C7d01b50e0d17dc79C8")
	d := &door{hirer: &fakeHirer{price: 1000, outcome: outcome}, chain: newFakeChain(node), payer: payer, node: node}
	d.chain.balances[crypto.PubkeyToAddress(payer.PublicKey)] = big.NewInt(1_000_000)
	db := openDB(t, t.TempDir())
	t.Cleanup(func() { db.Close() })
	d.h, err = New(d.hirer, d.chain, db, append([]Option{WithFee(50)}, opts...)...)
	require.NoError(t, err)
	mux := http.NewServeMux()
	Mount(mux, d.h)
	d.srv = httptest.NewServer(mux)
	t.Cleanup(func() { d.srv.Close(); d.h.Close() })
	return d
}

func (d *door) post(t *testing.T, capID, body string, header string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, d.srv.URL+"/x402/"+capID, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if header != "" {
		req.Header.Set(HeaderPaymentSignature, header)
	}
	resp, err := d.srv.Client().Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func (d *door) requirements(t *testing.T) Requirements {
	t.Helper()
	resp := d.post(t, "compute.statistics.mean", testInput, "")
	require.Equal(t, http.StatusPaymentRequired, resp.StatusCode)
	pr, err := DecodePaymentRequired(resp.Header.Get(HeaderPaymentRequired))
	require.NoError(t, err)
	require.Len(t, pr.Accepts, 1)
	return pr.Accepts[0]
}

func readJSON(t *testing.T, resp *http.Response) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&m))
	return m
}

func TestUnpaidRequestGets402WithTheTerms(t *testing.T) {
	d := newDoor(t, "released")
	resp := d.post(t, "compute.statistics.mean", testInput, "")
	require.Equal(t, http.StatusPaymentRequired, resp.StatusCode)
	pr, err := DecodePaymentRequired(resp.Header.Get(HeaderPaymentRequired))
	require.NoError(t, err)
	require.Equal(t, 2, pr.X402Version)
	require.Equal(t, d.srv.URL+"/x402/compute.statistics.mean", pr.Resource.URL)
	require.Equal(t, Requirements{
		Scheme: "exact", Network: "eip155:31337", Asset: d.chain.terms.Domain.Token.Hex(), Amount: "1050", PayTo: d.node.Hex(),
		MaxTimeoutSeconds: 90, Extra: Extra{Name: "Swarmwage Test USD", Version: "2", AssetTransferMethod: "eip3009"},
	}, pr.Accepts[0], "price 1000 plus fee 50; hire timeout 60 s plus settle margin 30 s")
	require.Zero(t, d.hirer.count(), "no job without a payment")
}

func TestPaidRequestHiresVerifiesThenSettles(t *testing.T) {
	d := newDoor(t, "released")
	req := d.requirements(t)
	header := signPayment(t, d.payer, d.chain.terms.Domain, req, time.Now(), nil)
	resp := d.post(t, "compute.statistics.mean", testInput, header)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	body := readJSON(t, resp)
	require.Equal(t, map[string]any{"mean": 2.0}, body["output"])
	sr, err := DecodeSettleResponse(resp.Header.Get(HeaderPaymentResponse))
	require.NoError(t, err)
	require.True(t, sr.Success)
	require.Equal(t, "eip155:31337", sr.Network)
	require.Equal(t, "1050", sr.Amount)
	require.NotEmpty(t, sr.Transaction)
	require.Equal(t, 1, d.chain.transferCount())
	require.Equal(t, int64(1050), d.chain.balance(d.node))
	require.Equal(t, int64(1_000_000-1050), d.chain.balance(crypto.PubkeyToAddress(d.payer.PublicKey)))
	require.Len(t, d.hirer.hires, 1)
	require.Equal(t, int64(1000), d.hirer.hires[0].MaxPrice, "the seller may get the authorization less the fee")
	require.Equal(t, testInput, string(d.hirer.hires[0].Input))
}

func TestFailedVerificationIsNeverSettled(t *testing.T) {
	d := newDoor(t, "verification_failed")
	header := signPayment(t, d.payer, d.chain.terms.Domain, d.requirements(t), time.Now(), nil)
	for range 2 { // the replay too
		resp := d.post(t, "compute.statistics.mean", testInput, header)
		require.Equal(t, http.StatusBadGateway, resp.StatusCode)
		body := readJSON(t, resp)
		require.Equal(t, "verification_failed", body["outcome"])
		require.Equal(t, false, body["settled"])
		sr, err := DecodeSettleResponse(resp.Header.Get(HeaderPaymentResponse))
		require.NoError(t, err)
		require.False(t, sr.Success)
		require.Empty(t, sr.Transaction)
	}
	require.Zero(t, d.chain.transferCount(), "the client pays nothing")
	require.Equal(t, int64(1_000_000), d.chain.balance(crypto.PubkeyToAddress(d.payer.PublicKey)))
	require.Equal(t, 1, d.hirer.count(), "a replay starts no second job")
}

func TestReplayedHeaderGetsTheSameAnswerAndOneJob(t *testing.T) {
	d := newDoor(t, "released")
	header := signPayment(t, d.payer, d.chain.terms.Domain, d.requirements(t), time.Now(), nil)
	var first []byte
	var firstResp string
	for i := range 3 {
		resp := d.post(t, "compute.statistics.mean", testInput, header)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		var buf bytes.Buffer
		_, err := buf.ReadFrom(resp.Body)
		require.NoError(t, err)
		if i == 0 {
			first, firstResp = buf.Bytes(), resp.Header.Get(HeaderPaymentResponse)
			continue
		}
		require.JSONEq(t, string(first), buf.String())
		require.Equal(t, firstResp, resp.Header.Get(HeaderPaymentResponse))
	}
	require.Equal(t, 1, d.hirer.count())
	require.Equal(t, 1, d.chain.transferCount())
}

func TestConcurrentSameHeaderRunsOneJob(t *testing.T) {
	d := newDoor(t, "released")
	d.hirer.block = make(chan struct{})
	header := signPayment(t, d.payer, d.chain.terms.Domain, d.requirements(t), time.Now(), nil)
	var wg sync.WaitGroup
	codes := make([]int, 4)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest(http.MethodPost, d.srv.URL+"/x402/compute.statistics.mean", strings.NewReader(testInput))
			req.Header.Set(HeaderPaymentSignature, header)
			resp, err := d.srv.Client().Do(req)
			if err == nil {
				codes[i] = resp.StatusCode
				resp.Body.Close()
			}
		}()
	}
	require.Eventually(t, func() bool { return d.hirer.count() == 1 }, 10*time.Second, 10*time.Millisecond)
	close(d.hirer.block)
	wg.Wait()
	require.Equal(t, []int{200, 200, 200, 200}, codes)
	require.Equal(t, 1, d.hirer.count())
	require.Equal(t, 1, d.chain.transferCount())
}

func TestRefusedPayments(t *testing.T) {
	other, err := crypto.GenerateKey()
	require.NoError(t, err)
	testCases := []struct {
		name string
		edit func(*evm.Authorization)
		req  func(*Requirements)
		key  *ecdsa.PrivateKey
		// claimPayer: the authorization names the payer, another key signs.
		claimPayer bool
		setup      func(*door)
		reason     string
	}{
		{name: "signed by another key", key: other, claimPayer: true, reason: "invalid_exact_evm_signature"},
		{name: "pays someone else", edit: func(a *evm.Authorization) { a.To = common.HexToAddress("0x1111111111111111111111111111111111111111") },
			reason: "invalid_exact_evm_recipient_mismatch"},
		{name: "value differs from accepted", edit: func(a *evm.Authorization) { a.Value = big.NewInt(2000) },
			reason: "invalid_exact_evm_payload_authorization_value_mismatch"},
		{name: "only the fee", req: func(r *Requirements) { r.Amount = "50" }, reason: "invalid_exact_evm_authorization_value"},
		{name: "expires too soon", edit: func(a *evm.Authorization) { a.ValidBefore = big.NewInt(time.Now().Unix() + 10) },
			reason: "invalid_exact_evm_payload_authorization_valid_before"},
		{name: "not valid yet", edit: func(a *evm.Authorization) { a.ValidAfter = big.NewInt(time.Now().Unix() + 3600) },
			reason: "invalid_exact_evm_payload_authorization_valid_after"},
		{name: "other network", req: func(r *Requirements) { r.Network = "eip155:8453" }, reason: "invalid_exact_evm_network_mismatch"},
		{name: "other asset", req: func(r *Requirements) { r.Asset = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" }, reason: "invalid_exact_evm_asset_mismatch"},
		{name: "other scheme", req: func(r *Requirements) { r.Scheme = "upto" }, reason: "invalid_exact_evm_scheme"},
		{name: "nonce used", edit: func(a *evm.Authorization) { a.Nonce = [32]byte{7} },
			setup: func(d *door) { d.chain.used[[32]byte{7}] = true }, reason: "invalid_exact_evm_nonce_already_used"},
		{name: "balance short", setup: func(d *door) { d.chain.balances[crypto.PubkeyToAddress(d.payer.PublicKey)] = big.NewInt(1049) },
			reason: "invalid_exact_evm_insufficient_balance"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			d := newDoor(t, "released")
			if tc.setup != nil {
				tc.setup(d)
			}
			req := d.requirements(t)
			if tc.req != nil {
				tc.req(&req)
			}
			key := d.payer
			if tc.key != nil {
				key = tc.key
			}
			edit := tc.edit
			if tc.claimPayer {
				edit = func(a *evm.Authorization) { a.From = crypto.PubkeyToAddress(d.payer.PublicKey) }
			}
			header := signPayment(t, key, d.chain.terms.Domain, req, time.Now(), edit)
			resp := d.post(t, "compute.statistics.mean", testInput, header)
			require.Equal(t, http.StatusPaymentRequired, resp.StatusCode)
			pr, err := DecodePaymentRequired(resp.Header.Get(HeaderPaymentRequired))
			require.NoError(t, err)
			require.True(t, strings.HasPrefix(pr.Error, tc.reason+":"), "error %q, want reason %s", pr.Error, tc.reason)
			require.Zero(t, d.hirer.count(), "no job for a refused payment")
			require.Zero(t, d.chain.transferCount())
		})
	}
}

func TestRequestLimits(t *testing.T) {
	d := newDoor(t, "released")
	testCases := []struct {
		name   string
		capID  string
		body   string
		header string
		status int
	}{
		{name: "body too large", capID: "compute.statistics.mean", body: `{"x":"` + strings.Repeat("a", MaxBody) + `"}`, status: http.StatusRequestEntityTooLarge},
		{name: "body not an object", capID: "compute.statistics.mean", body: `[1,2]`, status: http.StatusBadRequest},
		{name: "body not JSON", capID: "compute.statistics.mean", body: `{`, status: http.StatusBadRequest},
		{name: "header too large", capID: "compute.statistics.mean", body: testInput, header: strings.Repeat("A", MaxSignatureHeader+4), status: http.StatusRequestHeaderFieldsTooLarge},
		{name: "header not base64", capID: "compute.statistics.mean", body: testInput, header: "%%%", status: http.StatusPaymentRequired},
		{name: "bad capability", capID: "..%2F", body: testInput, status: http.StatusNotFound},
		{name: "invalid input", capID: "compute.statistics.mean", body: `{"bad":true}`, status: http.StatusBadRequest},
		{name: "no seller", capID: "no.such", body: testInput, status: http.StatusNotFound},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			resp := d.post(t, tc.capID, tc.body, tc.header)
			require.Equal(t, tc.status, resp.StatusCode)
			m := readJSON(t, resp)
			if tc.status != http.StatusPaymentRequired {
				require.NotEmpty(t, m["error"])
			}
		})
	}
	require.Zero(t, d.hirer.count())
}

// The hire is cut short so that the settlement fits before validBefore.
func TestHireDeadlineEndsBeforeTheAuthorization(t *testing.T) {
	d := newDoor(t, "released", WithHireTimeout(5*time.Minute))
	req := d.requirements(t)
	now := time.Now()
	header := signPayment(t, d.payer, d.chain.terms.Domain, req, now, func(a *evm.Authorization) { a.ValidBefore = big.NewInt(now.Unix() + 60) })
	resp := d.post(t, "compute.statistics.mean", testInput, header)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	got := d.hirer.hires[0].Timeout
	require.LessOrEqual(t, got, 30*time.Second, "60 s of validity less the 30 s settle margin")
	require.Greater(t, got, 20*time.Second)
}

// A settlement that fails while the authorization is valid is retried by
// a replay of the header, without a second job.
func TestFailedSettlementIsRetriedByAReplay(t *testing.T) {
	d := newDoor(t, "released")
	header := signPayment(t, d.payer, d.chain.terms.Domain, d.requirements(t), time.Now(), nil)
	d.chain.failSend = errors.New("chain down")
	resp := d.post(t, "compute.statistics.mean", testInput, header)
	require.Equal(t, http.StatusPaymentRequired, resp.StatusCode)
	sr, err := DecodeSettleResponse(resp.Header.Get(HeaderPaymentResponse))
	require.NoError(t, err)
	require.False(t, sr.Success)
	require.Zero(t, d.chain.transferCount())
	d.chain.mu.Lock()
	d.chain.failSend = nil
	d.chain.mu.Unlock()
	resp = d.post(t, "compute.statistics.mean", testInput, header)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, 1, d.chain.transferCount())
	require.Equal(t, 1, d.hirer.count())
}

// A restart settles a verified authorization and never settles one whose
// job was running.
func TestRestartSettlesVerifiedAndDropsInterrupted(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir)
	payer, err := crypto.GenerateKey()
	require.NoError(t, err)
	node := common.HexToAddress("0x70997970C51812dc3A010C7d01b50e0d17dc79C8")
	chain := newFakeChain(node)
	from := crypto.PubkeyToAddress(payer.PublicKey)
	chain.balances[from] = big.NewInt(1_000_000)
	req := Requirements{Scheme: "exact", Network: "eip155:31337", Asset: chain.terms.Domain.Token.Hex(), Amount: "1050", PayTo: node.Hex(),
		MaxTimeoutSeconds: 90, Extra: Extra{Name: "Swarmwage Test USD", Version: "2", AssetTransferMethod: "eip3009"}}
	store := func(state string, body string) []byte {
		header := signPayment(t, payer, chain.terms.Domain, req, time.Now(), nil)
		pay, err := DecodePaymentSignature(header)
		require.NoError(t, err)
		key := authKey(31337, chain.terms.Domain.Token, from, pay.Authorization.Nonce)
		rec := record{State: state, Capability: "compute.statistics.mean", Payer: from.Hex(), Amount: "1050", Header: header,
			JobID: "job-" + state, Status: http.StatusOK, Body: json.RawMessage(body)}
		_, created, err := createRecord(db, key, rec)
		require.NoError(t, err)
		require.True(t, created)
		return key
	}
	verified := store(stateVerified, `{"output":{"mean":2}}`)
	hiring := store(stateHiring, ``)
	h, err := New(&fakeHirer{}, chain, db)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		a, _ := getRecord(db, verified)
		b, _ := getRecord(db, hiring)
		return a.terminal() && b.terminal()
	}, 10*time.Second, 10*time.Millisecond)
	require.NoError(t, h.Close())
	a, err := getRecord(db, verified)
	require.NoError(t, err)
	require.Equal(t, stateSettled, a.State)
	require.True(t, a.Response.Success)
	b, err := getRecord(db, hiring)
	require.NoError(t, err)
	require.Equal(t, stateFailed, b.State)
	require.Equal(t, 1, chain.transferCount(), "only the verified one is settled")
	require.Equal(t, int64(1_000_000-1050), chain.balance(from))
	// Badger on disk: the records survive the database's restart too.
	require.NoError(t, db.Close())
	db = openDB(t, dir)
	defer db.Close()
	a2, err := getRecord(db, verified)
	require.NoError(t, err)
	require.Equal(t, stateSettled, a2.State)
}

// A client that sends its headers and then trickles the body gets 408
// once the body deadline passes; no job starts.
func TestSlowBodyTimesOut(t *testing.T) {
	d := newDoor(t, "released", WithBodyTimeout(300*time.Millisecond))
	conn, err := net.Dial("tcp", strings.TrimPrefix(d.srv.URL, "http://"))
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.Write([]byte("POST /x402/compute.statistics.mean HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"data\":"))
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(10*time.Second)))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err, "the server answers instead of waiting for the rest")
	defer resp.Body.Close()
	require.Equal(t, http.StatusRequestTimeout, resp.StatusCode)
	require.Zero(t, d.hirer.count())
}
