package market

import (
	"context"
	"errors"
	"fmt"

	"github.com/swarmwage/swarmwage/escrow"
)

// Reconciliation: what a node does at start-up so that every job it was in
// when it stopped ends as the escrow's precedence rule says (see the escrow
// package doc), and no job record is left "running".
//
//   - Buyer, delivered but undecided (the node stopped between recording a
//     delivery and deciding): verify the stored output again, then release,
//     refund or accept. The escrow's timers never release such a job; they
//     call Reverify too (escrow.WithUndecided).
//   - Buyer, locked (the hire died with the node, also after the delivery
//     arrived: a live hire records the delivery in its decision's commit):
//     ask the seller for the result until the deadline, in the background;
//     a delivery that arrives is verified and decided as in a live hire,
//     else the deadline refunds.
//   - Seller, locked (the handler died with the node): the job failed; the
//     buyer learns it from GET /jobs/{id} and refunds.
//   - Job records still "running" get the status their escrow says.

// reconcile runs the start-up reconciliation. Errors on one job are logged
// and the others go on.
func (m *Market) reconcile(ctx context.Context) {
	open, err := m.escrow.List(ctx, escrow.Filter{State: escrow.StateLocked})
	if err != nil {
		m.log.Warn("reconcile: list open jobs", "err", err)
	}
	for _, r := range open {
		switch r.Role {
		case escrow.RoleSeller:
			if err := m.escrow.FailJob(ctx, r.JobID, "the seller restarted while the job ran"); err != nil {
				m.log.Warn("reconcile: fail interrupted job", "job", r.JobID, "err", err)
			}
		case escrow.RoleBuyer:
			m.wg.Add(1)
			go func() {
				defer m.wg.Done()
				m.resume(m.ctx, r)
			}()
		}
	}
	delivered, err := m.escrow.List(ctx, escrow.Filter{Role: escrow.RoleBuyer, State: escrow.StateDelivered})
	if err != nil {
		m.log.Warn("reconcile: list delivered jobs", "err", err)
	}
	for _, r := range delivered {
		if !r.Accepted {
			m.Reverify(ctx, r)
		}
	}
	m.mendJobRecords(ctx)
}

// Reverify verifies again the stored output of a delivery this node bought
// and never decided on, and settles it. The escrow's timers call it
// (escrow.WithUndecided) for such jobs at the end of their window.
func (b *Buyer) Reverify(ctx context.Context, r escrow.Record) {
	if err := b.reverify(ctx, r); err != nil {
		b.log.Warn("verify undecided delivery again", "job", r.JobID, "err", err)
	}
}

func (b *Buyer) reverify(ctx context.Context, r escrow.Record) error {
	spec, err := b.specOf(ctx, r)
	if err != nil {
		return err
	}
	out, err := b.escrow.Payload(ctx, escrow.RoleBuyer, r.JobID, escrow.PayloadOutput)
	if err != nil {
		return err
	}
	res := HireResult{JobID: r.JobID, Capability: r.Capability, Seller: r.Seller, Price: Credits(r.Amount), State: r.State, Output: out}
	res, err = b.decide(ctx, res, check(ctx, spec, out), out, nil)
	b.log.Info("verified an undecided delivery again", "job", r.JobID, "state", res.State, "outcome", err)
	if errors.Is(err, ErrVerificationFailed) {
		return nil
	}
	return err
}

// specOf rebuilds what verifying a bought job needs from the escrow's
// stored input and the job record.
func (b *Buyer) specOf(ctx context.Context, r escrow.Record) (verifySpec, error) {
	in, err := b.escrow.Payload(ctx, escrow.RoleBuyer, r.JobID, escrow.PayloadInput)
	if err != nil {
		return verifySpec{}, err
	}
	standard, err := checkHireInput(HireRequest{Capability: r.Capability, Input: in})
	if err != nil {
		return verifySpec{}, fmt.Errorf("stored input: %w", err)
	}
	spec := verifySpec{capability: r.Capability, standard: standard, input: in}
	if !standard {
		rec, err := b.jobs.get(RoleBuyer, r.JobID)
		if err != nil {
			return verifySpec{}, fmt.Errorf("the seller's output schema: %w", err)
		}
		spec.outputSchema = rec.OutputSchema
	}
	return spec, nil
}

// resume follows a bought job whose hire stopped with the node: it asks
// the seller for the result until the deadline and settles what comes.
func (b *Buyer) resume(ctx context.Context, r escrow.Record) {
	if r.Lock == nil || !b.cfg.now().Before(r.Deadline) {
		return // the deadline timer refunds it
	}
	spec, err := b.specOf(ctx, r)
	if err != nil {
		b.log.Warn("resume job", "job", r.JobID, "err", err)
		return
	}
	ctx, cancel := context.WithDeadline(ctx, r.Deadline)
	defer cancel()
	out, d, err := b.pollJob(ctx, b.addrsOf(r.Seller), r.Lock, false)
	res := HireResult{JobID: r.JobID, Capability: r.Capability, Seller: r.Seller, Price: Credits(r.Amount), State: r.State}
	if err != nil {
		if b.ctx.Err() == nil {
			_, err = b.refund(res, err.Error(), nil, ErrJobFailed)
			b.log.Info("resumed job ended", "job", r.JobID, "outcome", err)
		}
		return
	}
	res, err = b.verifyAndSettle(ctx, res, spec, out, d, nil, r.Deadline)
	b.log.Info("resumed job settled", "job", r.JobID, "state", res.State, "outcome", err)
}

// mendJobRecords gives every job record still "running" the status its
// escrow record says, for jobs whose escrow moved on while the node went
// down before the record did.
func (m *Market) mendJobRecords(ctx context.Context) {
	refs, err := runningJobs(m.jobs.db)
	if err != nil {
		m.log.Warn("reconcile: list running job records", "err", err)
		return
	}
	for _, jr := range refs {
		er, err := m.escrow.GetRole(ctx, jr.JobID, escrow.Role(jr.Role))
		if err != nil {
			continue
		}
		if statusOf(er) != StatusRunning {
			m.followEscrow(er)
		}
	}
}

// statusOf is the job status an escrow record implies.
func statusOf(er escrow.Record) string {
	switch er.State {
	case escrow.StateLocked:
		return StatusRunning
	case escrow.StateDelivered:
		return StatusDelivered
	case escrow.StateReleased:
		if er.Role == escrow.RoleBuyer {
			return StatusVerified
		}
		return StatusDelivered
	case escrow.StateDisputed:
		return StatusDelivered
	}
	if er.Role == escrow.RoleBuyer && len(er.FailedChecks) > 0 {
		return StatusVerificationFailed
	}
	return StatusFailed
}
