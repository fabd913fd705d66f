package faults

import (
	"testing"
	"time"

	"github.com/swarmwage/swarmwage/escrow"
)

// misquoteHires is how many hires each phase of TestMisquote runs.
const misquoteHires = 4

// misquotePrice is what the misquoting seller quotes (3 credits) for the
// capabilities it lists at price (0.01): the attack of issue 22, a seller
// ranked by its cheap listing that charges its quote.
const misquotePrice = 3_000_000

// TestMisquote runs the honest seller with the failpoint that makes it
// quote misquotePrice for what it lists at price (seller/quote-price,
// market/seller.go), next to the dishonest one. Hires of it by name must
// end with no seller (exit 3) and no lock; hires routed among both sellers
// must never lock its quote; once it quotes honestly again (restarted
// without the failpoint) it is hired at its listing's price. Every lock the
// buyer ever made must hold exactly a listed price: any other amount is a
// wrong payment. Then the ledgers must converge as in every run.
func TestMisquote(t *testing.T) {
	t.Parallel()
	runMisquote(t, nil)
}

// TestMisquoteEVM is TestMisquote on the evm rail (a real anvil): the
// quote is in tokens, the lock a signed voucher against the buyer's line,
// and no lock may hold anything but the listed price there either; the
// chain must agree with both ledgers job by job.
func TestMisquoteEVM(t *testing.T) {
	t.Parallel()
	runMisquote(t, &evmConfig{})
}

func runMisquote(t *testing.T, rail *evmConfig) {
	var sum tally
	c := newCluster(t, clusterConfig{honest: true, liar: true, sum: &sum, evm: rail,
		failpoints: map[string]string{"honest": "seller/quote-price=set(3000000)"}})
	listed, err := escrow.ParseAmount(price)
	if err != nil {
		t.Fatal(err)
	}

	for range misquoteHires {
		h := c.hire(c.honest, 4*time.Second)
		c.injected(1)
		if h.res.code != 3 || h.info.JobID != "" {
			t.Errorf("a hire of the misquoting seller: want exit 3 and no job, got %s", h)
		}
	}
	if !c.honest.fired("seller/quote-price") {
		t.Fatalf("the failpoint seller/quote-price never fired:\n%s", c.honest.tail(20))
	}
	// Routed hires: the misquoter ranks by its listing; its quote is
	// refused and the other seller (whose output fails verification, so
	// refunded) is tried.
	for range misquoteHires {
		r := c.buyer.run(4*time.Second+cliTimeout, "hire", "--json", "--timeout", "4s", "--input-json", stddevInput, capStddev)
		c.injected(1)
		if r.code == 0 {
			t.Errorf("a routed hire was paid although one seller misquotes and the other lies: %s", r)
		}
	}

	// Honest again: hired at its listing's price.
	if err := c.honest.stop(); err != nil {
		t.Fatalf("stop %s: %v", c.honest.name, err)
	}
	c.restart(t, c.honest, "")
	c.reconnect(t)
	for range misquoteHires {
		if h := c.hire(c.honest, 8*time.Second); !h.res.ok() || h.info.Price != price {
			t.Errorf("a hire of the seller quoting its listing again: want released at %s, got %s", price, h)
		}
	}

	v := c.converge(time.Now())
	buyer := readLedger(c.buyer, "buyer", false)
	if buyer.readErr != nil {
		t.Fatal(buyer.readErr)
	}
	for id, r := range buyer.escrows {
		if r.amount() != listed {
			v.problem(kindWrongPayment, id, "the buyer locked %s for job %s of %s; every listing asks %s", r.Amount, id, r.Seller, price)
		}
	}
	c.check(t, v)
	t.Logf("summary: %s", &sum)
}
