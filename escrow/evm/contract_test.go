package evm

// Tests of contracts/SwarmwageEscrow.sol on go-ethereum's simulated backend.
// Each names the guarantee it checks; property-style tests draw random
// vouchers from a seeded source so a failure reproduces.

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow/evm/contract"
	"github.com/swarmwage/swarmwage/escrow/evm/internal/hostile"
)

const (
	skipBadSignature = 1
	skipAlreadyPaid  = 2
	skipCancelled    = 3
	skipTooEarly     = 4
	skipNotCovered   = 5
)

// The Go EIP-712 digests (apitypes) are the contract's, for random vouchers:
// otherwise no voucher signed here would ever pay.
func TestDigestsMatchContract(t *testing.T) {
	d := newDeployment(t, 3600)
	rng := rand.New(rand.NewPCG(1, 2))
	call := &bind.CallOpts{Context: t.Context()}
	for i := range 25 {
		var job [32]byte
		for j := range job {
			job[j] = byte(rng.Uint32())
		}
		l := &Lock{JobID: job, Buyer: randAddr(rng), Seller: randAddr(rng), Amount: rng.Int64N(1<<62) + 1, NotBefore: rng.Uint64()}
		want, err := d.esc.HashLock(call, l.JobID, l.Buyer, l.Seller, big64(l.Amount), l.NotBefore)
		require.NoError(t, err)
		got, err := d.domain.LockDigest(l)
		require.NoError(t, err)
		require.Equal(t, common.Hash(want), got, "lock digest %d", i)

		r := &Release{JobID: job, Buyer: l.Buyer, Seller: l.Seller, Amount: l.Amount}
		want, err = d.esc.HashRelease(call, r.JobID, r.Buyer, r.Seller, big64(r.Amount))
		require.NoError(t, err)
		got, err = d.domain.ReleaseDigest(r)
		require.NoError(t, err)
		require.Equal(t, common.Hash(want), got, "release digest %d", i)
	}
}

func randAddr(rng *rand.Rand) common.Address {
	var a common.Address
	for i := range a {
		a[i] = byte(rng.Uint32())
	}
	a[0] |= 1 // never the zero address
	return a
}

func TestReleasePaysAtOnceAndOnlyOnce(t *testing.T) {
	d := newDeployment(t, 3600)
	d.fund("buyer", 1_000_000, "seller", 600_000)
	far := d.head() + 10_000
	l := d.lock("buyer", "seller", "job-1", 250_000, far)
	r := d.release("buyer", "seller", "job-1", 250_000)

	// The lock alone is not redeemable before its time.
	rc := d.ok(d.redeemTx("seller", "seller", l))
	require.Equal(t, uint8(skipTooEarly), d.outcomes(rc).skipped[jh("job-1")])
	require.Zero(t, d.tokenBalance("seller"))

	// The release pays at once, submitted by anyone, always to the seller.
	rc = d.ok(d.redeemTx("other", "seller", r))
	require.Equal(t, int64(250_000), d.outcomes(rc).paid[jh("job-1")])
	require.Equal(t, int64(250_000), d.tokenBalance("seller"))
	require.Zero(t, d.tokenBalance("other"))
	bal, _, _ := d.lineOf("buyer", "seller")
	require.Equal(t, int64(350_000), bal)
	require.Equal(t, uint8(1), d.jobState("buyer", "seller", "job-1"))

	// Replays: the same release again, twice in one batch, and the lock after
	// its not-before time all pay nothing more.
	rc = d.ok(d.redeemTx("seller", "seller", r, r))
	o := d.outcomes(rc)
	require.Empty(t, o.paid)
	require.Equal(t, uint8(skipAlreadyPaid), o.skipped[jh("job-1")])
	d.at(far)
	rc = d.ok(d.redeemTx("seller", "seller", l))
	require.Equal(t, uint8(skipAlreadyPaid), d.outcomes(rc).skipped[jh("job-1")])
	require.Equal(t, int64(250_000), d.tokenBalance("seller"))
}

func TestSameJobTwiceInOneBatchPaysOnce(t *testing.T) {
	d := newDeployment(t, 3600)
	d.fund("buyer", 1_000_000, "seller", 1_000_000)
	now := d.head()
	l := d.lock("buyer", "seller", "job-x", 100, now)
	r := d.release("buyer", "seller", "job-x", 100)
	rc := d.ok(d.redeemTx("seller", "seller", l, r, l))
	o := d.outcomes(rc)
	require.Equal(t, int64(100), o.paid[jh("job-x")])
	require.Equal(t, uint8(skipAlreadyPaid), o.skipped[jh("job-x")])
	require.Equal(t, int64(100), d.tokenBalance("seller"))
}

