package faults

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/swarmwage/swarmwage/escrow"
)

// Convergence: how long the suite waits for both ledgers to agree.
const (
	// convergeSlack is added to the latest due time of an open record: the
	// outbox's retry interval (5 s), the timers' interval, reconnecting.
	convergeSlack = 20 * time.Second
	// minConverge is the least a convergence wait allows.
	minConverge = 20 * time.Second
	// maxConverge caps a convergence wait whatever the records say.
	maxConverge = 3 * time.Minute
	// convergePoll is how often the ledgers are read while waiting.
	convergePoll = time.Second
)

// escrowRec is the part of an 'escrow list --json' record the suite reads.
// Fields are decoded leniently, so that records with more fields still read.
type escrowRec struct {
	JobID       string     `json:"job_id"`
	Role        string     `json:"role"`
	State       string     `json:"state"`
	Amount      string     `json:"amount"`
	Capability  string     `json:"capability"`
	Buyer       string     `json:"buyer"`
	Seller      string     `json:"seller"`
	Deadline    time.Time  `json:"deadline"`
	WindowMS    int64      `json:"window_ms"`
	DeliveredAt *time.Time `json:"delivered_at"`
	SettledAt   *time.Time `json:"settled_at"`
	Reason      string     `json:"reason"`
	// Provisional marks a seller's release by its own timer that the buyer
	// has not confirmed yet (issue 12): not converged.
	Provisional bool `json:"provisional"`
	// The evm rail's fields (empty on credits): the counterparty's address
	// on chain, a refund whose cancel is not mined yet, what the chain
	// settled and in which transaction, and an outcome a reorg took away.
	RailCounterparty string `json:"rail_counterparty"`
	RefundPending    bool   `json:"refund_pending"`
	ChainOutcome     string `json:"chain_outcome"`
	ChainTx          string `json:"chain_tx"`
	ChainProvisional bool   `json:"chain_provisional"`
	ChainNote        string `json:"chain_note"`
}

func (r escrowRec) open() bool { return r.State == "locked" || r.State == "delivered" }

func (r escrowRec) amount() int64 {
	v, err := escrow.ParseAmount(r.Amount)
	if err != nil {
		return -1
	}
	return v
}

// due is when the record's timer fires by the escrow package's rules:
// buyer locked at the deadline, delivered a window after the delivery; the
// seller a settle grace later, and never before the deadline.
func (r escrowRec) due() time.Time {
	w := time.Duration(r.WindowMS) * time.Millisecond
	var at time.Time
	switch {
	case r.State == "locked":
		at = r.Deadline
	case r.DeliveredAt != nil:
		at = r.DeliveredAt.Add(w)
	default:
		at = r.Deadline.Add(w)
	}
	if r.Role == "seller" {
		if at.Before(r.Deadline) {
			at = r.Deadline
		}
		at = at.Add(settleGrace)
	}
	return at
}

func (r escrowRec) String() string {
	s := r.State
	if r.Provisional {
		s += " (provisional)"
	}
	if r.Reason != "" {
		s += fmt.Sprintf(" (reason %q)", r.Reason)
	}
	return s
}

// jobRec is the part of a 'jobs list --json' record the suite reads.
type jobRec struct {
	JobID  string `json:"job_id"`
	Role   string `json:"role"`
	Status string `json:"status"`
}

// ledger is what one node's CLI says about its side of the jobs.
type ledger struct {
	name      string
	id        string
	dishonest bool
	escrows   map[string]escrowRec // this node's role only
	balance   *escrow.Balance      // nil unless read
	jobs      []jobRec             // nil unless read
	readErr   error
}

