package faults

// The evm rail of the suite (issue 22): a cluster whose daemons settle
// through the escrow contract on a real anvil (npm @foundry-rs/anvil,
// pinned in contracts/), deployed and funded with the binary's own
// commands ('chain deploy --test-token', 'chain mint', 'wallet deposit').
// Each node may reach the chain through its own RPC URL (evmConfig.rpc):
// the seam for a proxy that lies, delays or drops (internal/lyingrpc).

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/escrow/evm"
	"github.com/swarmwage/swarmwage/escrow/evm/contract"
	"github.com/swarmwage/swarmwage/escrow/evm/evmtest"
)

// Terms of an evm cluster.
const (
	// evmNotice is the escrow's withdrawal notice: sellers accept locks
	// whose not-before lies within half of it.
	evmNotice = "1h"
	// evmRedeemInterval is the sellers' longest wait before a batch
	// redeem ([settlement] redeem_interval).
	evmRedeemInterval = "1s"
	// evmReconcileInterval is how often every node reads the escrow's
	// events ([settlement] reconcile_interval).
	evmReconcileInterval = "500ms"
	// chainTimeout bounds one read or transaction of the test itself.
	chainTimeout = 30 * time.Second
)

// anvilKey is the funded anvil account each role brings as its evm.key;
// strangers get fresh keys.
var anvilKey = map[string]int{"deployer": 0, "buyer": 1, "honest": 2, "liar": 3}

// evmConfig puts a cluster on the evm rail.
type evmConfig struct {
	// confirmations is every node's [settlement] confirmations; 0 means 1.
	confirmations int
	// redeemInterval is the sellers' [settlement] redeem_interval; ""
	// means evmRedeemInterval.
	redeemInterval string
	// rpc, when set, returns the JSON-RPC URL the daemon name uses instead
	// of anvil's own (upstream): a proxy in front of it. Called once per
	// daemon, before its repo is made; what it starts it stops in
	// t.Cleanup.
	rpc func(t testing.TB, name, upstream string) string
}

// chain is the evm side of a cluster: one anvil, the escrow and its test
// token, and the addresses of the daemons.
type chain struct {
	a        *evmtest.Anvil
	escrow   common.Address
	token    common.Address
	deployer *evm.Key
	keyFile  string // the deployer's key file, for 'chain mint'
	eth      *ethclient.Client
	rpc      *rpc.Client
	esc      *contract.SwarmwageEscrow
	tok      *contract.TestStablecoin

	mu sync.Mutex
	// addr is each daemon's address on chain, by name.
	addr map[string]common.Address
	// minted is every base unit minted on the chain so far; holders are
	// the addresses that may hold any (the escrow, the daemons, strangers).
	minted  int64
	holders map[common.Address]string
	// strangerTxs are the transactions of strangers' payments; strangerPaid
	// what they paid each seller.
	strangerTxs  map[common.Hash]string
	strangerPaid map[common.Address]int64
}

// startChain starts anvil and deploys the escrow and its test token with
// the binary ('chain deploy'), from anvil's first account.
func startChain(t testing.TB) *chain {
	t.Helper()
	ch := &chain{a: evmtest.StartAnvil(t), addr: map[string]common.Address{}, holders: map[common.Address]string{},
		strangerTxs: map[common.Hash]string{}, strangerPaid: map[common.Address]int64{}}
	var err error
	if ch.keyFile, err = ch.a.WriteKey(t.TempDir(), anvilKey["deployer"]); err != nil {
		t.Fatal(err)
	}
	if ch.deployer, err = evm.ParseKey(ch.a.Keys[anvilKey["deployer"]]); err != nil {
		t.Fatal(err)
	}
	r := runBin(cliTimeout, "chain", "deploy", "--rpc", ch.a.URL, "--key-file", ch.keyFile, "--test-token", "--notice", evmNotice, "--json")
	if !r.ok() {
		t.Fatalf("%s", r)
	}
	var dep struct {
		Escrow string `json:"escrow"`
		Token  string `json:"token"`
	}
	if err := json.Unmarshal(r.stdout, &dep); err != nil || !common.IsHexAddress(dep.Escrow) || !common.IsHexAddress(dep.Token) {
		t.Fatalf("chain deploy --json: %v: %s", err, r.stdout)
	}
	ch.escrow, ch.token = common.HexToAddress(dep.Escrow), common.HexToAddress(dep.Token)
	ch.holders[ch.escrow] = "the escrow"
	if ch.eth, err = ethclient.Dial(ch.a.URL); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ch.eth.Close)
	ch.rpc = ch.eth.Client()
	if ch.esc, err = contract.NewSwarmwageEscrow(ch.escrow, ch.eth); err != nil {
		t.Fatal(err)
	}
	if ch.tok, err = contract.NewTestStablecoin(ch.token, ch.eth); err != nil {
		t.Fatal(err)
	}
	return ch
}