// A voucher signed for another chain or another escrow contract, or altered
// in any field, never pays.
func TestSignatureReplayAcrossChainsAndContracts(t *testing.T) {
	d := newDeployment(t, 3600)
	other := d.deployEscrow(d.tokenAt, 3600) // same chain, same token, same buyer funds
	other.token = d.token
	d.fund("buyer", 1_000_000, "seller", 500_000)
	b := d.key("buyer").Address()
	d.ok(func() (*types.Transaction, error) { return d.token.Mint(d.opts("deployer"), b, big64(500_000)) })
	d.ok(func() (*types.Transaction, error) {
		return d.token.Approve(d.opts("buyer"), other.escAt, big64(500_000))
	})
	d.ok(func() (*types.Transaction, error) { return other.esc.Deposit(d.opts("buyer"), big64(500_000)) })
	d.ok(func() (*types.Transaction, error) {
		return other.esc.Allocate(d.opts("buyer"), d.key("seller").Address(), big64(500_000))
	})

	seller := d.key("seller").Address()
	domains := map[string]Domain{
		"other chain":    {ChainID: new(big.Int).Add(d.chainID, big.NewInt(1)), Escrow: d.escAt},
		"other contract": {ChainID: d.chainID, Escrow: other.escAt},
		"chain 1":        {ChainID: big.NewInt(1), Escrow: d.escAt},
	}
	for name, dom := range domains {
		t.Run(name, func(t *testing.T) {
			r := &Release{JobID: JobID("replay-" + name), Buyer: b, Seller: seller, Amount: 1000}
			require.NoError(t, dom.SignRelease(d.key("buyer"), r))
			require.ErrorIs(t, d.domain.VerifyRelease(r), ErrBadSignature)
			rc := d.ok(d.redeemTx("seller", "seller", r))
			require.Equal(t, uint8(skipBadSignature), d.outcomes(rc).skipped[r.JobID])
		})
	}
	// And the one signed for `other` pays there, only there.
	r := &Release{JobID: JobID("mine"), Buyer: b, Seller: seller, Amount: 1000}
	require.NoError(t, other.domain.SignRelease(d.key("buyer"), r))
	rc := d.ok(d.redeemTx("seller", "seller", r))
	require.Equal(t, uint8(skipBadSignature), d.outcomes(rc).skipped[r.JobID])
	rc = other.ok(other.redeemTx("seller", "seller", r))
	require.Equal(t, int64(1000), other.outcomes(rc).paid[r.JobID])
	require.Equal(t, int64(1000), d.tokenBalance("seller"))
}

// Property: changing any field of a signed voucher (or signing with a key
// that is not the buyer's) makes it pay nothing.
func TestAlteredVoucherNeverPays(t *testing.T) {
	d := newDeployment(t, 3600)
	d.fund("buyer", 1_000_000, "seller", 1_000_000)
	d.fund("other", 1_000_000, "seller", 1_000_000)
	now := d.head()
	rng := rand.New(rand.NewPCG(3, 4))
	type mutation struct {
		name string
		f    func(v *contract.SwarmwageEscrowVoucher)
	}
	muts := []mutation{
		{"amount", func(v *contract.SwarmwageEscrowVoucher) { v.Amount = new(big.Int).Add(v.Amount, big.NewInt(1)) }},
		{"job", func(v *contract.SwarmwageEscrowVoucher) { v.JobId[rng.IntN(32)] ^= 1 << rng.IntN(8) }},
		{"buyer", func(v *contract.SwarmwageEscrowVoucher) { v.Buyer = d.key("other").Address() }},
		{"notBefore", func(v *contract.SwarmwageEscrowVoucher) {
			if !v.Release {
				v.NotBefore--
			} else {
				v.Amount = big.NewInt(1)
			}
		}},
		{"kind", func(v *contract.SwarmwageEscrowVoucher) { v.Release = !v.Release; v.NotBefore = 0 }},
		{"sig", func(v *contract.SwarmwageEscrowVoucher) { v.Signature[rng.IntN(64)] ^= 1 << rng.IntN(8) }},
		{"high-s twin", func(v *contract.SwarmwageEscrowVoucher) { v.Signature = highS(v.Signature) }},
		{"short sig", func(v *contract.SwarmwageEscrowVoucher) { v.Signature = v.Signature[:64] }},
	}
	for i := range 24 {
		m := muts[i%len(muts)]
		job := fmt.Sprintf("mut-%d-%s", i, m.name)
		var v contract.SwarmwageEscrowVoucher
		if rng.IntN(2) == 0 {
			v = lockVoucher(d.lock("buyer", "seller", job, rng.Int64N(1000)+2, now-1))
		} else {
			v = releaseVoucher(d.release("buyer", "seller", job, rng.Int64N(1000)+2))
		}
		m.f(&v)
		rc := d.ok(d.redeemTx("seller", "seller", v))
		o := d.outcomes(rc)
		require.Empty(t, o.paid, "mutation %s paid", m.name)
		require.Equal(t, uint8(skipBadSignature), o.skipped[common.Hash(v.JobId)], "mutation %s", m.name)
	}
	// The wrong redeem seller also fails the signature: a voucher for seller
	// cannot be cashed by seller2.
	r := d.release("buyer", "seller", "for-seller", 10)
	rc := d.ok(d.redeemTx("seller2", "seller2", r))
	require.Equal(t, uint8(skipBadSignature), d.outcomes(rc).skipped[jh("for-seller")])
	require.Zero(t, d.tokenBalance("seller"))
	require.Zero(t, d.tokenBalance("seller2"))
}