// readLedger reads d's records of role and, when full, its balance and job
// records, with the CLI.
func readLedger(d *daemon, role string, full bool) ledger {
	l := ledger{name: d.name, id: d.id, escrows: make(map[string]escrowRec)}
	r := d.run(cliTimeout, "escrow", "list", "--json", "--limit", "0", "--role", role)
	var list struct {
		Escrows []escrowRec `json:"escrows"`
	}
	if !r.ok() {
		l.readErr = fmt.Errorf("%s", r)
		return l
	}
	if err := json.Unmarshal(r.stdout, &list); err != nil {
		l.readErr = fmt.Errorf("decode escrow list of %s: %w", d.name, err)
		return l
	}
	for _, e := range list.Escrows {
		l.escrows[e.JobID] = e
	}
	if !full {
		return l
	}
	r = d.run(cliTimeout, "wallet", "balance", "--json")
	var b escrow.Balance
	if !r.ok() {
		l.readErr = fmt.Errorf("%s", r)
		return l
	}
	if err := json.Unmarshal(r.stdout, &b); err != nil {
		l.readErr = fmt.Errorf("decode balance of %s: %w", d.name, err)
		return l
	}
	l.balance = &b
	r = d.run(cliTimeout, "jobs", "list", "--json")
	var jobs struct {
		Jobs []jobRec `json:"jobs"`
	}
	if !r.ok() {
		l.readErr = fmt.Errorf("%s", r)
		return l
	}
	if err := json.Unmarshal(r.stdout, &jobs); err != nil {
		l.readErr = fmt.Errorf("decode jobs of %s: %w", d.name, err)
		return l
	}
	l.jobs = append([]jobRec{}, jobs.Jobs...)
	return l
}

// snapshot is both sides of every job at one moment.
type snapshot struct {
	buyer   ledger
	sellers []ledger
	// decisions are the buyer states hires reported, by job.
	decisions map[string]string
	// extraBuyers are peers that locked with the sellers outside the
	// buyer daemon (the forging test's client); their jobs are not
	// compared.
	extraBuyers []string
	// full says whether balances and job records were read.
	full bool
	// chain is what the chain says, on the evm rail; nil on credits.
	chain *chainView
	// final: the deadline passed, whatever is pending is a failure.
	final bool
	now   time.Time
}

// Kinds of findings.
const (
	kindDivergence   = "divergence"
	kindWrongPayment = "wrong payment"
	kindOpenHold     = "open hold"
	kindNotConverged = "not converged"
	kindLedger       = "ledger"
	kindDecision     = "lost decision"
	kindJobRecord    = "job record"
	kindDaemon       = "daemon"
)

// finding is one problem a comparison found.
type finding struct {
	kind string
	// job is the job it is about, or for a ledger-wide finding what it
	// is about ("paid and earned"); "" when only msg tells.
	job string
	msg string
}

// key identifies the finding across comparisons of the same cluster: a
// long-lived cluster reports a diverged job, or a broken total, once.
func (f finding) key() string {
	if f.job == "" {
		return f.kind + ": " + f.msg
	}
	return f.kind + ": " + f.job
}

// verdict is what a comparison found.
type verdict struct {
	// problems are failures; pending are differences that may still
	// resolve (they become problems once the deadline has passed).
	problems []finding
	pending  []string
	// latestDue is the latest due time of an open record.
	latestDue time.Time
}

func (v *verdict) problem(kind, job, format string, args ...any) {
	v.problems = append(v.problems, finding{kind: kind, job: job, msg: fmt.Sprintf(format, args...)})
}

// wait notes something pending; on the final comparison it is a problem
// of kind.
func (v *verdict) wait(final bool, kind, job, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if final {
		v.problems = append(v.problems, finding{kind: kind, job: job, msg: "not converged by the deadline: " + msg})
		return
	}
	v.pending = append(v.pending, msg)
}

// count is the number of problems of kind.
func (v verdict) count(kind string) int {
	n := 0
	for _, f := range v.problems {
		if f.kind == kind {
			n++
		}
	}
	return n
}

