package main

// End-to-end tests of the evm settlement rail: real daemons (the binary)
// on a private loopback network, settling through a real anvil (npm
// @foundry-rs/anvil, pinned) behind a TCP proxy the test can take down.

import (
	"encoding/json"
	"io"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow/evm"
	"github.com/swarmwage/swarmwage/escrow/evm/contract"
	"github.com/swarmwage/swarmwage/escrow/evm/evmtest"
	"github.com/swarmwage/swarmwage/internal/lockedbuf"
)

// evmMarket is a seller and a buyer daemon on the evm rail of one anvil.
type evmMarket struct {
	a                   *evmtest.Anvil
	proxy               *evmtest.Proxy
	escrowAddr, token   common.Address
	deployer            *evm.Key
	seller, buyer       string
	sellerCmd, buyerCmd *exec.Cmd
	sellerAddr          string // libp2p multiaddr
	sellerEVM, buyerEVM common.Address
	eth                 *ethclient.Client
	rpc                 *rpc.Client
	esc                 *contract.SwarmwageEscrow
	tok                 *contract.TestStablecoin
}

// insertSettlement adds keys to the [settlement] table init wrote.
func insertSettlement(t *testing.T, repo, keys string) {
	t.Helper()
	p := filepath.Join(repo, "config.toml")
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	s := strings.Replace(string(b), "[settlement]\n", "[settlement]\n"+keys+"\n", 1)
	require.NotEqual(t, string(b), s, "no [settlement] table in %s", p)
	require.NoError(t, os.WriteFile(p, []byte(s), 0o600))
}

func evmInit(t *testing.T, m *evmMarket, extra ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	args := append([]string{"--repo", dir, "init", "--network", "clitest", "--listen", "/ip4/127.0.0.1/tcp/0", "--api", "127.0.0.1:0",
		"--settlement", "evm", "--rpc", m.proxy.URL, "--escrow", m.escrowAddr.Hex(), "--token", m.token.Hex(), "--json"}, extra...)
	r := swarmwage(t, args...)
	require.Equal(t, 0, r.Code, r.Stderr)
	var out struct {
		Rail, Address string
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &out))
	require.Equal(t, "evm", out.Rail)
	require.True(t, common.IsHexAddress(out.Address), r.Stdout)
	insertSettlement(t, dir, "redeem_interval = \"1s\"\nreconcile_interval = \"500ms\"")
	return dir
}

func walletAddress(t *testing.T, repo string) common.Address {
	t.Helper()
	r := swarmwage(t, "--repo", repo, "wallet", "address", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var out map[string]string
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &out))
	require.Len(t, out, 1, r.Stdout)
	require.True(t, common.IsHexAddress(out["address"]), r.Stdout)
	return common.HexToAddress(out["address"])
}

func startEVMMarket(t *testing.T) *evmMarket {
	t.Helper()
	return startEVMMarketWith(t, []string{"--notice", "1h"}, "[market]\nverification_window = \"4s\"", nil)
}