// highS returns the other valid signature of the same digest (s -> n - s,
// v flipped): the contract refuses the upper half.
func highS(sig []byte) []byte {
	out := slices.Clone(sig)
	n := new(big.Int).Lsh(secp256k1halfN, 1)
	n.Add(n, big.NewInt(1))
	s := new(big.Int).SetBytes(sig[32:64])
	new(big.Int).Sub(n, s).FillBytes(out[32:64])
	out[64] ^= 1 // 27 <-> 28
	return out
}

// Cancel races at the not-before time: the second notBefore belongs to the
// seller. A cancel mined before it stops the lock's claim; one mined at or
// after it changes nothing, whatever the order inside the block.
func TestCancelRaceAtNotBefore(t *testing.T) {
	testCases := []struct {
		name       string
		cancelAt   int64 // relative to notBefore; -99: no cancel
		claimAt    int64
		cancelLast bool // inside the same block, the claim goes first
		wantPaid   bool
		wantSkip   uint8
	}{
		{name: "claim one second early", cancelAt: -99, claimAt: -1, wantSkip: skipTooEarly},
		{name: "claim at notBefore", cancelAt: -99, claimAt: 0, wantPaid: true},
		{name: "cancel one second before", cancelAt: -1, claimAt: 0, wantSkip: skipCancelled},
		{name: "cancel long before, claim late", cancelAt: -50, claimAt: 100, wantSkip: skipCancelled},
		{name: "cancel at notBefore, same block, cancel first", cancelAt: 0, claimAt: 0, wantPaid: true},
		{name: "cancel at notBefore, same block, claim first", cancelAt: 0, claimAt: 0, cancelLast: true, wantPaid: true},
		{name: "cancel after notBefore", cancelAt: 5, claimAt: 10, wantPaid: true},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			d := newDeployment(t, 3600)
			d.fund("buyer", 1000, "seller", 1000)
			nb := d.head() + 200
			l := d.lock("buyer", "seller", "race", 700, nb)
			cancel := func() (*types.Transaction, error) {
				return d.esc.Cancel(d.opts("buyer"), d.key("seller").Address(), [][32]byte{JobID("race")})
			}
			claim := d.redeemTx("seller", "seller", l)
			var rcs []*types.Receipt
			switch {
			case tc.cancelAt == -99:
				d.at(uint64(int64(nb) + tc.claimAt))
				rcs = d.mine(claim)
			case tc.cancelAt == tc.claimAt:
				d.at(uint64(int64(nb) + tc.claimAt))
				if tc.cancelLast {
					rcs = d.mine(claim, cancel)
				} else {
					rcs = d.mine(cancel, claim)
				}
			default:
				d.at(uint64(int64(nb) + tc.cancelAt))
				d.mine(cancel)
				d.at(uint64(int64(nb) + tc.claimAt))
				rcs = d.mine(claim)
			}
			var o outcome
			for _, rc := range rcs {
				require.Equal(t, types.ReceiptStatusSuccessful, rc.Status)
				got := d.outcomes(rc)
				if len(got.paid)+len(got.skipped) > 0 {
					o = got
				}
			}
			if tc.wantPaid {
				require.Equal(t, int64(700), o.paid[jh("race")])
				require.Equal(t, int64(700), d.tokenBalance("seller"))
				require.Equal(t, uint8(1), d.jobState("buyer", "seller", "race"))
			} else {
				require.Empty(t, o.paid)
				require.Equal(t, tc.wantSkip, o.skipped[jh("race")])
				require.Zero(t, d.tokenBalance("seller"))
			}
		})
	}
}

