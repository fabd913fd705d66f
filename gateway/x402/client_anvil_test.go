package x402_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow/evm"
	"github.com/swarmwage/swarmwage/escrow/evm/contract"
	"github.com/swarmwage/swarmwage/escrow/evm/evmtest"
	"github.com/swarmwage/swarmwage/gateway/x402"
	"github.com/swarmwage/swarmwage/internal/npmci"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/node"
	"github.com/swarmwage/swarmwage/node/nodetest"
)

// The real x402 client (@x402/fetch 2.27.0 + @x402/evm 2.27.0 + viem
// 2.57.20, pinned in testdata/package-lock.json) pays a real gateway node
// on the evm rail, against anvil, for a job a real seller node runs.

const (
	capMean   = "compute.statistics.mean"   // builtin: verifies
	capStddev = "compute.statistics.stddev" // exec handler that lies: fails verification
	network   = "x402test"
	price     = 1000 // base units of the token: 0.001
	fee       = 50
)

// clientDir installs the pinned client (npm ci) when node_modules lacks
// it and returns testdata/.
func clientDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("testdata")
	require.NoError(t, err)
	require.NoError(t, npmci.Install(dir, "@x402/fetch/package.json", "@x402/evm/package.json", "viem/package.json"))
	return dir
}

type clientResult struct {
	Status           int                  `json:"status"`
	Body             json.RawMessage      `json:"body"`
	PaymentResponse  *x402.SettleResponse `json:"paymentResponse"`
	PaymentSignature string               `json:"paymentSignature"`
}

// pay runs one request of the real client, allowed to pay up to 10,000
// base units of the rig's token.
func (r *rig) pay(t *testing.T, dir, url, body string) clientResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join(dir, "pay.mjs"), url, r.key, body,
		fmt.Sprintf("eip155:%d", r.anvil.ChainID), r.dep.Token.Hex(), "10000")
	cmd.Dir = dir
	out, err := cmd.Output()
	var stderr string
	if ee, ok := err.(*exec.ExitError); ok {
		stderr = string(ee.Stderr)
	}
	require.NoError(t, err, "node pay.mjs: %s", stderr)
	var res clientResult
	require.NoError(t, json.Unmarshal(out, &res), "client output: %s", out)
	return res
}

type rig struct {
	anvil   *evmtest.Anvil
	dep     *evm.Deployment
	tok     *contract.TestStablecoin
	seller  *node.Node
	gateway *node.Node
	url     string
	client  common.Address
	key     string
	h       *x402.Handler
}

func (r *rig) balance(t *testing.T, a common.Address) int64 {
	t.Helper()
	b, err := r.tok.BalanceOf(&bind.CallOpts{Context: t.Context()}, a)
	require.NoError(t, err)
	return b.Int64()
}

func (r *rig) sellerJobs(t *testing.T) int {
	t.Helper()
	jobs, err := r.seller.Market.JobsPage(t.Context(), market.JobQuery{Role: "seller"})
	require.NoError(t, err)
	return len(jobs)
}

