package faults

// A lying chain endpoint on the evm rail (issue 30 point 3): every daemon
// reads the chain through its own internal/lyingrpc proxy in front of
// anvil, and the proxies lie in turn (forged, missing and reordered logs,
// wrong job() results, receipts without their logs, heads going
// backwards, huge and slow answers) while hires run.

import (
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/escrow/evm"
	"github.com/swarmwage/swarmwage/escrow/evm/contract"
	"github.com/swarmwage/swarmwage/internal/lyingrpc"
)

const (
	// lyingHires is how many hires of each seller run under each lie (at
	// least: more run until every proxy's lie was told); the soak (-soak)
	// cycles through the lies lyingSoakCycles times.
	lyingHires      = 2
	lyingSoakCycles = 5
	// lyingMoreHires bounds the extra hires a lie gets before the test
	// gives up waiting for it to be told.
	lyingMoreHires = 6
	// lyingSlow is how long the slow lie delays every answer: slow, but
	// not so slow that a refund's cancel (a dozen calls) misses the lock's
	// not-before, which the suite's short terms put a settle grace after
	// the window; past it the cancel no longer counts and the refund stays
	// pending by design.
	lyingSlow = 250 * time.Millisecond
)

// proxies are the daemons' lying endpoints, by daemon name.
type proxies struct {
	mu sync.Mutex
	by map[string]*lyingrpc.Proxy
}

// rpc is evmConfig.rpc: a proxy of its own in front of upstream for the
// daemon name, closed when the test ends.
func (ps *proxies) rpc(t testing.TB, name, upstream string) string {
	t.Helper()
	p, err := lyingrpc.Start(upstream)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("close the lying endpoint of %s: %v", name, err)
		}
	})
	ps.mu.Lock()
	ps.by[name] = p
	ps.mu.Unlock()
	return p.URL
}

func (ps *proxies) each(f func(name string, p *lyingrpc.Proxy)) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	for name, p := range ps.by {
		f(name, p)
	}
}

// told is, for each daemon, how many answers of method its proxy's lies
// changed (or, for "calls:" + method, how many calls of it it forwarded).
func (ps *proxies) told(method string) map[string]int {
	out := map[string]int{}
	ps.each(func(name string, p *lyingrpc.Proxy) {
		if m, ok := strings.CutPrefix(method, "calls:"); ok {
			out[name] = p.Calls(m)
			return
		}
		out[name] = p.Told(method)
	})
	return out
}

// alternately tells l's lie on every other answer.
func alternately(l lyingrpc.Lie) lyingrpc.Lie {
	var n atomic.Int64
	return func(req lyingrpc.Request, res json.RawMessage) (json.RawMessage, bool) {
		if n.Add(1)%2 == 0 {
			return res, false
		}
		return l(req, res)
	}
}