// A buyer who released cannot take it back by cancelling before the seller's
// batch goes out; a cancel only stops the lock voucher.
func TestReleaseBeatsCancel(t *testing.T) {
	d := newDeployment(t, 3600)
	d.fund("buyer", 1000, "seller", 1000)
	r := d.release("buyer", "seller", "rel", 400)
	d.ok(func() (*types.Transaction, error) {
		return d.esc.Cancel(d.opts("buyer"), d.key("seller").Address(), [][32]byte{JobID("rel")})
	})
	require.Equal(t, uint8(2), d.jobState("buyer", "seller", "rel"))
	rc := d.ok(d.redeemTx("seller", "seller", r))
	require.Equal(t, int64(400), d.outcomes(rc).paid[jh("rel")])
	// Cancelling a paid job changes nothing.
	d.ok(func() (*types.Transaction, error) {
		return d.esc.Cancel(d.opts("buyer"), d.key("seller").Address(), [][32]byte{JobID("rel")})
	})
	require.Equal(t, uint8(1), d.jobState("buyer", "seller", "rel"))
}

// Only the buyer can cancel its jobs: another address "cancelling" the same
// job id cancels its own (empty) job, not the buyer's.
func TestOnlyTheBuyerCancels(t *testing.T) {
	d := newDeployment(t, 3600)
	d.fund("buyer", 1000, "seller", 1000)
	nb := d.head() + 100
	l := d.lock("buyer", "seller", "mine", 300, nb)
	d.ok(func() (*types.Transaction, error) {
		return d.esc.Cancel(d.opts("other"), d.key("seller").Address(), [][32]byte{JobID("mine")})
	})
	require.Equal(t, uint8(0), d.jobState("buyer", "seller", "mine"))
	d.at(nb)
	rc := d.ok(d.redeemTx("seller", "seller", l))
	require.Equal(t, int64(300), d.outcomes(rc).paid[jh("mine")])
}

// The notice period: a line's money leaves to the buyer only `notice` seconds
// after the request, and a seller holding a lock voucher whose not-before
// falls inside the notice claims first.
func TestWithdrawNoticePeriod(t *testing.T) {
	const notice = 600
	d := newDeployment(t, notice)
	d.fund("buyer", 1000, "seller", 1000)
	sellerAddr := d.key("seller").Address()

	d.reverts("NoWithdrawal", d.escABI, func(o *bind.TransactOpts) (*types.Transaction, error) {
		return d.esc.Withdraw(o, sellerAddr)
	}, "buyer")

	nb := d.head() + notice/2
	l := d.lock("buyer", "seller", "held", 800, nb)
	rc := d.ok(func() (*types.Transaction, error) {
		return d.esc.RequestWithdraw(d.opts("buyer"), sellerAddr, big64(1000))
	})
	req, err := d.filterer.ParseWithdrawRequested(*rc.Logs[0])
	require.NoError(t, err)
	readyAt := req.ReadyAt
	h, err := d.c.HeaderByHash(t.Context(), rc.BlockHash)
	require.NoError(t, err)
	require.Equal(t, h.Time+notice, readyAt)
	_, withdrawing, at := d.lineOf("buyer", "seller")
	require.Equal(t, int64(1000), withdrawing)
	require.Equal(t, readyAt, at)

	// One second before the notice ends the withdrawal is refused.
	d.at(readyAt - 1)
	rcs := d.mine(func() (*types.Transaction, error) { return d.esc.Withdraw(d.opts("buyer"), sellerAddr) })
	require.Equal(t, types.ReceiptStatusFailed, rcs[0].Status)

	// Meanwhile (at notBefore, inside the notice) the seller claimed.
	// (The chain is past nb already: nb = request time + notice/2.)
	rc = d.ok(d.redeemTx("seller", "seller", l))
	require.Equal(t, int64(800), d.outcomes(rc).paid[jh("held")])

	// At the end of the notice the buyer takes what is left, not what it asked.
	buyerBefore := d.tokenBalance("buyer")
	d.ok(func() (*types.Transaction, error) { return d.esc.Withdraw(d.opts("buyer"), sellerAddr) })
	require.Equal(t, buyerBefore+200, d.tokenBalance("buyer"))
	bal, withdrawing, at := d.lineOf("buyer", "seller")
	require.Zero(t, bal)
	require.Zero(t, withdrawing)
	require.Zero(t, at)
	require.Equal(t, int64(800), d.tokenBalance("seller"))
}