// startEVMMarketWith is startEVMMarket with deploy's notice flags, the
// seller's config and, when sellerErr is set, the seller daemon's stderr
// copied into it.
func startEVMMarketWith(t *testing.T, notice []string, sellerConfig string, sellerErr io.Writer) *evmMarket {
	t.Helper()
	m := &evmMarket{a: evmtest.StartAnvil(t)}
	m.proxy = evmtest.StartProxy(t, m.a.URL)
	keyFile, err := m.a.WriteKey(t.TempDir(), 0)
	require.NoError(t, err)
	m.deployer, err = evm.ParseKey(m.a.Keys[0])
	require.NoError(t, err)
	r := swarmwage(t, append(append([]string{"chain", "deploy", "--rpc", m.a.URL, "--key-file", keyFile, "--test-token"}, notice...), "--json")...)
	require.Equal(t, 0, r.Code, r.Stderr)
	var dep chainDeployResult
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &dep))
	m.escrowAddr, m.token = common.HexToAddress(dep.Escrow), common.HexToAddress(dep.Token)

	m.eth, err = ethclient.Dial(m.a.URL)
	require.NoError(t, err)
	t.Cleanup(m.eth.Close)
	m.rpc = m.eth.Client()
	m.esc, err = contract.NewSwarmwageEscrow(m.escrowAddr, m.eth)
	require.NoError(t, err)
	m.tok, err = contract.NewTestStablecoin(m.token, m.eth)
	require.NoError(t, err)

	m.seller = evmInit(t, m)
	if sellerConfig != "" {
		setConfig(t, m.seller, sellerConfig)
	}
	// The buyer brings its own key, as a user with a wallet would.
	buyerKey, err := m.a.WriteKey(t.TempDir(), 5)
	require.NoError(t, err)
	m.buyer = evmInit(t, m, "--evm-key-file", buyerKey)
	m.sellerEVM, m.buyerEVM = walletAddress(t, m.seller), walletAddress(t, m.buyer)
	require.Equal(t, common.HexToAddress(m.a.Addresses[5]), m.buyerEVM, "imported key")
	st, err := os.Stat(filepath.Join(m.buyer, "evm.key"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm())

	// The seller's key is new: it needs gas money. The buyer's (an anvil
	// account) has ether; it gets the token.
	require.NoError(t, m.rpc.CallContext(t.Context(), nil, "anvil_setBalance", m.sellerEVM, "0x56BC75E2D63100000"))
	require.NoError(t, evm.MintTest(t.Context(), m.a.URL, m.deployer, m.token, m.buyerEVM, 10_000_000))
	// Deposit offline, before the daemon runs: approve + deposit from the
	// node's address, booked in its ledger.
	r = swarmwage(t, "--repo", m.buyer, "wallet", "deposit", "--json", "10")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, `"available": "10"`)
	require.Equal(t, int64(0), m.tokenOf(t, m.buyerEVM))

	m.sellerCmd = startDaemonErr(t, m.seller, sellerErr)
	m.sellerAddr = nodeIDOf(t, m.seller).Addrs[0]
	m.buyerCmd = startDaemon(t, m.buyer, "--bootstrap", m.sellerAddr)
	return m
}

func (m *evmMarket) tokenOf(t *testing.T, a common.Address) int64 {
	t.Helper()
	b, err := m.tok.BalanceOf(&bind.CallOpts{Context: t.Context()}, a)
	require.NoError(t, err)
	return b.Int64()
}

// jobOnChain is a job's state in the escrow contract: 0 open, 1 paid, 2
// cancelled.
func (m *evmMarket) jobOnChain(t *testing.T, jobID string) uint8 {
	t.Helper()
	j, err := m.esc.Job(&bind.CallOpts{Context: t.Context()}, m.buyerEVM, m.sellerEVM, evm.JobID(jobID))
	require.NoError(t, err)
	return j.State
}

func (m *evmMarket) sell(t *testing.T, capID, price string, extra ...string) {
	t.Helper()
	args := append([]string{"--repo", m.seller, "sell", "add", "--price", price}, extra...)
	r := swarmwage(t, append(args, capID)...)
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "at "+price+" tokens", "amounts in the rail's unit")
	require.Eventually(t, func() bool {
		r := swarmwage(t, "--repo", m.buyer, "find", "--json", "--timeout", "5s", capID)
		return r.Code == 0 && strings.Contains(r.Stdout, `"rail": "evm"`) && strings.Contains(r.Stdout, m.sellerEVM.Hex())
	}, 30*time.Second, 200*time.Millisecond)
}

// escrowJSON is the part of 'escrow show --json' these tests read.
type escrowJSON struct {
	State         string `json:"state"`
	Rail          string `json:"rail"`
	ChainOutcome  string `json:"chain_outcome"`
	RefundPending bool   `json:"refund_pending"`
	Provisional   bool   `json:"provisional"`
	Lock          struct {
		RailProof json.RawMessage `json:"rail_proof"`
	} `json:"lock"`
}

func showEscrow(t *testing.T, repo, jobID string) escrowJSON {
	t.Helper()
	r := swarmwage(t, "--repo", repo, "escrow", "show", "--json", jobID)
	var e escrowJSON
	if r.Code == 0 {
		require.NoError(t, json.Unmarshal([]byte(r.Stdout), &e))
	}
	return e
}