func newRig(t *testing.T) *rig {
	t.Helper()
	dir := clientDir(t)
	_ = dir
	a := evmtest.StartAnvil(t)
	deployer, err := evm.ParseKey(a.Keys[0])
	require.NoError(t, err)
	ctx := t.Context()
	dep, err := evm.Deploy(ctx, a.URL, deployer, evm.DeployOptions{TestToken: true, Notice: 24 * time.Hour})
	require.NoError(t, err)
	start := func(boot ...*node.Node) *node.Node {
		repo := nodetest.NewRepoWith(t, t.TempDir(), network, func(c *node.Config) {
			c.Settlement = node.SettlementConfig{Rail: node.RailEVM, RPC: a.URL, Escrow: dep.Escrow.Hex(), Token: dep.Token.Hex(),
				Confirmations: 1, RedeemInterval: "1s", ReconcileInterval: "1s"}
		})
		k, _, err := evm.LoadOrCreateKey(filepath.Join(repo.Dir, evm.KeyFileName))
		require.NoError(t, err)
		require.NoError(t, evm.SendNative(ctx, a.URL, deployer, k.Address(), new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)))
		return nodetest.Start(t, repo, node.Options{}, boot...)
	}
	seller := start()
	gw := start(seller)
	_, err = seller.Market.AddListing(ctx, market.ListingParams{Capability: capMean, Price: price, Handler: market.HandlerConfig{Kind: market.HandlerBuiltin}})
	require.NoError(t, err)
	_, err = seller.Market.AddListing(ctx, market.ListingParams{Capability: capStddev, Price: price, Handler: market.HandlerConfig{Kind: market.HandlerExec,
		Command: []string{"sh", "-c", `cat >/dev/null; echo '{"result": 99}'`}}})
	require.NoError(t, err)
	nodetest.WaitReady(t, seller, gw)
	// The gateway fronts each job from its escrow deposit.
	gwAddr := common.HexToAddress(gw.Settler.Address())
	require.NoError(t, evm.MintTest(ctx, a.URL, deployer, dep.Token, gwAddr, 100_000))
	_, _, err = gw.Settler.Deposit(ctx, 100_000)
	require.NoError(t, err)
	// The client: an anvil account with tokens and no swarmwage.
	clientKey := a.Keys[1]
	client := common.HexToAddress(a.Addresses[1])
	require.NoError(t, evm.MintTest(ctx, a.URL, deployer, dep.Token, client, 1_000_000))

	mux := http.NewServeMux()
	h, err := gw.MountX402(mux, x402.Config{Fee: "0.00005"})
	require.NoError(t, err)
	require.NotNil(t, h, "an evm node mounts the door")
	srv := httptest.NewServer(mux)
	t.Cleanup(func() { srv.Close(); h.Close() })

	eth, err := ethclient.DialContext(ctx, a.URL)
	require.NoError(t, err)
	t.Cleanup(eth.Close)
	tok, err := contract.NewTestStablecoin(dep.Token, eth)
	require.NoError(t, err)
	return &rig{anvil: a, dep: dep, tok: tok, seller: seller, gateway: gw, url: srv.URL, client: client, key: clientKey, h: h}
}

func TestRealClientPaysOnlyForVerifiedOutput(t *testing.T) {
	r := newRig(t)
	dir := clientDir(t)
	gwAddr := common.HexToAddress(r.gateway.Settler.Address())
	// Find the sellers before the first paid call (the prefetch cache).
	require.Eventually(t, func() bool {
		resp, err := http.Post(r.url+"/x402/"+capMean, "application/json", strings.NewReader(`{"data":[1,2,3]}`))
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusPaymentRequired
	}, time.Minute, 200*time.Millisecond)

	t.Run("paid call", func(t *testing.T) {
		clientBefore, gwBefore := r.balance(t, r.client), r.balance(t, gwAddr)
		res := r.pay(t, dir, r.url+"/x402/"+capMean, `{"data":[1,2,3,4]}`)
		require.Equal(t, http.StatusOK, res.Status, "body: %s", res.Body)
		var body struct {
			Output map[string]any `json:"output"`
			JobID  string         `json:"job_id"`
			Price  string         `json:"price"`
		}
		require.NoError(t, json.Unmarshal(res.Body, &body))
		require.Equal(t, map[string]any{"result": 2.5}, body.Output)
		require.NotNil(t, res.PaymentResponse)
		require.True(t, res.PaymentResponse.Success)
		require.Equal(t, fmt.Sprintf("eip155:%d", r.anvil.ChainID), res.PaymentResponse.Network)
		require.Equal(t, strings.ToLower(r.client.Hex()), strings.ToLower(res.PaymentResponse.Payer))
		require.Equal(t, clientBefore-(price+fee), r.balance(t, r.client), "the client paid the price plus the fee")
		require.Equal(t, gwBefore+price+fee, r.balance(t, gwAddr), "the gateway node got it")

		// A replay of the header: the same answer, no second job, no
		// second transfer.
		jobs := r.sellerJobs(t)
		req, err := http.NewRequest(http.MethodPost, r.url+"/x402/"+capMean, strings.NewReader(`{"data":[1,2,3,4]}`))
		require.NoError(t, err)
		req.Header.Set(x402.HeaderPaymentSignature, res.PaymentSignature)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		var again json.RawMessage
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&again))
		require.JSONEq(t, string(res.Body), string(again))
		sr, err := x402.DecodeSettleResponse(resp.Header.Get(x402.HeaderPaymentResponse))
		require.NoError(t, err)
		require.Equal(t, res.PaymentResponse.Transaction, sr.Transaction)
		require.Equal(t, jobs, r.sellerJobs(t), "no second job")
		require.Equal(t, clientBefore-(price+fee), r.balance(t, r.client), "one transfer")
	})

	t.Run("failing verification costs the client nothing", func(t *testing.T) {
		clientBefore := r.balance(t, r.client)
		res := r.pay(t, dir, r.url+"/x402/"+capStddev, `{"data":[1,2,3,4]}`)
		require.Equal(t, http.StatusBadGateway, res.Status, "body: %s", res.Body)
		var body struct {
			Outcome string `json:"outcome"`
			Settled bool   `json:"settled"`
		}
		require.NoError(t, json.Unmarshal(res.Body, &body))
		require.Equal(t, "verification_failed", body.Outcome)
		require.False(t, body.Settled)
		require.NotNil(t, res.PaymentResponse)
		require.False(t, res.PaymentResponse.Success)
		require.Empty(t, res.PaymentResponse.Transaction)
		require.Equal(t, clientBefore, r.balance(t, r.client), "the client's balance is unchanged")
	})
}