// A new request restarts the notice; amount 0 withdraws the request.
func TestWithdrawRequestRestartsNotice(t *testing.T) {
	const notice = 300
	d := newDeployment(t, notice)
	d.fund("buyer", 1000, "seller", 1000)
	seller := d.key("seller").Address()
	d.ok(func() (*types.Transaction, error) { return d.esc.RequestWithdraw(d.opts("buyer"), seller, big64(10)) })
	_, _, first := d.lineOf("buyer", "seller")
	d.at(first - 10)
	d.ok(func() (*types.Transaction, error) { return d.esc.RequestWithdraw(d.opts("buyer"), seller, big64(999)) })
	_, w, second := d.lineOf("buyer", "seller")
	require.Equal(t, int64(999), w)
	require.Equal(t, first-10+notice, second)
	d.at(first)
	rc := d.mine(func() (*types.Transaction, error) { return d.esc.Withdraw(d.opts("buyer"), seller) })
	require.Equal(t, types.ReceiptStatusFailed, rc[0].Status, "the old readyAt no longer counts")
	d.ok(func() (*types.Transaction, error) { return d.esc.RequestWithdraw(d.opts("buyer"), seller, big64(0)) })
	_, w, at := d.lineOf("buyer", "seller")
	require.Zero(t, w)
	require.Zero(t, at)
}

// The free balance backs no voucher, so it leaves at once; a line needs the
// notice.
func TestFreeBalanceWithdrawsAtOnce(t *testing.T) {
	d := newDeployment(t, 3600)
	d.fund("buyer", 1000, "seller", 400)
	free, err := d.esc.Free(&bind.CallOpts{Context: t.Context()}, d.key("buyer").Address())
	require.NoError(t, err)
	require.Equal(t, int64(600), free.Int64())
	d.reverts("Insufficient", d.escABI, func(o *bind.TransactOpts) (*types.Transaction, error) {
		return d.esc.WithdrawFree(o, big64(601))
	}, "buyer")
	d.ok(func() (*types.Transaction, error) { return d.esc.WithdrawFree(d.opts("buyer"), big64(600)) })
	require.Equal(t, int64(600), d.tokenBalance("buyer"))
	d.reverts("Insufficient", d.escABI, func(o *bind.TransactOpts) (*types.Transaction, error) {
		return d.esc.Allocate(o, d.key("seller").Address(), big64(1))
	}, "buyer")
}

// Property: whatever vouchers a buyer signs (over-committing its line many
// times over, to two sellers), the contract pays each seller at most its
// line, never more than the buyer put in, and its token balance always
// equals free balances plus lines.
func TestOverCommitNeverPaysMoreThanTheLine(t *testing.T) {
	d := newDeployment(t, 3600)
	d.fund("buyer", 10_000, "seller", 3_000)
	d.ok(func() (*types.Transaction, error) {
		return d.esc.Allocate(d.opts("buyer"), d.key("seller2").Address(), big64(2_000))
	})
	rng := rand.New(rand.NewPCG(5, 6))
	now := d.head()
	for round := range 4 {
		for _, seller := range []string{"seller", "seller2"} {
			var vs []any
			for i := range 12 {
				job := fmt.Sprintf("oc-%d-%s-%d", round, seller, i)
				amt := rng.Int64N(900) + 1
				if rng.IntN(2) == 0 {
					vs = append(vs, d.release("buyer", seller, job, amt))
				} else {
					vs = append(vs, d.lock("buyer", seller, job, amt, now))
				}
			}
			rc := d.ok(d.redeemTx(seller, seller, vs...))
			for _, reason := range d.outcomes(rc).skipped {
				require.Equal(t, uint8(skipNotCovered), reason)
			}
			d.requireSolvent()
		}
	}
	require.LessOrEqual(t, d.tokenBalance("seller"), int64(3_000))
	require.LessOrEqual(t, d.tokenBalance("seller2"), int64(2_000))
	require.Greater(t, d.tokenBalance("seller"), int64(2_000), "vouchers that fit should have paid")
}

// requireSolvent: the escrow holds exactly what it owes buyers.
func (d *deployment) requireSolvent() {
	d.t.Helper()
	call := &bind.CallOpts{Context: d.t.Context()}
	held, err := d.token.BalanceOf(call, d.escAt)
	require.NoError(d.t, err)
	owed := new(big.Int)
	for _, b := range []string{"buyer", "other"} {
		f, err := d.esc.Free(call, d.key(b).Address())
		require.NoError(d.t, err)
		owed.Add(owed, f)
		for _, s := range []string{"seller", "seller2"} {
			l, err := d.esc.Line(call, d.key(b).Address(), d.key(s).Address())
			require.NoError(d.t, err)
			owed.Add(owed, l.Balance)
		}
	}
	require.Zero(d.t, held.Cmp(owed), "escrow holds %s, owes %s", held, owed)
}

