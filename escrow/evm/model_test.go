package evm

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/stretchr/testify/require"
)

// model is the escrow's rules written plainly in Go. TestRandomOperations
// drives the contract and the model with the same random operations and
// requires the same outcome after each one.
type model struct {
	free  map[string]int64
	lines map[[2]string]*modelLine
	jobs  map[[3]string]*modelJob
	paid  map[string]int64 // tokens received by each seller
}

type modelLine struct {
	balance, withdrawing int64
	readyAt              uint64
}

type modelJob struct {
	state       uint8
	cancelledAt uint64
}

func (m *model) line(b, s string) *modelLine {
	k := [2]string{b, s}
	if m.lines[k] == nil {
		m.lines[k] = &modelLine{}
	}
	return m.lines[k]
}

func (m *model) job(b, s, id string) *modelJob {
	k := [3]string{b, s, id}
	if m.jobs[k] == nil {
		m.jobs[k] = &modelJob{}
	}
	return m.jobs[k]
}

// signed is a voucher the test holds, with whether its signature is good.
type signed struct {
	buyer, seller, job string
	lock               *Lock
	release            *Release
	forged             bool
}

// Property: under any sequence of deposits, allocations, withdrawals, cancels
// and redeem batches (with forged, replayed, early and over-committed
// vouchers), the contract pays exactly what the plain rules say, each job at
// most once, and stays solvent.
func TestRandomOperationsMatchModel(t *testing.T) {
	seeds := uint64(3)
	if testing.Short() {
		// The race step (-short): one sequence drives every code path the
		// three do, in a third of the time (anvil's waits are long under -race).
		seeds = 1
	}
	for seed := range seeds {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { runModel(t, seed) })
	}
}

func runModel(t *testing.T, seed uint64) {
	const notice = 120
	d := newDeployment(t, notice)
	rng := rand.New(rand.NewPCG(seed, 99))
	buyers := []string{"buyer", "other"}
	sellers := []string{"seller", "seller2"}
	m := &model{free: map[string]int64{}, lines: map[[2]string]*modelLine{}, jobs: map[[3]string]*modelJob{}, paid: map[string]int64{}}
	for _, b := range buyers {
		d.ok(func() (*types.Transaction, error) {
			return d.token.Mint(d.opts("deployer"), d.key(b).Address(), big64(1<<40))
		})
		d.ok(func() (*types.Transaction, error) { return d.token.Approve(d.opts(b), d.escAt, big64(1<<40)) })
	}
	var held []signed
	ran := map[string]int{}
	jobN := 0
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }

	for step := range 120 {
		ts := d.head() + 1 + uint64(rng.IntN(40))
		d.at(ts)
		b, s := pick(buyers), pick(sellers)
		amt := int64(rng.IntN(400))
		var fn txFn
		var wantOK bool
		apply := func() {}
		var desc string
		switch op := rng.IntN(8); op {
		case 0:
			desc = fmt.Sprintf("deposit %s %d", b, amt)
			fn = func() (*types.Transaction, error) { return d.esc.Deposit(d.opts(b), big64(amt)) }
			wantOK = amt > 0
			apply = func() { m.free[b] += amt }
		case 1:
			desc = fmt.Sprintf("allocate %s->%s %d", b, s, amt)
			fn = func() (*types.Transaction, error) { return d.esc.Allocate(d.opts(b), d.key(s).Address(), big64(amt)) }
			wantOK = amt > 0 && m.free[b] >= amt
			apply = func() { m.free[b] -= amt; m.line(b, s).balance += amt }
		case 2:
			desc = fmt.Sprintf("withdrawFree %s %d", b, amt)
			fn = func() (*types.Transaction, error) { return d.esc.WithdrawFree(d.opts(b), big64(amt)) }
			wantOK = amt > 0 && m.free[b] >= amt
			apply = func() { m.free[b] -= amt }
		case 3:
			desc = fmt.Sprintf("requestWithdraw %s->%s %d", b, s, amt)
			fn = func() (*types.Transaction, error) {
				return d.esc.RequestWithdraw(d.opts(b), d.key(s).Address(), big64(amt))
			}
			wantOK = true
			apply = func() {
				l := m.line(b, s)
				l.withdrawing, l.readyAt = amt, 0
				if amt > 0 {
					l.readyAt = ts + notice
				}
			}
		case 4:
			desc = fmt.Sprintf("withdraw %s->%s", b, s)
			fn = func() (*types.Transaction, error) { return d.esc.Withdraw(d.opts(b), d.key(s).Address()) }
			l := m.line(b, s)
			wantOK = l.readyAt != 0 && ts >= l.readyAt
			apply = func() {
				l.balance -= min(l.withdrawing, l.balance)
				l.withdrawing, l.readyAt = 0, 0
			}
		case 5:
			// Sign a few vouchers; no transaction.
			for range 1 + rng.IntN(4) {
				jobN++
				id := fmt.Sprintf("j%d", jobN%25) // ids repeat across buyers and sellers
				v := signed{buyer: b, seller: s, job: id}
				a := 1 + int64(rng.IntN(150))
				if rng.IntN(2) == 0 {
					v.lock = d.lock(b, s, id, a, ts+uint64(rng.IntN(200)))
				} else {
					v.release = d.release(b, s, id, a)
				}
				if rng.IntN(10) == 0 {
					v.forged = true
					if v.lock != nil {
						v.lock.Amount++
					} else {
						v.release.Amount++
					}
				}
				held = append(held, v)
			}
			continue
		case 6:
			var ids [][32]byte
			var names []string
			for range 1 + rng.IntN(3) {
				n := fmt.Sprintf("j%d", rng.IntN(25))
				ids, names = append(ids, JobID(n)), append(names, n)
			}
			desc = fmt.Sprintf("cancel %s->%s %v", b, s, names)
			fn = func() (*types.Transaction, error) { return d.esc.Cancel(d.opts(b), d.key(s).Address(), ids) }
			wantOK = true
			apply = func() {
				for _, n := range names {
					if j := m.job(b, s, n); j.state == 0 {
						j.state, j.cancelledAt = 2, ts
					}
				}
			}
		case 7:
			var batch []any
			var vs []signed
			for _, v := range held {
				if v.seller == s && rng.IntN(3) > 0 {
					batch, vs = append(batch, voucherOf(v)), append(vs, v)
				}
			}
			if len(batch) == 0 {
				continue
			}
			desc = fmt.Sprintf("redeem %s x%d", s, len(batch))
			fn = d.redeemTx(pick(append(sellers, "other")), s, batch...)
			wantOK = true
			apply = func() {
				for _, v := range vs {
					m.settle(v, ts)
				}
			}
		}
		rc := d.mine(fn)[0]
		require.Equal(t, wantOK, rc.Status == types.ReceiptStatusSuccessful, "step %d: %s", step, desc)
		if wantOK {
			apply()
			ran[desc[:strings.IndexByte(desc, ' ')]]++
		} else {
			ran["refused"]++
		}
		m.compare(t, d, buyers, sellers, step, desc)
	}
	// The run must have exercised the rules, not only refusals.
	paidJobs, cancelled := 0, 0
	for _, j := range m.jobs {
		paidJobs += int(j.state & 1)
		cancelled += int(j.state >> 1)
	}
	t.Logf("operations %v, jobs paid %d, cancelled %d, paid %v", ran, paidJobs, cancelled, m.paid)
	require.Positive(t, paidJobs)
	require.Positive(t, cancelled)
	require.Positive(t, ran["refused"])
	require.Positive(t, ran["redeem"])
}