// compare checks both ledgers job by job and the ledger invariants.
func compare(s snapshot) verdict {
	var v verdict
	all := append([]ledger{s.buyer}, s.sellers...)
	for _, l := range all {
		if l.readErr != nil {
			v.wait(s.final, kindNotConverged, "", "cannot read the ledger of %s: %v", l.name, l.readErr)
		}
	}
	if s.chain != nil && s.chain.readErr != nil {
		v.wait(s.final, kindNotConverged, "", "cannot read the chain: %v", s.chain.readErr)
	}
	if len(v.pending) > 0 || len(v.problems) > 0 {
		return v
	}
	sellerOf := make(map[string]*ledger)
	for i := range s.sellers {
		sellerOf[s.sellers[i].id] = &s.sellers[i]
	}
	ids := make(map[string]bool)
	for id := range s.buyer.escrows {
		ids[id] = true
	}
	for _, sl := range s.sellers {
		for id, r := range sl.escrows {
			if !slices.Contains(s.extraBuyers, r.Buyer) {
				ids[id] = true
			}
		}
	}
	for _, id := range slices.Sorted(maps.Keys(ids)) {
		compareJob(&v, s, id, sellerOf)
	}
	checkDecisions(&v, s)
	if s.full {
		checkBalances(&v, s)
		checkJobRecords(&v, s)
		if s.chain != nil {
			checkTokens(&v, s)
		}
	}
	return v
}

// compareJob checks one job: both sides final, the same outcome, no pay for
// the dishonest seller.
func compareJob(v *verdict, s snapshot, id string, sellerOf map[string]*ledger) {
	b, hasB := s.buyer.escrows[id]
	var sr escrowRec
	hasS := false
	var sl *ledger
	if hasB {
		sl = sellerOf[b.Seller]
		if sl != nil {
			sr, hasS = sl.escrows[id]
		}
	} else {
		for _, l := range s.sellers {
			if r, ok := l.escrows[id]; ok {
				sl, sr, hasS = &l, r, true
				break
			}
		}
	}
	sellerName := "the seller"
	dishonest := false
	if sl != nil {
		sellerName, dishonest = sl.name, sl.dishonest
	}
	paidB := hasB && b.State == string(escrow.StateReleased)
	paidS := hasS && sr.State == string(escrow.StateReleased) && !sr.Provisional
	if dishonest && (paidB || paidS) {
		who := []string{}
		if paidB {
			who = append(who, "the buyer paid")
		}
		if paidS {
			who = append(who, sellerName+" was credited")
		}
		v.problem(kindWrongPayment, id, "job %s of the dishonest seller, whose output fails verification, was paid: %s (buyer %s, seller %s)",
			id, strings.Join(who, " and "), side(b, hasB), side(sr, hasS))
	}
	if !hasB {
		v.problem(kindDivergence, id, "job %s: %s has it as %s, the buyer has no record of it (it never locked it)", id, sellerName, sr)
		return
	}
	for _, r := range []struct {
		rec escrowRec
		has bool
		who string
	}{{b, true, "buyer"}, {sr, hasS, sellerName}} {
		if !r.has {
			continue
		}
		if due := r.rec.due(); r.rec.open() && due.After(v.latestDue) {
			v.latestDue = due
		}
		switch {
		case r.rec.open():
			v.wait(s.final, kindOpenHold, id, "job %s is %s on %s (due %s, %s ago)", id, r.rec.State, r.who,
				r.rec.due().Format(time.RFC3339Nano), s.now.Sub(r.rec.due()).Round(time.Millisecond))
			return
		case r.rec.Provisional:
			v.wait(s.final, kindNotConverged, id, "job %s: %s's release is still provisional (buyer %s)", id, r.who, b)
			return
		}
	}
	if agree(b, sr, hasS) {
		if s.chain != nil {
			compareChain(v, s, id, b, sr, hasS, sellerName, dishonest)
		}
		return
	}
	v.problem(kindDivergence, id, "job %s diverges: buyer %s, %s %s", id, b, sellerName, side(sr, hasS))
}

// agree reports whether the buyer's and the seller's final states match:
// released meets released; refunded meets refunded, disputed, failed or no
// record (the lock never reached the seller).
func agree(b, s escrowRec, hasS bool) bool {
	switch escrow.State(b.State) {
	case escrow.StateReleased:
		return hasS && s.State == string(escrow.StateReleased)
	case escrow.StateRefunded:
		if !hasS {
			return true
		}
		switch escrow.State(s.State) {
		case escrow.StateRefunded, escrow.StateDisputed, escrow.StateFailed:
			return true
		}
	}
	return false
}