// Checked arithmetic: an amount no line can cover is skipped, not wrapped;
// a notice so long that readyAt would overflow makes requestWithdraw revert
// instead of wrapping to a time in the past.
func TestOverflowIsRefused(t *testing.T) {
	d := newDeployment(t, ^uint64(0)-5)
	d.fund("buyer", 1000, "seller", 1000)
	huge := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	job := JobID("huge")
	h, err := d.esc.HashRelease(&bind.CallOpts{Context: t.Context()}, job, d.key("buyer").Address(), d.key("seller").Address(), huge)
	require.NoError(t, err)
	v := contract.SwarmwageEscrowVoucher{Release: true, JobId: job, Buyer: d.key("buyer").Address(), Amount: huge, Signature: signRaw(t, d.key("buyer"), h)}
	// Two of them in one batch would overflow the running total if either paid.
	rc := d.ok(d.redeemTx("seller", "seller", v, v))
	require.Equal(t, uint8(skipNotCovered), d.outcomes(rc).skipped[common.Hash(job)])
	d.requireSolvent()

	seller := d.key("seller").Address()
	rcs := d.mine(func() (*types.Transaction, error) { return d.esc.RequestWithdraw(d.opts("buyer"), seller, big64(1)) })
	require.Equal(t, types.ReceiptStatusFailed, rcs[0].Status, "readyAt overflow must revert")
	_, _, at := d.lineOf("buyer", "seller")
	require.Zero(t, at)
}

func TestMalformedVoucherRevertsTheBatch(t *testing.T) {
	d := newDeployment(t, 3600)
	d.fund("buyer", 1000, "seller", 1000)
	good := d.release("buyer", "seller", "good", 10)
	bad := releaseVoucher(d.release("buyer", "seller", "bad", 10))
	bad.NotBefore = 5 // a release carries no time
	rcs := d.mine(d.redeemTx("seller", "seller", good, bad))
	require.Equal(t, types.ReceiptStatusFailed, rcs[0].Status)
	require.Equal(t, uint8(0), d.jobState("buyer", "seller", "good"), "a reverted batch leaves nothing behind")
	zero := releaseVoucher(good)
	zero.Amount = big.NewInt(0)
	d.reverts("BadVoucher", d.escABI, func(o *bind.TransactOpts) (*types.Transaction, error) {
		return d.esc.Redeem(o, d.key("seller").Address(), []contract.SwarmwageEscrowVoucher{zero})
	}, "seller")
	d.reverts("BadVoucher", d.escABI, func(o *bind.TransactOpts) (*types.Transaction, error) {
		return d.esc.Redeem(o, common.Address{}, []contract.SwarmwageEscrowVoucher{releaseVoucher(good)})
	}, "seller")
	d.reverts("ZeroAmount", d.escABI, func(o *bind.TransactOpts) (*types.Transaction, error) {
		return d.esc.Deposit(o, big64(0))
	}, "buyer")
}

// The contract has no owner or admin: its ABI is exactly the functions
// below, none of which can move money except as the rules say. Adding a
// function fails this test on purpose.
func TestNoAdminFunctions(t *testing.T) {
	a, err := contract.SwarmwageEscrowMetaData.GetAbi()
	require.NoError(t, err)
	var got []string
	for name, m := range a.Methods {
		if !m.IsConstant() {
			got = append(got, name)
		}
	}
	slices.Sort(got)
	require.Equal(t, []string{"allocate", "cancel", "deposit", "redeem", "requestWithdraw", "withdraw", "withdrawFree"}, got)
	require.Len(t, a.Constructor.Inputs, 2, "constructor takes only token and notice")
	_, payable := a.Methods["receive"]
	require.False(t, payable)
	require.False(t, a.HasFallback() || a.HasReceive(), "the escrow accepts no ether")
}

func TestDeployRefusesATokenWithoutCode(t *testing.T) {
	s := newSimChain(t)
	o := s.opts("deployer")
	o.GasLimit = 0
	_, _, _, err := contract.DeploySwarmwageEscrow(o, s.c, common.HexToAddress("0x1234"), 60)
	a, aerr := contract.SwarmwageEscrowMetaData.GetAbi()
	require.NoError(t, aerr)
	requireRevert(t, err, "NoCode", a)
}

func TestStablecoinMintOnlyByDeployer(t *testing.T) {
	d := newDeployment(t, 60)
	call := &bind.CallOpts{Context: t.Context()}
	dec, err := d.token.Decimals(call)
	require.NoError(t, err)
	require.Equal(t, uint8(6), dec)
	d.ok(func() (*types.Transaction, error) {
		return d.token.Mint(d.opts("deployer"), d.key("buyer").Address(), big64(5))
	})
	require.Equal(t, int64(5), d.tokenBalance("buyer"))
	a, err := contract.TestStablecoinMetaData.GetAbi()
	require.NoError(t, err)
	d.reverts("NotMinter", a, func(o *bind.TransactOpts) (*types.Transaction, error) {
		return d.token.Mint(o, d.key("buyer").Address(), big64(5))
	}, "buyer")
}

