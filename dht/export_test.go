package dht

// ProvideRoundsForTest counts the provide loop's rounds (a retry, a kick or
// a reprovide each).
func (r *Routing) ProvideRoundsForTest() int64 { return r.rounds.Load() }

// RefreshesForTest counts the prefetch cache's timed refreshes.
func (r *Routing) RefreshesForTest() int64 { return r.refreshes.Load() }