func side(r escrowRec, has bool) string {
	if !has {
		return "no record"
	}
	return r.String()
}

// checkDecisions: a decision a hire reported to its user is in the ledger.
func checkDecisions(v *verdict, s snapshot) {
	for _, id := range slices.Sorted(maps.Keys(s.decisions)) {
		want := s.decisions[id]
		b, ok := s.buyer.escrows[id]
		switch {
		case !ok:
			v.problem(kindDecision, id, "lost decision: a hire reported job %s as %s, the buyer has no escrow record of it", id, want)
		case !b.open() && b.State != want:
			v.problem(kindDecision, id, "lost decision: a hire reported job %s as %s, the buyer's escrow says %s", id, want, b)
		}
	}
}

// checkBalances checks available + held + paid == deposited + earned on
// every node and that the balances match the records: the buyer holds what
// is open and paid what it released, each seller earned what it released,
// and the buyer's paid equals the sellers' earned.
func checkBalances(v *verdict, s snapshot) {
	all := append([]ledger{s.buyer}, s.sellers...)
	for _, l := range all {
		b := l.balance
		if b == nil {
			continue
		}
		// Withdrawn is what left the rail to the node's own address (evm:
		// redeemed earnings, withdrawn deposits); 0 on credits.
		if b.Available+b.Held+b.Paid+b.Withdrawn != b.Deposited+b.Earned {
			v.problem(kindLedger, "invariant of "+l.name, "ledger invariant broken on %s: available %s + held %s + paid %s + withdrawn %s != deposited %s + earned %s",
				l.name, fa(b.Available), fa(b.Held), fa(b.Paid), fa(b.Withdrawn), fa(b.Deposited), fa(b.Earned))
		}
	}
	if s.buyer.balance == nil {
		return
	}
	var held, paid int64
	for _, r := range s.buyer.escrows {
		switch {
		case r.open() || r.RefundPending: // a refund whose cancel is not mined still holds
			held += r.amount()
		case r.State == string(escrow.StateReleased):
			paid += r.amount()
		}
	}
	bb := s.buyer.balance
	if bb.Held != held {
		v.problem(kindLedger, "buyer's held", "the buyer holds %s, its open escrows add up to %s", fa(bb.Held), fa(held))
	}
	if bb.Paid != paid {
		v.problem(kindLedger, "buyer's paid", "the buyer paid %s, its released escrows add up to %s", fa(bb.Paid), fa(paid))
	}
	var earned int64
	anyProvisional := false
	for _, l := range s.sellers {
		if l.balance == nil {
			return
		}
		// Earned counts confirmed releases; Pending the provisional ones
		// (released by the seller's timer, awaiting the buyer).
		var rel, prov int64
		for _, r := range l.escrows {
			switch {
			case r.State == string(escrow.StateReleased) && r.Provisional:
				prov += r.amount()
			case r.State == string(escrow.StateReleased):
				rel += r.amount()
			}
		}
		anyProvisional = anyProvisional || prov > 0
		if l.balance.Earned != rel {
			v.problem(kindLedger, "earned of "+l.name, "%s earned %s, its released escrows add up to %s", l.name, fa(l.balance.Earned), fa(rel))
		}
		if l.balance.Pending != prov {
			v.problem(kindLedger, "pending of "+l.name, "%s has %s pending, its provisional releases add up to %s", l.name, fa(l.balance.Pending), fa(prov))
		}
		earned += l.balance.Earned
	}
	if held == 0 && !anyProvisional && bb.Paid != earned {
		v.problem(kindLedger, "paid and earned", "the buyer paid %s in all, the sellers earned %s", fa(bb.Paid), fa(earned))
	}
}

// jobRecordLag is how long after its escrow settled a job record may still
// say running: the market updates it right after the escrow.
const jobRecordLag = 5 * time.Second