// hostileDeployment is an escrow over a misbehaving token.
func hostileEscrow(t *testing.T, deploy func(s *simChain) common.Address) *deployment {
	s := newSimChain(t, "buyer", "seller", "seller2", "other")
	var tok common.Address
	tok = deploy(s)
	return s.deployEscrow(tok, 3600)
}

// Tokens that return false instead of reverting: every failed transfer
// reverts the escrow call, so no balance is credited or debited for money
// that did not move.
func TestTokenReturningFalse(t *testing.T) {
	var ft *hostile.FalseToken
	d := hostileEscrow(t, func(s *simChain) common.Address {
		var a common.Address
		s.ok(func() (*types.Transaction, error) {
			addr, tx, c, err := hostile.DeployFalseToken(s.opts("deployer"), s.c)
			a, ft = addr, c
			return tx, err
		})
		return a
	})
	buyer := d.key("buyer").Address()
	d.ok(func() (*types.Transaction, error) { return ft.Mint(d.opts("deployer"), buyer, big64(1000)) })
	d.ok(func() (*types.Transaction, error) { return ft.Approve(d.opts("buyer"), d.escAt, big64(1000)) })
	d.ok(func() (*types.Transaction, error) { return ft.SetFail(d.opts("deployer"), true) })
	d.reverts("TransferFailed", d.escABI, func(o *bind.TransactOpts) (*types.Transaction, error) {
		return d.esc.Deposit(o, big64(500))
	}, "buyer")
	// Not enough allowance also returns false, fail flag or not.
	d.ok(func() (*types.Transaction, error) { return ft.SetFail(d.opts("deployer"), false) })
	d.reverts("TransferFailed", d.escABI, func(o *bind.TransactOpts) (*types.Transaction, error) {
		return d.esc.Deposit(o, big64(5000))
	}, "buyer")
	d.ok(func() (*types.Transaction, error) { return d.esc.Deposit(d.opts("buyer"), big64(1000)) })
	d.ok(func() (*types.Transaction, error) {
		return d.esc.Allocate(d.opts("buyer"), d.key("seller").Address(), big64(600))
	})

	r := d.release("buyer", "seller", "f", 600)
	d.ok(func() (*types.Transaction, error) { return ft.SetFail(d.opts("deployer"), true) })
	rcs := d.mine(d.redeemTx("seller", "seller", r))
	require.Equal(t, types.ReceiptStatusFailed, rcs[0].Status)
	require.Equal(t, uint8(0), d.jobState("buyer", "seller", "f"), "a failed payout leaves the job open")
	bal, _, _ := d.lineOf("buyer", "seller")
	require.Equal(t, int64(600), bal)
	rcs = d.mine(func() (*types.Transaction, error) { return d.esc.WithdrawFree(d.opts("buyer"), big64(400)) })
	require.Equal(t, types.ReceiptStatusFailed, rcs[0].Status)

	d.ok(func() (*types.Transaction, error) { return ft.SetFail(d.opts("deployer"), false) })
	rc := d.ok(d.redeemTx("seller", "seller", r))
	require.Equal(t, int64(600), d.outcomes(rc).paid[jh("f")])
	got, err := ft.BalanceOf(&bind.CallOpts{Context: t.Context()}, d.key("seller").Address())
	require.NoError(t, err)
	require.Equal(t, int64(600), got.Int64())
}

// Tokens that return nothing (USDT-style) work.
func TestTokenReturningNothing(t *testing.T) {
	var nt *hostile.NoReturnToken
	d := hostileEscrow(t, func(s *simChain) common.Address {
		var a common.Address
		s.ok(func() (*types.Transaction, error) {
			addr, tx, c, err := hostile.DeployNoReturnToken(s.opts("deployer"), s.c)
			a, nt = addr, c
			return tx, err
		})
		return a
	})
	buyer := d.key("buyer").Address()
	d.ok(func() (*types.Transaction, error) { return nt.Mint(d.opts("deployer"), buyer, big64(100)) })
	d.ok(func() (*types.Transaction, error) { return nt.Approve(d.opts("buyer"), d.escAt, big64(100)) })
	d.ok(func() (*types.Transaction, error) { return d.esc.Deposit(d.opts("buyer"), big64(100)) })
	d.ok(func() (*types.Transaction, error) {
		return d.esc.Allocate(d.opts("buyer"), d.key("seller").Address(), big64(100))
	})
	rc := d.ok(d.redeemTx("seller", "seller", d.release("buyer", "seller", "n", 70)))
	require.Equal(t, int64(70), d.outcomes(rc).paid[jh("n")])
	got, err := nt.BalanceOf(&bind.CallOpts{Context: t.Context()}, d.key("seller").Address())
	require.NoError(t, err)
	require.Equal(t, int64(70), got.Int64())
}