// A crash after the output passed verification and before the settlement
// leaves a verified record: the next start settles it on chain, once, and
// a replay of the header gets the output with the settlement.
func TestRestartSettlesAVerifiedAuthorizationOnChain(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	deployer, err := evm.ParseKey(r.anvil.Keys[0])
	require.NoError(t, err)
	payerKey, err := crypto.HexToECDSA(strings.TrimPrefix(r.anvil.Keys[2], "0x"))
	require.NoError(t, err)
	payer := crypto.PubkeyToAddress(payerKey.PublicKey)
	require.NoError(t, evm.MintTest(ctx, r.anvil.URL, deployer, r.dep.Token, payer, 5000))
	gwAddr := common.HexToAddress(r.gateway.Settler.Address())
	gwBefore := r.balance(t, gwAddr)

	rail, err := r.gateway.Settler.Chain(ctx)
	require.NoError(t, err)
	domain, err := rail.TokenDomain(ctx)
	require.NoError(t, err)
	require.Equal(t, "Swarmwage Test USD", domain.Name)
	require.Equal(t, "2", domain.Version)
	req := x402.Requirements{Scheme: "exact", Network: fmt.Sprintf("eip155:%d", r.anvil.ChainID), Asset: r.dep.Token.Hex(),
		Amount: "1050", PayTo: gwAddr.Hex(), MaxTimeoutSeconds: 90,
		Extra: x402.Extra{Name: domain.Name, Version: domain.Version, AssetTransferMethod: "eip3009"}}
	header := x402.SignPayment(t, payerKey, domain, req, time.Now(), nil)

	// The running door stops; the record is what a crash left.
	require.NoError(t, r.h.Close())
	require.NoError(t, x402.StoreVerified(r.gateway.DB, r.anvil.ChainID, r.dep.Token, header, json.RawMessage(`{"output":{"result":2.5}}`)))
	h, err := r.gateway.NewX402(x402.Config{Fee: "0.00005"})
	require.NoError(t, err)
	defer h.Close()
	mux := http.NewServeMux()
	x402.Mount(mux, h)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	require.Eventually(t, func() bool { return r.balance(t, payer) == 5000-1050 }, time.Minute, 100*time.Millisecond, "settled on restart")
	require.Equal(t, gwBefore+1050, r.balance(t, gwAddr))
	hreq, err := http.NewRequest(http.MethodPost, srv.URL+"/x402/"+capMean, strings.NewReader(`{"data":[1,2,3,4]}`))
	require.NoError(t, err)
	hreq.Header.Set(x402.HeaderPaymentSignature, header)
	resp, err := http.DefaultClient.Do(hreq)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	sr, err := x402.DecodeSettleResponse(resp.Header.Get(x402.HeaderPaymentResponse))
	require.NoError(t, err)
	require.True(t, sr.Success)
	require.NotEmpty(t, sr.Transaction)
	require.Equal(t, 5000-1050, int(r.balance(t, payer)), "settled once")
}

// On the credits rail there is no x402 door: nothing is mounted.
func TestMountX402OnCreditsMountsNothing(t *testing.T) {
	n := nodetest.Start(t, nodetest.NewRepo(t, network), node.Options{})
	mux := http.NewServeMux()
	h, err := n.MountX402(mux, x402.Config{})
	require.NoError(t, err)
	require.Nil(t, h)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/x402/"+capMean, "application/json", strings.NewReader(`{"data":[1]}`))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	_, err = n.NewX402(x402.Config{})
	require.ErrorIs(t, err, node.ErrNoEVM)
	_, err = (x402.Config{Fee: "-1"}).FeeUnits()
	require.Error(t, err)
}
