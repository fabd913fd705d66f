package evm

import (
	"context"
	"time"
)

// AcceptHorizon is the accept horizon of this node as a seller on the
// escrow (Rail.AcceptHorizon: half its notice): a lock whose not-before
// lies further ahead is refused. It reaches the chain if it has not yet;
// the error wraps escrow.ErrRailUnavailable while it cannot.
func (s *Settler) AcceptHorizon(ctx context.Context) (time.Duration, error) {
	r, err := s.Chain(ctx)
	if err != nil {
		return 0, err
	}
	return r.AcceptHorizon(), nil
}