type evmHire struct {
	hireJSON
	Rail    string `json:"rail"`
	Error   string `json:"error"`
	Outcome string `json:"outcome"`
}

func hireEVM(t *testing.T, repo string, args ...string) (evmHire, cliResult) {
	t.Helper()
	r := swarmwage(t, append([]string{"--repo", repo, "hire", "--json"}, args...)...)
	var h evmHire
	if r.Stdout != "" {
		require.NoError(t, json.Unmarshal([]byte(r.Stdout), &h), r.Stdout)
	}
	return h, r
}

type walletJSON struct {
	Rail      string `json:"rail"`
	Address   string `json:"address"`
	Available string `json:"available"`
	Held      string `json:"held"`
	Paid      string `json:"paid"`
	Earned    string `json:"earned"`
	Deposited string `json:"deposited"`
	Withdrawn string `json:"withdrawn"`
	// Withdrawing is line money asked back, out of Available.
	Withdrawing string `json:"withdrawing"`
	Token       string `json:"token"`
	Gas         string `json:"gas"`
	Deposit     string `json:"deposit"`
	Redeemable  string `json:"redeemable"`
	Chain       *struct {
		Free, Lines, Held, Provisional string
	} `json:"chain"`
}

func walletOf(t *testing.T, repo string) walletJSON {
	t.Helper()
	r := swarmwage(t, "--repo", repo, "wallet", "balance", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var w walletJSON
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &w), r.Stdout)
	return w
}

func withdraw(t *testing.T, repo string) (withdrawn, pending string) {
	t.Helper()
	r := swarmwage(t, "--repo", repo, "wallet", "withdraw", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var out map[string]string
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &out), r.Stdout)
	require.Len(t, out, 2, r.Stdout)
	return out["withdrawn"], out["pending"]
}