// A token with a transfer fee: the buyer is credited what arrived, so the
// escrow never owes more than it holds.
func TestFeeTokenCreditsWhatArrived(t *testing.T) {
	var ft *hostile.FeeToken
	d := hostileEscrow(t, func(s *simChain) common.Address {
		var a common.Address
		s.ok(func() (*types.Transaction, error) {
			addr, tx, c, err := hostile.DeployFeeToken(s.opts("deployer"), s.c)
			a, ft = addr, c
			return tx, err
		})
		return a
	})
	buyer := d.key("buyer").Address()
	d.ok(func() (*types.Transaction, error) { return ft.Mint(d.opts("deployer"), buyer, big64(10_000)) })
	d.ok(func() (*types.Transaction, error) { return ft.Approve(d.opts("buyer"), d.escAt, big64(10_000)) })
	d.ok(func() (*types.Transaction, error) { return d.esc.Deposit(d.opts("buyer"), big64(10_000)) })
	free, err := d.esc.Free(&bind.CallOpts{Context: t.Context()}, buyer)
	require.NoError(t, err)
	require.Equal(t, int64(9_900), free.Int64())
	held, err := ft.BalanceOf(&bind.CallOpts{Context: t.Context()}, d.escAt)
	require.NoError(t, err)
	require.Equal(t, free, held)
}

// Reentrancy: a token that calls back into the escrow from inside the
// payout (to redeem the same voucher again, or to withdraw) is refused by
// the guard, and the job pays once.
func TestReentrantTokenIsRefused(t *testing.T) {
	var rt *hostile.ReentrantToken
	d := hostileEscrow(t, func(s *simChain) common.Address {
		var a common.Address
		s.ok(func() (*types.Transaction, error) {
			addr, tx, c, err := hostile.DeployReentrantToken(s.opts("deployer"), s.c)
			a, rt = addr, c
			return tx, err
		})
		return a
	})
	buyer := d.key("buyer").Address()
	seller := d.key("seller").Address()
	call := &bind.CallOpts{Context: t.Context()}
	d.ok(func() (*types.Transaction, error) { return rt.Mint(d.opts("deployer"), buyer, big64(1000)) })
	d.ok(func() (*types.Transaction, error) { return rt.Approve(d.opts("buyer"), d.escAt, big64(1000)) })

	// Re-enter deposit's transferFrom with withdrawFree.
	payload, err := d.escABI.Pack("withdrawFree", big64(1))
	require.NoError(t, err)
	d.ok(func() (*types.Transaction, error) { return rt.Arm(d.opts("deployer"), d.escAt, payload) })
	d.ok(func() (*types.Transaction, error) { return d.esc.Deposit(d.opts("buyer"), big64(1000)) })
	d.requireReentryRefused(rt)
	d.ok(func() (*types.Transaction, error) { return d.esc.Allocate(d.opts("buyer"), seller, big64(1000)) })

	// Re-enter the payout with the same voucher.
	r := d.release("buyer", "seller", "re", 300)
	payload, err = d.escABI.Pack("redeem", seller, toContractVouchers(r))
	require.NoError(t, err)
	d.ok(func() (*types.Transaction, error) { return rt.Arm(d.opts("deployer"), d.escAt, payload) })
	rc := d.ok(d.redeemTx("seller", "seller", r))
	require.Equal(t, int64(300), d.outcomes(rc).paid[jh("re")])
	d.requireReentryRefused(rt)
	got, err := rt.BalanceOf(call, seller)
	require.NoError(t, err)
	require.Equal(t, int64(300), got.Int64())
	bal, _, _ := d.lineOf("buyer", "seller")
	require.Equal(t, int64(700), bal)
}

func (d *deployment) requireReentryRefused(rt *hostile.ReentrantToken) {
	d.t.Helper()
	call := &bind.CallOpts{Context: d.t.Context()}
	attempted, err := rt.Attempted(call)
	require.NoError(d.t, err)
	require.True(d.t, attempted, "the token did not try to re-enter")
	ok, err := rt.InnerSucceeded(call)
	require.NoError(d.t, err)
	require.False(d.t, ok, "re-entry succeeded")
	res, err := rt.InnerResult(call)
	require.NoError(d.t, err)
	id := d.escABI.Errors["Reentrancy"].ID
	require.Equal(d.t, id[:4], res[:4])
}