// initArgs are init's flags that put d on the rail, its key anvil's
// account for its role.
func (ch *chain) initArgs(t testing.TB, cfg *evmConfig, d *daemon) []string {
	t.Helper()
	rpcURL := ch.a.URL
	if cfg.rpc != nil {
		rpcURL = cfg.rpc(t, d.name, ch.a.URL)
	}
	i, ok := anvilKey[d.name]
	if !ok {
		t.Fatalf("no anvil account for daemon %q", d.name)
	}
	keyFile, err := ch.a.WriteKey(t.TempDir(), i)
	if err != nil {
		t.Fatal(err)
	}
	conf := cfg.confirmations
	if conf == 0 {
		conf = 1
	}
	return []string{"--settlement", "evm", "--rpc", rpcURL, "--escrow", ch.escrow.Hex(), "--token", ch.token.Hex(),
		"--evm-key-file", keyFile, "--confirmations", fmt.Sprint(conf)}
}

// joined records d's address (wallet address) and adds the rail's
// intervals to its [settlement] table.
func (ch *chain) joined(t testing.TB, cfg *evmConfig, d *daemon) {
	t.Helper()
	var res struct {
		Address string `json:"address"`
	}
	if err := json.Unmarshal(d.cli(t, "wallet", "address", "--json"), &res); err != nil || !common.IsHexAddress(res.Address) {
		t.Fatalf("wallet address of %s: %v", d.name, err)
	}
	ch.mu.Lock()
	ch.addr[d.name] = common.HexToAddress(res.Address)
	ch.holders[common.HexToAddress(res.Address)] = d.name
	ch.mu.Unlock()
	redeem := cfg.redeemInterval
	if redeem == "" {
		redeem = evmRedeemInterval
	}
	insertSettlement(t, filepath.Join(d.repo, "config.toml"),
		fmt.Sprintf("redeem_interval = %q\nreconcile_interval = %q\n", redeem, evmReconcileInterval))
}

// insertSettlement adds keys to the [settlement] table init wrote.
func insertSettlement(t testing.TB, path, keys string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(b), "[settlement]\n", "[settlement]\n"+keys, 1)
	if s == string(b) {
		t.Fatalf("no [settlement] table in %s", path)
	}
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

// fund mints amount (a decimal) of the test token to d's address with the
// binary ('chain mint').
func (ch *chain) fund(t testing.TB, d *daemon, amount string) {
	t.Helper()
	v, err := escrow.ParseAmount(amount)
	if err != nil {
		t.Fatal(err)
	}
	r := runBin(cliTimeout, "chain", "mint", "--rpc", ch.a.URL, "--key-file", ch.keyFile, "--token", ch.token.Hex(), ch.address(d.name).Hex(), amount)
	if !r.ok() {
		t.Fatalf("%s", r)
	}
	ch.mu.Lock()
	ch.minted += v
	ch.mu.Unlock()
}

func (ch *chain) address(name string) common.Address {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return ch.addr[name]
}

func (ch *chain) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), chainTimeout)
}

// jobState is a job's state in the escrow contract: 0 open, 1 paid, 2
// cancelled.
func (ch *chain) jobState(buyer, seller common.Address, jobID string) (uint8, error) {
	ctx, cancel := ch.ctx()
	defer cancel()
	j, err := ch.esc.Job(&bind.CallOpts{Context: ctx}, buyer, seller, evm.JobID(jobID))
	if err != nil {
		return 0, fmt.Errorf("read job %s on chain: %w", jobID, err)
	}
	return j.State, nil
}

func (ch *chain) tokenOf(a common.Address) (int64, error) {
	ctx, cancel := ch.ctx()
	defer cancel()
	b, err := ch.tok.BalanceOf(&bind.CallOpts{Context: ctx}, a)
	if err != nil {
		return 0, fmt.Errorf("read the token balance of %s: %w", a.Hex(), err)
	}
	return b.Int64(), nil
}