// TestCLIEVMRail drives both rails' promises end to end on anvil: a
// verified hire is redeemed to the seller's address; a failed output is
// cancelled on chain and can never pay; with the chain down a hire fails
// clearly, holds nothing, and hires resume when it is back; a buyer
// killed after delivery cannot stop the seller's claim after not-before; a
// seller killed mid-job is never paid; both ledgers and the chain agree;
// and withdrawals take the free deposit at once and line money after the
// notice.
func TestCLIEVMRail(t *testing.T) {
	t.Parallel()
	m := startEVMMarket(t)
	w := walletOf(t, m.buyer)
	require.Equal(t, "evm", w.Rail)
	require.Equal(t, m.buyerEVM.Hex(), w.Address)
	require.Equal(t, "10", w.Deposit)
	require.Equal(t, "0", w.Token)
	require.NotEqual(t, "0", w.Gas)
	require.Equal(t, "10", w.Available)
	require.Equal(t, "10", w.Chain.Provisional, "a deposit a few blocks deep is provisional: a reorg would undo it")

	// Released: the token lands in the seller's address.
	m.sell(t, "compute.statistics.mean", "0.05")
	h, r := hireEVM(t, m.buyer, "--input-json", `{"data":[1,2,3,4]}`, "compute.statistics.mean")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Equal(t, "evm", h.Rail)
	require.Equal(t, "released", h.Escrow.State)
	require.Eventually(t, func() bool { return m.tokenOf(t, m.sellerEVM) == 50_000 }, 30*time.Second, 200*time.Millisecond)
	require.Equal(t, uint8(1), m.jobOnChain(t, h.JobID))
	require.Eventually(t, func() bool { return showEscrow(t, m.buyer, h.JobID).ChainOutcome == "paid" }, 20*time.Second, 200*time.Millisecond)
	require.Eventually(t, func() bool { return showEscrow(t, m.seller, h.JobID).ChainOutcome == "paid" }, 10*time.Second, 100*time.Millisecond)
	e := showEscrow(t, m.seller, h.JobID)
	require.Equal(t, "evm", e.Rail)
	r = swarmwage(t, "--repo", m.buyer, "jobs", "show", "--json", h.JobID)
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, `"rail": "evm"`)

	// A failing output: refunded, cancelled on chain before its not-before.
	m.sell(t, "compute.statistics.median", "0.05", "--handler", `exec:sh -c "cat >/dev/null; echo '{\"result\": 42}'"`)
	bad, r := hireEVM(t, m.buyer, "--input-json", `{"data":[1,2,3]}`, "compute.statistics.median")
	require.Equal(t, 5, r.Code, r.Stderr)
	require.Equal(t, "refunded", bad.Escrow.State)
	require.Eventually(t, func() bool { return showEscrow(t, m.buyer, bad.JobID).ChainOutcome == "cancelled" }, 20*time.Second, 200*time.Millisecond)
	require.Equal(t, uint8(2), m.jobOnChain(t, bad.JobID))
	require.False(t, showEscrow(t, m.buyer, bad.JobID).RefundPending)
	require.Eventually(t, func() bool { return showEscrow(t, m.seller, bad.JobID).State == "disputed" }, 10*time.Second, 100*time.Millisecond)
	badLock := showEscrow(t, m.seller, bad.JobID).Lock.RailProof
	require.NotEmpty(t, badLock)

	// The chain goes down: a hire fails clearly and holds nothing; hires
	// resume when it is back.
	m.proxy.Down()
	time.Sleep(time.Second) // past the cached chain head
	down, r := hireEVM(t, m.buyer, "--input-json", `{"data":[7]}`, "compute.statistics.mean")
	require.Equal(t, 1, r.Code, r.Stderr)
	require.Contains(t, down.Error, "chain unreachable")
	require.Empty(t, down.JobID, "nothing was locked")
	require.Equal(t, "0", walletOf(t, m.buyer).Held)
	require.NoError(t, m.proxy.Up())
	require.Eventually(t, func() bool {
		h, r := hireEVM(t, m.buyer, "--input-json", `{"data":[8]}`, "compute.statistics.mean")
		return r.Code == 0 && h.Escrow.State == "released"
	}, 30*time.Second, 500*time.Millisecond)
	require.Eventually(t, func() bool { return m.tokenOf(t, m.sellerEVM) == 100_000 }, 30*time.Second, 200*time.Millisecond)

	// A buyer killed after delivery: the seller claims the lock after its
	// not-before, and the buyer's ledger follows the chain when it is back.
	m.sell(t, "custom.test.echo", "0.25", "--handler", "exec:cat")
	echo, r := hireEVM(t, m.buyer, "--timeout", "8s", "--input-json", `{"hello":"world"}`, "custom.test.echo")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Equal(t, "delivered", echo.Escrow.State)
	require.NoError(t, m.buyerCmd.Process.Kill())
	_ = m.buyerCmd.Wait()
	require.Eventually(t, func() bool { return m.tokenOf(t, m.sellerEVM) == 350_000 }, 60*time.Second, 250*time.Millisecond)
	// The ledger books the payment once the redeem transaction returns.
	require.Eventually(t, func() bool { return showEscrow(t, m.seller, echo.JobID).ChainOutcome == "paid" }, 10*time.Second, 100*time.Millisecond)
	e = showEscrow(t, m.seller, echo.JobID)
	require.Equal(t, "released", e.State)
	require.False(t, e.Provisional)
	require.Equal(t, "delivered", showEscrow(t, m.buyer, echo.JobID).State, "the buyer was down")
	m.buyerCmd = startDaemon(t, m.buyer, "--bootstrap", m.sellerAddr)
	require.Eventually(t, func() bool {
		e := showEscrow(t, m.buyer, echo.JobID)
		return e.State == "released" && e.ChainOutcome == "paid"
	}, 30*time.Second, 200*time.Millisecond)

	// A seller killed mid-job: the buyer refunds at the deadline, cancels on
	// chain, and the seller is never paid.
	m.sell(t, "compute.statistics.variance", "0.05", "--handler", `exec:sh -c "cat >/dev/null; sleep 30"`)
	done := make(chan cliResult, 1)
	go func() {
		done <- swarmwage(t, "--repo", m.buyer, "hire", "--json", "--timeout", "6s", "--input-json", `{"data":[1]}`, "compute.statistics.variance")
	}()
	require.Eventually(t, func() bool {
		r := swarmwage(t, "--repo", m.seller, "escrow", "list", "--json", "--state", "locked")
		return strings.Contains(r.Stdout, `"job_id"`)
	}, 30*time.Second, 50*time.Millisecond)
	require.NoError(t, m.sellerCmd.Process.Kill())
	_ = m.sellerCmd.Wait()
	var killed evmHire
	select {
	case r = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("hire did not end after the deadline")
	}
	require.Equal(t, 4, r.Code, "stdout=%s stderr=%s", r.Stdout, r.Stderr)
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &killed))
	require.Equal(t, "refunded", killed.Escrow.State)
	require.Eventually(t, func() bool { return m.jobOnChain(t, killed.JobID) == 2 }, 20*time.Second, 200*time.Millisecond)
	require.Eventually(t, func() bool { return showEscrow(t, m.buyer, killed.JobID).ChainOutcome == "cancelled" }, 20*time.Second, 200*time.Millisecond)
	m.sellerCmd = startDaemon(t, m.seller)
	// The restarted seller fails the interrupted job and then reads the
	// cancel from the chain at its confirmation depth: under a CPU hog
	// with the race step alongside, that took over 20 s once.
	require.Eventually(t, func() bool {
		e := showEscrow(t, m.seller, killed.JobID)
		return e.State == "failed" && e.ChainOutcome == "cancelled"
	}, time.Minute, 200*time.Millisecond)
	require.Equal(t, int64(350_000), m.tokenOf(t, m.sellerEVM), "never paid for the killed job")

	// Both ledgers agree with the chain.
	b, s := walletOf(t, m.buyer), walletOf(t, m.seller)
	require.Equal(t, "0.35", b.Paid)
	require.Equal(t, "0", b.Held)
	require.Equal(t, "9.65", b.Available)
	require.Equal(t, "9.65", b.Deposit, "free + lines on chain = deposited - paid")
	require.Equal(t, "0.35", s.Earned)
	require.Equal(t, "0.35", s.Withdrawn, "redeemed to its address")
	require.Equal(t, "0", s.Available)
	require.Equal(t, "0.35", s.Token)
	for _, repo := range []string{m.buyer, m.seller} {
		r := swarmwage(t, "--repo", repo, "escrow", "list", "--json", "--state", "locked")
		require.Equal(t, 0, r.Code, r.Stderr)
		require.NotContains(t, r.Stdout, `"job_id"`, "nothing left open")
	}

	// Withdrawals: the seller has nothing left to take; the buyer's free
	// deposit leaves at once, its line after the notice.
	got, pending := withdraw(t, m.seller)
	require.Equal(t, "0", got)
	require.Equal(t, "0", pending)
	got, pending = withdraw(t, m.buyer)
	line := walletOf(t, m.buyer).Chain.Lines
	require.Equal(t, line, pending)
	require.Equal(t, "9.65", addAmounts(t, got, pending))
	// Issue 29: the balance said "available 4.95, free to spend" while all
	// of it was asked back, and the next hire failed with base units.
	w = walletOf(t, m.buyer)
	require.Equal(t, "0", w.Available, "a pending withdrawal is not free to spend")
	require.Equal(t, pending, w.Withdrawing)
	r = swarmwage(t, "--repo", m.buyer, "wallet", "balance")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Regexp(t, `(?m)^available +0 +free to spend$`, r.Stdout)
	require.Regexp(t, `(?m)^withdrawing +`+regexp.QuoteMeta(pending)+` +asked back`, r.Stdout)
	ledgerAligned(t, r.Stdout)
	// The seller restarted on a new port: the buyer dials it without a
	// restart of its own.
	r = swarmwage(t, "--repo", m.buyer, "peers", "connect", nodeIDOf(t, m.seller).Addrs[0])
	require.Equal(t, 0, r.Code, r.Stderr)
	var poor evmHire
	require.Eventually(t, func() bool {
		poor, r = hireEVM(t, m.buyer, "--input-json", `{"data":[1,2]}`, "compute.statistics.mean")
		return r.Code != 3 // until it finds the seller again
	}, 30*time.Second, 500*time.Millisecond)
	require.Equal(t, 7, r.Code, "insufficient funds: %s", r.Stderr)
	require.Equal(t, "insufficient_funds", poor.Outcome)
	require.Empty(t, poor.JobID, "nothing was locked")
	require.Contains(t, poor.Error, "0.05 tokens")
	require.Contains(t, poor.Error, "asked back by a pending withdrawal")
	require.NotContains(t, poor.Error, "50000", "amounts in tokens, not base units")
	require.Equal(t, 1, strings.Count(poor.Error, "wallet deposit"), "the advice once: %s", poor.Error)
	got2, pending2 := withdraw(t, m.buyer)
	require.Equal(t, "0", got2, "the notice runs")
	require.Equal(t, pending, pending2)
	require.NoError(t, m.rpc.CallContext(t.Context(), nil, "evm_increaseTime", 3700))
	require.NoError(t, m.rpc.CallContext(t.Context(), nil, "evm_mine"))
	got3, pending3 := withdraw(t, m.buyer)
	require.Equal(t, pending, got3)
	require.Equal(t, "0", pending3)
	require.Equal(t, int64(9_650_000), m.tokenOf(t, m.buyerEVM))
	b = walletOf(t, m.buyer)
	require.Equal(t, "0", b.Available)
	require.Equal(t, "9.65", b.Withdrawn)
	require.Equal(t, "0", b.Withdrawing)
	r = swarmwage(t, "--repo", m.buyer, "wallet", "balance")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Regexp(t, `(?m)^withdrawn +9.65 +paid out to the node's address$`, r.Stdout)
	ledgerAligned(t, r.Stdout)
	require.Equal(t, "0", b.Deposit)

	// The refunded job's lock voucher can never pay, even past its
	// not-before (the chain's clock moved an hour on).
	sk, err := evm.LoadKey(filepath.Join(m.seller, "evm.key"))
	require.NoError(t, err)
	rail, err := evm.Open(t.Context(), evm.Config{RPC: m.a.URL, Escrow: m.escrowAddr, Token: m.token}, sk)
	require.NoError(t, err)
	defer rail.Close()
	var lv evm.Lock
	require.NoError(t, json.Unmarshal(badLock, &lv))
	red, err := rail.Redeem(t.Context(), []evm.Voucher{{Lock: &lv}})
	require.NoError(t, err)
	require.Zero(t, red.Total)
	require.Equal(t, uint8(evm.SkipCancelled), red.Skipped[lv.JobID])
}