func voucherOf(v signed) any {
	if v.lock != nil {
		return v.lock
	}
	return v.release
}

// settle applies one voucher of a batch by the rules.
func (m *model) settle(v signed, now uint64) {
	if v.forged {
		return
	}
	j := m.job(v.buyer, v.seller, v.job)
	if j.state == 1 {
		return
	}
	amt := int64(0)
	if v.lock != nil {
		if now < v.lock.NotBefore || (j.state == 2 && j.cancelledAt < v.lock.NotBefore) {
			return
		}
		amt = v.lock.Amount
	} else {
		amt = v.release.Amount
	}
	l := m.line(v.buyer, v.seller)
	if l.balance < amt {
		return
	}
	l.balance -= amt
	j.state = 1
	m.paid[v.seller] += amt
}

func (m *model) compare(t *testing.T, d *deployment, buyers, sellers []string, step int, desc string) {
	t.Helper()
	call := &bind.CallOpts{Context: t.Context()}
	for _, b := range buyers {
		f, err := d.esc.Free(call, d.key(b).Address())
		require.NoError(t, err)
		require.Equal(t, m.free[b], f.Int64(), "step %d (%s): free of %s", step, desc, b)
		for _, s := range sellers {
			bal, w, at := d.lineOf(b, s)
			l := m.line(b, s)
			require.Equal(t, [3]int64{l.balance, l.withdrawing, int64(l.readyAt)}, [3]int64{bal, w, int64(at)},
				"step %d (%s): line %s->%s", step, desc, b, s)
		}
	}
	for k, j := range m.jobs {
		require.Equal(t, j.state, d.jobState(k[0], k[1], k[2]), "step %d (%s): job %v", step, desc, k)
	}
	for _, s := range sellers {
		require.Equal(t, m.paid[s], d.tokenBalance(s), "step %d (%s): paid to %s", step, desc, s)
	}
	d.requireSolvent()
}