// head is the chain's latest block number.
func (ch *chain) head() (uint64, error) {
	ctx, cancel := ch.ctx()
	defer cancel()
	return ch.eth.BlockNumber(ctx)
}

// mine mines n empty blocks.
func (ch *chain) mine(n uint64) error {
	ctx, cancel := ch.ctx()
	defer cancel()
	return ch.rpc.CallContext(ctx, nil, "anvil_mine", n)
}

// snapshot takes an anvil snapshot of the chain now.
func (ch *chain) snapshot() (string, error) {
	ctx, cancel := ch.ctx()
	defer cancel()
	var id string
	err := ch.rpc.CallContext(ctx, &id, "evm_snapshot")
	return id, err
}

// reorg replaces every block above start (the head when snap was taken)
// with a longer chain of empty blocks, and returns how many blocks it
// replaced. The depth is counted from start, not from a head read after
// the revert: a hire's transaction sent just before it is mined on the new
// chain at once, and would make the depth look one less.
func (ch *chain) reorg(snap string, start uint64) (uint64, error) {
	before, err := ch.head()
	if err != nil {
		return 0, err
	}
	ctx, cancel := ch.ctx()
	defer cancel()
	var ok bool
	if err := ch.rpc.CallContext(ctx, &ok, "evm_revert", snap); err != nil || !ok {
		return 0, fmt.Errorf("evm_revert %s: %v (reverted: %v)", snap, err, ok)
	}
	// The new chain is longer than the one it replaces, as a real reorg
	// (one more: a block mined between the snapshot and the read of start
	// is replaced too).
	if err := ch.mine(before - start + 2); err != nil {
		return 0, err
	}
	return before - start, nil
}

// chainStranger is a third key with its own deposit in the escrow: it pays
// sellers for job IDs that are not its own.
type chainStranger struct {
	ch   *chain
	key  *evm.Key
	rail *evm.Rail
}

// newChainStranger makes a fresh key with gas money and deposit base units of
// the token in the escrow.
func (ch *chain) newChainStranger(t testing.TB, deposit int64) *chainStranger {
	t.Helper()
	k, err := evm.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := ch.ctx()
	defer cancel()
	if err := ch.rpc.CallContext(ctx, nil, "anvil_setBalance", k.Address(), "0x56BC75E2D63100000"); err != nil {
		t.Fatal(err)
	}
	if err := evm.MintTest(ctx, ch.a.URL, ch.deployer, ch.token, k.Address(), deposit); err != nil {
		t.Fatal(err)
	}
	ch.mu.Lock()
	ch.minted += deposit
	ch.holders[k.Address()] = "a stranger"
	ch.mu.Unlock()
	r, err := evm.Open(ctx, evm.Config{RPC: ch.a.URL, Escrow: ch.escrow, Token: ch.token, Logger: slog.New(slog.DiscardHandler)}, k)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	if _, err := r.Deposit(ctx, deposit); err != nil {
		t.Fatal(err)
	}
	return &chainStranger{ch: ch, key: k, rail: r}
}

// pay pays seller amount for jobID with the stranger as buyer: allocate
// to the seller, sign a Release for the job ID, redeem it (anyone may
// submit a redeem). It returns the redeem's transaction.
func (s *chainStranger) pay(seller common.Address, jobID string, amount int64) (common.Hash, error) {
	ctx, cancel := s.ch.ctx()
	defer cancel()
	if _, err := s.rail.Allocate(ctx, seller, amount); err != nil {
		return common.Hash{}, fmt.Errorf("a stranger's allocation: %w", err)
	}
	rel := &evm.Release{JobID: evm.JobID(jobID), Buyer: s.key.Address(), Seller: seller, Amount: amount}
	if err := s.rail.Domain().SignRelease(s.key, rel); err != nil {
		return common.Hash{}, err
	}
	opts, err := s.key.Transactor(s.rail.Domain().ChainID)
	if err != nil {
		return common.Hash{}, err
	}
	opts.Context = ctx
	v := contract.SwarmwageEscrowVoucher{Release: true, JobId: rel.JobID, Buyer: rel.Buyer, Amount: big.NewInt(rel.Amount), Signature: rel.Signature}
	tx, err := s.ch.esc.Redeem(opts, seller, []contract.SwarmwageEscrowVoucher{v})
	if err != nil {
		return common.Hash{}, fmt.Errorf("a stranger's redeem: %w", err)
	}
	rc, err := bind.WaitMined(ctx, s.ch.eth, tx)
	if err != nil || rc.Status != 1 {
		return common.Hash{}, fmt.Errorf("a stranger's redeem %s: %v (status %v)", tx.Hash().Hex(), err, rc)
	}
	s.ch.mu.Lock()
	s.ch.strangerTxs[tx.Hash()] = jobID
	s.ch.strangerPaid[seller] += amount
	s.ch.mu.Unlock()
	return tx.Hash(), nil
}

