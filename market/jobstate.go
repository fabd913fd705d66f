package market

import (
	"context"

	"github.com/swarmwage/swarmwage/escrow"
)

// Job states: the one word for where a job stands, the same in 'jobs
// list', 'jobs show', the dashboard, MCP and every --json. It is derived
// from the job's escrow, which holds the money and so has the last word;
// JobRecord.Status, the job's own step (what the seller and the
// verification did), explains it.
const (
	// JobRunning: locked in escrow, no output delivered yet.
	JobRunning = "running"
	// JobDelivered: the output was delivered and the hold waits for the
	// buyer's decision or the verification window.
	JobDelivered = "delivered"
	// JobReleased: paid to the seller.
	JobReleased = "released"
	// JobRefunded: the hold went back to the buyer: the job failed, its
	// output failed verification, it timed out or was cancelled.
	JobRefunded = "refunded"
	// JobDisputed: the seller delivered and the buyer refunded (the
	// seller's side of a refund after delivery).
	JobDisputed = "disputed"
	// JobFailed: nothing was paid and nothing is held: the job ended
	// before any money moved (the seller's side of a refund before
	// delivery).
	JobFailed = "failed"
)

// JobState is the state of a job whose escrow record is in state esc (""
// when the node has none, e.g. a record written before the escrow held
// one): the escrow's state, with locked read as running; without an
// escrow, the job's status mapped onto the same words.
func JobState(status string, esc escrow.State) string {
	switch esc {
	case escrow.StateLocked:
		return JobRunning
	case escrow.StateDelivered:
		return JobDelivered
	case escrow.StateReleased:
		return JobReleased
	case escrow.StateRefunded:
		return JobRefunded
	case escrow.StateDisputed:
		return JobDisputed
	case escrow.StateFailed:
		return JobFailed
	}
	switch status {
	case StatusRunning:
		return JobRunning
	case StatusDelivered:
		return JobDelivered
	case StatusVerified:
		return JobReleased
	case StatusVerificationFailed, StatusTimedOut:
		return JobRefunded
	}
	return JobFailed
}

// WithStates fills in the State of each job from esc (nil: from the jobs'
// statuses alone).
func WithStates(ctx context.Context, esc *escrow.Escrow, jobs []JobRecord) {
	for i := range jobs {
		jobs[i].State = jobStateOf(ctx, esc, jobs[i])
	}
}

func jobStateOf(ctx context.Context, esc *escrow.Escrow, j JobRecord) string {
	var st escrow.State
	if esc != nil {
		if rec, err := esc.GetRole(ctx, j.JobID, escrow.Role(j.Role)); err == nil {
			st = rec.State
		}
	}
	return JobState(j.Status, st)
}