// checkJobRecords: no job record is left running once its escrow is final.
func checkJobRecords(v *verdict, s snapshot) {
	for _, l := range append([]ledger{s.buyer}, s.sellers...) {
		for _, j := range l.jobs {
			if j.Status != "running" {
				continue
			}
			e, ok := l.escrows[j.JobID]
			if ok && !e.open() && e.SettledAt != nil && s.now.Sub(*e.SettledAt) > jobRecordLag {
				v.problem(kindJobRecord, j.JobID, "job record %s on %s (%s) is still running, its escrow has been %s since %s", j.JobID, l.name, j.Role, e, e.SettledAt.Format(time.RFC3339Nano))
				continue
			}
			v.wait(s.final, kindJobRecord, j.JobID, "job record %s on %s (%s) is still running", j.JobID, l.name, j.Role)
		}
	}
}

func fa(v int64) string { return escrow.FormatAmount(v) }

// snapshot reads every ledger of the cluster.
func (c *cluster) snapshot(full bool) snapshot {
	s := snapshot{decisions: c.decisions(), full: full}
	s.buyer = readLedger(c.buyer, "buyer", full)
	for _, d := range c.sellers {
		l := readLedger(d, "seller", full)
		l.dishonest = d == c.liar
		s.sellers = append(s.sellers, l)
	}
	if c.chain != nil {
		s.chain = c.chain.view(s.buyer, full)
	}
	s.now = time.Now()
	return s
}

// converge polls the ledgers until nothing is pending or the deadline has
// passed, and returns the last verdict. The deadline is the latest due time
// of an open record plus convergeSlack, at least minConverge from now and
// from notBefore (the end of a fault), at most maxConverge.
func (c *cluster) converge(notBefore time.Time, extraBuyers ...string) verdict {
	start := time.Now()
	deadline := start.Add(minConverge)
	if nb := notBefore.Add(minConverge); nb.After(deadline) {
		deadline = nb
	}
	var dead []finding
	for _, d := range c.all() {
		if !d.running() {
			dead = append(dead, finding{kind: kindDaemon, msg: fmt.Sprintf("daemon %s is not running: %s %s", d.name, describeExit(d.err()), d.crashReason())})
		}
	}
	for {
		s := c.snapshot(false)
		s.extraBuyers = extraBuyers
		v := compare(s)
		if v.latestDue.Add(convergeSlack).After(deadline) {
			deadline = v.latestDue.Add(convergeSlack)
		}
		if deadline.After(start.Add(maxConverge)) {
			deadline = start.Add(maxConverge)
		}
		final := time.Now().After(deadline)
		if len(v.pending) == 0 || final {
			s = c.snapshot(true)
			s.extraBuyers, s.final = extraBuyers, final
			v = compare(s)
			if len(v.pending) == 0 || final {
				v.problems = append(dead, v.problems...)
				return v
			}
		}
		time.Sleep(convergePoll)
	}
}

// check fails t with every problem of v not yet reported by an earlier
// check of the cluster, and adds the run to the totals.
func (c *cluster) check(t testing.TB, v verdict) {
	t.Helper()
	c.mu.Lock()
	if c.reported == nil {
		c.reported = make(map[string]bool)
	}
	var fresh verdict
	for _, p := range v.problems {
		if !c.reported[p.key()] {
			c.reported[p.key()] = true
			fresh.problems = append(fresh.problems, p)
		}
	}
	faults := c.faults - c.faultsChecked
	c.faultsChecked = c.faults
	c.checks++
	c.mu.Unlock()
	for _, p := range fresh.problems {
		t.Error(p.msg)
	}
	div, wrong := fresh.count(kindDivergence), fresh.count(kindWrongPayment)
	totals.add(1, faults, div, wrong)
	if c.sum != nil {
		c.sum.add(1, faults, div, wrong)
	}
	t.Logf("run: faults injected %d, divergences %d, wrong payments %d, open holds %d", faults, div, wrong, fresh.count(kindOpenHold))
}