// chainView is what the chain says at one moment, for the comparison.
type chainView struct {
	// jobs is the contract's state of each job of the buyer (0 open, 1
	// paid, 2 cancelled), by job ID.
	jobs map[string]uint8
	// tokens is the token balance of every holder, by its name; minted is
	// all that was ever minted.
	tokens map[string]int64
	minted int64
	// strangerTxs are strangers' payments (tx hash -> job ID);
	// strangerPaid what they paid each daemon, by name.
	strangerTxs  map[string]string
	strangerPaid map[string]int64
	readErr      error
}

// view reads the chain for the jobs of buyer: each job's state with the
// seller it names (rail_counterparty) and every holder's tokens.
func (ch *chain) view(buyer ledger, full bool) *chainView {
	v := &chainView{jobs: map[string]uint8{}, tokens: map[string]int64{}, strangerTxs: map[string]string{}, strangerPaid: map[string]int64{}}
	buyerAddr := ch.address(buyer.name)
	for id, r := range buyer.escrows {
		if !common.IsHexAddress(r.RailCounterparty) {
			v.readErr = fmt.Errorf("job %s of the buyer names no seller address on chain (rail_counterparty %q)", id, r.RailCounterparty)
			return v
		}
		st, err := ch.jobState(buyerAddr, common.HexToAddress(r.RailCounterparty), id)
		if err != nil {
			v.readErr = err
			return v
		}
		v.jobs[id] = st
	}
	ch.mu.Lock()
	defer ch.mu.Unlock()
	for h, id := range ch.strangerTxs {
		v.strangerTxs[strings.ToLower(h.Hex())] = id
	}
	for a, n := range ch.strangerPaid {
		v.strangerPaid[ch.holders[a]] += n
	}
	if !full {
		return v
	}
	v.minted = ch.minted
	for a, name := range ch.holders {
		n, err := ch.tokenOf(a)
		if err != nil {
			v.readErr = err
			return v
		}
		v.tokens[name] += n
	}
	return v
}

// compareChain checks one job both ledgers agree on against the chain: a
// released job paid on chain to its seller and booked so on both sides, a
// refunded one cancelled and booked so, nothing provisional, and no
// record naming a stranger's transaction.
func compareChain(v *verdict, s snapshot, id string, b, sr escrowRec, hasS bool, sellerName string, dishonest bool) {
	st := s.chain.jobs[id]
	for _, r := range []struct {
		rec escrowRec
		has bool
		who string
	}{{b, true, "buyer"}, {sr, hasS, sellerName}} {
		if !r.has || r.rec.ChainTx == "" {
			continue
		}
		if job, ok := s.chain.strangerTxs[strings.ToLower(r.rec.ChainTx)]; ok {
			v.problem(kindWrongPayment, id, "job %s on %s names a stranger's transaction %s (its payment for job ID %s) as its payment", id, r.who, r.rec.ChainTx, job)
			return
		}
	}
	if dishonest && st == 1 {
		v.problem(kindWrongPayment, id, "job %s of the dishonest seller, whose output fails verification, is paid on chain", id)
		return
	}
	want, wantState := escrow.RailCancelled, uint8(2)
	if b.State == string(escrow.StateReleased) {
		want, wantState = escrow.RailPaid, 1
	}
	var wrong []string
	if st != wantState {
		wrong = append(wrong, fmt.Sprintf("the chain has it %s", [...]string{"open", "paid", "cancelled"}[min(st, 2)]))
	}
	for _, r := range []struct {
		rec escrowRec
		has bool
		who string
	}{{b, true, "buyer"}, {sr, hasS, sellerName}} {
		switch {
		case !r.has:
		case r.rec.ChainProvisional:
			wrong = append(wrong, r.who+"'s chain outcome is provisional (it vanished in a reorg)")
		case r.rec.RefundPending:
			wrong = append(wrong, r.who+"'s refund is pending (its cancel not mined)")
		case r.rec.ChainOutcome != want:
			wrong = append(wrong, fmt.Sprintf("%s's chain outcome is %q", r.who, r.rec.ChainOutcome))
		}
	}
	if len(wrong) > 0 {
		v.wait(s.final, kindDivergence, id, "job %s is %s in the ledgers (buyer %s, %s %s) but %s", id, b.State, b, sellerName, side(sr, hasS), strings.Join(wrong, ", "))
	}
}

