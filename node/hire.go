package node

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/dht"
	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/verify"
)

// A hire's result as the control API reports it, and test credits.

// Hire runs a hire through the node's one entry (RunHire) and describes
// its result, whatever the outcome.
func (n *Node) Hire(ctx context.Context, req market.HireRequest) controlapi.HireInfo {
	return n.RunHire(ctx, req, nil)
}

// hireInfo describes a hire's result, whatever the outcome.
func (n *Node) hireInfo(req market.HireRequest, res market.HireResult, err error) controlapi.HireInfo {
	capID := req.Capability
	if res.Capability != "" {
		capID = res.Capability // a tombstone may have routed it elsewhere
	}
	info := controlapi.HireInfo{
		JobID:        res.JobID,
		Capability:   capID,
		Requested:    res.Requested,
		Price:        res.Price.String(),
		Output:       res.Output,
		Verification: controlapi.VerificationDoc{Passed: res.Report.Passed, Checks: res.Report.Checks},
		Escrow:       controlapi.EscrowDoc{State: string(res.State), Reason: res.Reason},
		Outcome:      outcomeOf(res, err),
		DurationMS:   res.DurationMS,
		Connection:   res.Connection,
		Rail:         n.Escrow.RailName(),
	}
	if res.Seller != "" {
		info.Seller = res.Seller.String()
	}
	if r := res.Routing; r != nil {
		info.QoS, info.Policy, info.Candidates = string(r.QoS), r.Policy, r.Candidates
	}
	if info.Verification.Checks == nil {
		info.Verification.Checks = []verify.Check{}
	}
	if info.Output == nil {
		info.Output = json.RawMessage("null")
	}
	if res.JobID == "" {
		info.Price = ""
	}
	if err != nil {
		info.Error = err.Error()
	}
	var ph *market.PolicyHoldError
	if errors.As(err, &ph) {
		info.PolicyHold = ph.Policy
	}
	var ce *escrow.SpendCapError
	if errors.As(err, &ce) {
		info.SpendCap = &controlapi.SpendCapRefusal{
			Name: ce.Cap, Scope: ce.Scope, Since: ce.Since, Limit: escrow.FormatAmount(ce.Limit),
			Used: escrow.FormatAmount(ce.Used), Left: escrow.FormatAmount(ce.Left), Amount: escrow.FormatAmount(ce.Amount),
		}
	}
	return info
}

func outcomeOf(res market.HireResult, err error) string {
	switch {
	case err == nil && res.State == escrow.StateReleased:
		return controlapi.OutcomeReleased
	case err == nil:
		return controlapi.OutcomeDelivered
	case errors.Is(err, market.ErrInvalidInput):
		return controlapi.OutcomeInvalidInput
	case errors.Is(err, market.ErrNeedsConfirm), errors.Is(err, market.ErrPolicyHold):
		return controlapi.OutcomeNeedsConfirm
	case errors.Is(err, escrow.ErrSpendCap):
		return controlapi.OutcomeSpendCap
	case errors.Is(err, market.ErrNoSeller):
		return controlapi.OutcomeNoSeller
	case errors.Is(err, escrow.ErrInsufficientFunds), errors.Is(err, escrow.ErrNotCovered):
		return controlapi.OutcomeInsufficientFunds
	case errors.Is(err, market.ErrVerificationFailed):
		return controlapi.OutcomeVerificationFailed
	case errors.Is(err, market.ErrTimedOut):
		return controlapi.OutcomeTimedOut
	case errors.Is(err, market.ErrCancelled):
		return controlapi.OutcomeCancelled
	case errors.Is(err, market.ErrJobFailed):
		return controlapi.OutcomeJobFailed
	default:
		return controlapi.OutcomeError
	}
}

// Deposit adds test credits to the wallet of a node on network.
func Deposit(ctx context.Context, esc *escrow.Escrow, network string, req controlapi.DepositRequest) (escrow.Balance, error) {
	amount, err := escrow.ParseAmount(req.Amount)
	if err != nil || amount == 0 {
		return escrow.Balance{}, fmt.Errorf("%w: amount %q: want a positive decimal such as 10 or 0.5", controlapi.ErrBadRequest, req.Amount)
	}
	if network == dht.Amino && !req.TestCredits {
		return escrow.Balance{}, fmt.Errorf("%w: %w", controlapi.ErrBadRequest, controlapi.ErrTestCreditsOnAmino)
	}
	if err := esc.Deposit(ctx, amount, req.Memo); err != nil {
		return escrow.Balance{}, err
	}
	return esc.Balance(ctx)
}