// ledgerAligned checks that every row of the ledger (the text before the
// first blank line) has its amount in one column: the withdrawn row was
// printed apart, misaligned.
func ledgerAligned(t *testing.T, out string) {
	t.Helper()
	ledger, _, _ := strings.Cut(out, "\n\n")
	col := -1
	for _, l := range strings.Split(ledger, "\n") {
		name, rest, ok := strings.Cut(l, " ")
		require.True(t, ok, l)
		at := len(name) + 1 + len(rest) - len(strings.TrimLeft(rest, " "))
		if col < 0 {
			col = at
		}
		require.Equal(t, col, at, "every ledger row's amount in one column:\n%s", ledger)
	}
}

func addAmounts(t *testing.T, a, b string) string {
	t.Helper()
	x, ok := new(big.Rat).SetString(a)
	require.True(t, ok, a)
	y, ok := new(big.Rat).SetString(b)
	require.True(t, ok, b)
	s := new(big.Rat).Add(x, y).FloatString(6)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s
}

// TestCLIEVMUsageErrors: the evm flags and commands say what is wrong with
// exit 2, and a chain that does not answer at init is only a warning.
func TestCLIEVMUsageErrors(t *testing.T) {
	t.Parallel()
	a := evmtest.StartAnvil(t)
	addr := "0x000000000000000000000000000000000000dEaD"
	credits := initRepo(t)
	testCases := []struct {
		name string
		args []string
		msg  string
	}{
		{"no rpc", []string{"init", "--settlement", "evm", "--escrow", addr, "--token", addr}, "--rpc URL"},
		{"no escrow", []string{"init", "--settlement", "evm", "--rpc", a.URL, "--token", addr}, "--escrow ADDR"},
		{"bad token", []string{"init", "--settlement", "evm", "--rpc", a.URL, "--escrow", addr, "--token", "0x12"}, "--token ADDR"},
		{"unknown rail", []string{"init", "--settlement", "btc"}, `want "credits" or "evm"`},
		{"evm flag on credits", []string{"init", "--rpc", a.URL}, "--rpc is for --settlement evm"},
		{"no escrow at the address", []string{"init", "--settlement", "evm", "--rpc", a.URL, "--escrow", addr, "--token", addr}, "no contract at escrow"},
		{"bad key file", []string{"init", "--settlement", "evm", "--rpc", "http://127.0.0.1:1", "--escrow", addr, "--token", addr, "--evm-key-file", "/nonexistent"}, "no such file"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			repo := filepath.Join(t.TempDir(), "repo")
			r := swarmwage(t, append([]string{"--repo", repo}, tc.args...)...)
			require.Equal(t, 2, r.Code, "stdout=%s stderr=%s", r.Stdout, r.Stderr)
			require.Contains(t, r.Stderr, tc.msg)
		})
	}
	for _, cmd := range [][]string{{"wallet", "address"}, {"wallet", "withdraw"}} {
		r := swarmwage(t, append([]string{"--repo", credits}, cmd...)...)
		require.Equal(t, 2, r.Code, r.Stderr)
		require.Contains(t, r.Stderr, "settles in credits")
	}
	// A chain that does not answer: init warns and goes on.
	repo := filepath.Join(t.TempDir(), "repo")
	r := swarmwage(t, "--repo", repo, "init", "--settlement", "evm", "--rpc", "http://127.0.0.1:1", "--escrow", addr, "--token", addr)
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, "cannot check the escrow")
	st, err := os.Stat(filepath.Join(repo, "evm.key"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	r = swarmwage(t, "--repo", repo, "wallet", "balance", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, `"chain_error"`)
	require.Contains(t, r.Stdout, `"rail": "evm"`)
}

// Regression (issue 22): 'chain deploy --notice 5s' gave an escrow on which
// no hire could ever succeed, without a word; the seller refused every
// lock after the buyer had allocated its line (5 of a free 10). Now deploy
// refuses such a notice unless --force (and warns), the seller warns at
// start, its listing states its accept horizon, and the buyer does not
// quote it nor move any money on chain: exit 3, lines 0.
func TestCLIEVMShortNoticeSellerIsNeitherQuotedNorFunded(t *testing.T) {
	t.Parallel()
	var sellerErr lockedbuf.Buffer
	m := startEVMMarketWith(t, []string{"--notice", "60s", "--force"}, "", &sellerErr) // the default window, 10m
	require.Contains(t, sellerErr.String(), "every lock of a buyer will be refused")
	require.Contains(t, sellerErr.String(), "--notice")
	m.sell(t, "compute.statistics.mean", "0.05")

	h, r := hireEVM(t, m.buyer, "--input-json", `{"data":[1,2,3]}`, "compute.statistics.mean")
	require.Equal(t, 3, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, "whose terms fit this hire")
	require.Contains(t, r.Stderr, "accept horizon")
	require.Empty(t, h.JobID, "nothing locked")
	w := walletOf(t, m.buyer)
	require.NotNil(t, w.Chain)
	require.Equal(t, "0", w.Chain.Lines, "no money moved to the seller's line")
	require.Equal(t, "10", w.Chain.Free)
	require.Equal(t, "10", w.Available)
	line, err := m.esc.Line(&bind.CallOpts{Context: t.Context()}, m.buyerEVM, m.sellerEVM)
	require.NoError(t, err)
	require.Zero(t, line.Balance.Sign(), "the chain agrees")
}