// checkTokens: no token created or lost (every minted unit is held by a
// known address), the escrow holds what the buyer's ledger says is still
// deposited, and each seller's address holds what its ledger says it
// withdrew (redeemed) plus what strangers paid it.
func checkTokens(v *verdict, s snapshot) {
	c := s.chain
	var total int64
	for _, n := range c.tokens {
		total += n
	}
	if total != c.minted {
		v.problem(kindLedger, "tokens", "the chain holds %s of the token in all known addresses, %s was minted: tokens were created or lost", fa(total), fa(c.minted))
	}
	if bb := s.buyer.balance; bb != nil {
		if want := bb.Deposited - bb.Paid - bb.Withdrawn; c.tokens["the escrow"] != want {
			v.wait(s.final, kindLedger, "escrow tokens", "the escrow holds %s of the token, the buyer's ledger says %s is still in it (deposited %s - paid %s - withdrawn %s)",
				fa(c.tokens["the escrow"]), fa(want), fa(bb.Deposited), fa(bb.Paid), fa(bb.Withdrawn))
		}
	}
	for _, l := range s.sellers {
		if l.balance == nil {
			continue
		}
		want := l.balance.Withdrawn + c.strangerPaid[l.name]
		if got := c.tokens[l.name]; got != want {
			v.wait(s.final, kindWrongPayment, "tokens of "+l.name, "%s's address holds %s of the token; its ledger redeemed %s and strangers paid it %s",
				l.name, fa(got), fa(l.balance.Withdrawn), fa(c.strangerPaid[l.name]))
		}
	}
}

// restartAll stops every daemon cleanly and starts it again, and checks
// that what the ledgers and the chain say afterwards is what they said
// before: a restart changes nothing once a cluster converged.
func (c *cluster) restartAll(t testing.TB) {
	t.Helper()
	before := c.fingerprint(t)
	for _, d := range c.all() {
		if err := d.stop(); err != nil {
			t.Errorf("stop %s: %v", d.name, err)
		}
	}
	for _, d := range c.sellers {
		d.start(t, "")
	}
	c.buyer.start(t, "")
	c.waitConnected(t)
	// A few reconcile passes of every node.
	time.Sleep(10 * time.Second)
	after := c.fingerprint(t)
	var changed []string
	for k, b := range before {
		if a := after[k]; a != b {
			changed = append(changed, fmt.Sprintf("%s: %s -> %s", k, b, a))
		}
	}
	for k, a := range after {
		if _, ok := before[k]; !ok {
			changed = append(changed, fmt.Sprintf("%s: none -> %s", k, a))
		}
	}
	v := verdict{}
	for _, ch := range changed {
		v.problem(kindDivergence, ch, "a restart changed %s", ch)
	}
	c.check(t, v)
}

// fingerprint is every record's state and chain outcome and every node's
// balance, as strings by key.
func (c *cluster) fingerprint(t testing.TB) map[string]string {
	t.Helper()
	out := map[string]string{}
	s := c.snapshot(true)
	for _, l := range append([]ledger{s.buyer}, s.sellers...) {
		if l.readErr != nil {
			t.Fatal(l.readErr)
		}
		for id, r := range l.escrows {
			out[l.name+" job "+id] = fmt.Sprintf("%s/%s/%s/prov=%v/chainprov=%v/pending=%v", r.State, r.Amount, r.ChainOutcome, r.Provisional, r.ChainProvisional, r.RefundPending)
		}
		if b := l.balance; b != nil {
			out[l.name+" balance"] = fmt.Sprintf("%+v", *b)
		}
	}
	if s.chain != nil {
		for id, st := range s.chain.jobs {
			out["chain job "+id] = fmt.Sprint(st)
		}
		for name, n := range s.chain.tokens {
			out["tokens of "+name] = fa(n)
		}
	}
	return out
}