// escrowABI is the escrow contract's ABI, for forged logs and answers.
func escrowABI(t testing.TB) *abi.ABI {
	t.Helper()
	a, err := contract.SwarmwageEscrowMetaData.GetAbi()
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// wrongJobState (eth_call) answers every job(buyer, seller, jobId) with
// another state than the chain's: open is paid, paid is cancelled,
// cancelled is paid.
func wrongJobState(t testing.TB) lyingrpc.Lie {
	m := escrowABI(t).Methods["job"]
	sel := hexutil.Encode(m.ID)
	return func(req lyingrpc.Request, res json.RawMessage) (json.RawMessage, bool) {
		var call struct {
			Data  string `json:"data"`
			Input string `json:"input"`
		}
		if !req.Param(0, &call) {
			return res, false
		}
		data := call.Input
		if data == "" {
			data = call.Data
		}
		var hexRes string
		if !strings.HasPrefix(strings.ToLower(data), sel) || json.Unmarshal(res, &hexRes) != nil {
			return res, false
		}
		b, err := hexutil.Decode(hexRes)
		if err != nil {
			return res, false
		}
		out, err := m.Outputs.Unpack(b)
		if err != nil || len(out) != 2 {
			return res, false
		}
		state, _ := out[0].(uint8)
		at, _ := out[1].(uint64)
		lie := [...]uint8{1, 2, 1}[min(state, 2)]
		packed, err := m.Outputs.Pack(lie, at)
		if err != nil {
			return res, false
		}
		enc, _ := json.Marshal(hexutil.Encode(packed))
		return enc, true
	}
}

// forgedLogs (eth_getLogs) adds, to every answer, a Paid log for each of
// the last few jobs of the dishonest seller (whose output fails
// verification: the buyer's refund must stand) and a Cancelled log for
// each of the honest seller's (whose release must stand), in
// transactions that do not exist, in the block the chain is at.
func forgedLogs(t testing.TB, c *cluster) lyingrpc.Lie {
	a := escrowABI(t)
	paid, cancelled := a.Events["Paid"].ID, a.Events["Cancelled"].ID
	amount, err := escrow.ParseAmount(price)
	if err != nil {
		t.Fatal(err)
	}
	topic := func(addr common.Address) string { return common.BytesToHash(addr[:]).Hex() }
	var n atomic.Int64
	return lyingrpc.AddLogs(func(lyingrpc.Request) []lyingrpc.Log {
		head, err := c.chain.head()
		if err != nil {
			return nil
		}
		buyer := c.chain.address(c.buyer.name)
		c.mu.Lock()
		hires := append([]hireResult(nil), c.hires[max(len(c.hires)-4, 0):]...)
		c.mu.Unlock()
		var out []lyingrpc.Log
		for _, h := range hires {
			if h.info.JobID == "" {
				continue
			}
			seller := c.chain.address(h.seller.name)
			lg := lyingrpc.Log{}
			lg.Set("address", strings.ToLower(c.chain.escrow.Hex()))
			id := common.Hash(evm.JobID(h.info.JobID)).Hex()
			if h.seller == c.liar {
				lg.Set("topics", []string{paid.Hex(), id, topic(buyer), topic(seller)})
				lg.Set("data", hexutil.Encode(append(common.BigToHash(big.NewInt(amount)).Bytes(), common.BigToHash(big.NewInt(0)).Bytes()...)))
			} else {
				lg.Set("topics", []string{cancelled.Hex(), id, topic(buyer), topic(seller)})
				lg.Set("data", "0x")
			}
			k := n.Add(1)
			lg.Set("blockNumber", hexutil.EncodeUint64(head))
			lg.Set("blockHash", common.BigToHash(big.NewInt(0xb10c00+k)).Hex())
			lg.Set("transactionHash", common.BigToHash(big.NewInt(0xf0a9e00+k)).Hex())
			lg.Set("transactionIndex", "0x0")
			lg.Set("logIndex", "0x0")
			lg.Set("removed", false)
			out = append(out, lg)
		}
		return out
	})
}

// lie is one of the lies every proxy tells in turn.
type lie struct {
	name string
	// method is what shows the lie was told: a method whose answers it
	// changed, or "calls:" + a method it slowed.
	method string
	tell   func(p *lyingrpc.Proxy)
}

func lies(t testing.TB, c *cluster) []lie {
	return []lie{
		{"forged Paid and Cancelled logs", "eth_getLogs", func(p *lyingrpc.Proxy) { p.Lie("eth_getLogs", forgedLogs(t, c)) }},
		{"missing logs", "eth_getLogs", func(p *lyingrpc.Proxy) { p.Lie("eth_getLogs", lyingrpc.DropLogs(lyingrpc.AnyLog)) }},
		{"reordered logs", "eth_getLogs", func(p *lyingrpc.Proxy) { p.Lie("eth_getLogs", lyingrpc.ReorderLogs()) }},
		{"wrong job() results", "eth_call", func(p *lyingrpc.Proxy) { p.Lie("eth_call", wrongJobState(t)) }},
		{"receipts without their logs", "eth_getTransactionReceipt", func(p *lyingrpc.Proxy) {
			p.Lie("eth_getTransactionReceipt", lyingrpc.ReceiptLogs(lyingrpc.AnyTx, func([]lyingrpc.Log) []lyingrpc.Log { return nil }))
		}},
		{"heads going backwards", "eth_blockNumber", func(p *lyingrpc.Proxy) { p.Lie("eth_blockNumber", alternately(lyingrpc.BlockBehind(6))) }},
		{"huge answers", "eth_getLogs", func(p *lyingrpc.Proxy) { p.Lie("eth_getLogs", alternately(lyingrpc.Huge(evm.MaxRPCAnswer+1))) }},
		{"slow answers", "calls:eth_blockNumber", func(p *lyingrpc.Proxy) { p.Slow(lyingSlow) }},
	}
}

// TestEVMLyingRPC runs live hires of both sellers (the dishonest one's
// must end refunded and cancelled on chain) while each daemon, buyer and
// sellers, reads the chain through its own lying endpoint. The endpoints
// tell one lie after another, each for a few hires and until every one of
// them told it, then the truth for a hire of each seller. With the truth
// told at the end, both ledgers must agree with the chain job by job
// (released paid on chain and booked paid, refunded cancelled and booked
// cancelled, nothing pending or provisional), no token may be created or
// lost, and no job of the dishonest seller may be paid.
func TestEVMLyingRPC(t *testing.T) {
	t.Parallel()
	cycles := 1
	if soakEnabled() {
		cycles = lyingSoakCycles
	}
	var sum tally
	ps := &proxies{by: map[string]*lyingrpc.Proxy{}}
	c := newCluster(t, clusterConfig{honest: true, liar: true, sum: &sum, evm: &evmConfig{rpc: ps.rpc}})
	if len(ps.by) != 3 {
		t.Fatalf("%d daemons behind a lying endpoint, want 3 (buyer and both sellers)", len(ps.by))
	}
	// hireBoth hires each seller n times, both at once.
	hireBoth := func(n int) []hireResult {
		var wg sync.WaitGroup
		res := make([][]hireResult, 2)
		for i, s := range []*daemon{c.honest, c.liar} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range n {
					res[i] = append(res[i], c.hire(s, evmHireTimeout))
				}
			}()
		}
		wg.Wait()
		return append(res[0], res[1]...)
	}

	told := map[string]int{}
	var truthFailed []string
	for cycle := range cycles {
		for _, l := range lies(t, c) {
			before := ps.told(l.method)
			ps.each(func(_ string, p *lyingrpc.Proxy) { l.tell(p) })
			c.injected(1)
			hireBoth(lyingHires)
			// Every endpoint must have told the lie (a lie about logs
			// needs answers that hold some): hire on until they all did.
			for extra := 0; ; extra++ {
				now, silent := ps.told(l.method), []string{}
				for name, n := range now {
					if n <= before[name] {
						silent = append(silent, name)
					}
				}
				if len(silent) == 0 {
					for name, n := range now {
						told[l.name] += n - before[name]
					}
					break
				}
				if extra == lyingMoreHires {
					t.Fatalf("cycle %d, lie %q: the endpoints of %v never told it in %d hires of each seller", cycle, l.name, silent, lyingHires+extra)
				}
				hireBoth(1)
			}
			ps.each(func(_ string, p *lyingrpc.Proxy) { p.Truth() })
			// The truth: a hire of each seller, as any other.
			for _, h := range hireBoth(1) {
				want := "released"
				if h.seller == c.liar {
					want = "refunded"
				}
				if h.info.Escrow.State != want {
					truthFailed = append(truthFailed, fmt.Sprintf("after %q: %s", l.name, h))
				}
			}
		}
	}

	c.mu.Lock()
	codes := map[string]int{}
	for _, h := range c.hires {
		codes[fmt.Sprintf("%s exit %d", h.seller.name, h.res.code)]++
	}
	hires := len(c.hires)
	c.mu.Unlock()
	t.Logf("%d hires under %d lies (%d cycles; answers each lie changed, all endpoints: %v): %v", hires, len(lies(t, c)), cycles, told, codes)
	// The truth right after a lie: a node may still be waiting out what it
	// saw (a head it will not go below, a pass it retries), so a hire may
	// fail; the money must still converge.
	t.Logf("hires told the truth that did not settle as their seller deserves: %d", len(truthFailed))
	for _, f := range truthFailed {
		t.Logf("  %s", f)
	}

	v := c.converge(time.Now())
	c.check(t, v)
	for _, p := range v.problems {
		if p.job != "" {
			t.Log(c.linesAbout(p.job, 40))
			for _, d := range c.all() {
				role := "seller"
				if d == c.buyer {
					role = "buyer"
				}
				if r, ok := readLedger(d, role, false).escrows[p.job]; ok {
					t.Logf("%s's record: %s, chain outcome %q, refund pending %v, note %q", d.name, r, r.ChainOutcome, r.RefundPending, r.ChainNote)
				}
			}
		}
	}
	notes := 0
	for _, d := range c.all() {
		role := "seller"
		if d == c.buyer {
			role = "buyer"
		}
		l := readLedger(d, role, false)
		for _, r := range l.escrows {
			if r.ChainNote != "" {
				notes++
			}
		}
	}
	t.Logf("jobs carrying a chain note (an answer the node did not act on): %d", notes)
	t.Logf("summary: %s", &sum)
}

// linesAbout are the first n lines of every daemon's log that name job,
// for a job that did not converge.
func (c *cluster) linesAbout(job string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "--- what the logs say of job %s:", job)
	for _, d := range c.all() {
		data, err := os.ReadFile(d.log)
		if err != nil {
			continue
		}
		k := 0
		for _, line := range strings.Split(string(data), "\n") {
			if strings.Contains(line, job) && k < n {
				fmt.Fprintf(&b, "\n%s: %s", d.name, line)
				k++
			}
		}
	}
	return b.String()
}
