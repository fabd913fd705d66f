package dht

import (
	"context"
	"fmt"
	"sort"
	"time"
)

// Announce makes this node a provider of capID and of every prefix of it. It
// tries at once and, if the DHT is not ready (no peers yet), again every few
// seconds; from then on the key is reprovided every reprovide interval until
// Withdraw.
func (r *Routing) Announce(ctx context.Context, capID string) error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return ErrClosed
	}
	if _, ok := r.announced[capID]; !ok {
		r.announced[capID] = false
	}
	r.mu.Unlock()
	r.trigger()
	return nil
}

// Withdraw stops providing capID. Provider records already stored by other
// peers expire with their validity; buyers meanwhile drop this seller because
// its listing for capID is gone.
func (r *Routing) Withdraw(capID string) {
	r.mu.Lock()
	delete(r.announced, capID)
	delete(r.provided, capID)
	r.mu.Unlock()
}

// LastProvided is when capID's provider records were last stored in the
// DHT; zero while they never were.
func (r *Routing) LastProvided(capID string) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.provided[capID]
}

// Announced returns the capabilities this node announces, sorted.
func (r *Routing) Announced() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.announced))
	for id := range r.announced {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// trigger asks the provide loop to run now; repeated calls coalesce.
func (r *Routing) trigger() {
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

func (r *Routing) provideLoop() {
	defer r.wg.Done()
	lastAll := time.Time{}
	retry := r.cfg.clock.Timer(retryInterval)
	defer retry.Stop()
	for {
		select {
		case <-r.ctx.Done():
			return
		case <-r.kick:
		case <-retry.C:
		}
		now := r.cfg.clock.Now()
		all := now.Sub(lastAll) >= r.cfg.reprovideInterval
		pending := r.provideRound(all)
		if all && pending == 0 {
			lastAll = now
		}
		r.rounds.Add(1)
		retry.Reset(retryInterval)
	}
}

// provideRound provides every announced key that still needs it (all of them
// when all is set) and returns how many are still pending.
func (r *Routing) provideRound(all bool) int {
	r.mu.Lock()
	var todo []string
	for id, done := range r.announced {
		if all || !done {
			todo = append(todo, id)
		}
	}
	r.mu.Unlock()
	pending := 0
	for _, id := range todo {
		if r.ctx.Err() != nil {
			return pending
		}
		if err := r.provide(r.ctx, id); err != nil {
			pending++
			r.log.Debug("provide failed; will retry", "capability", id, "err", err)
			continue
		}
		r.provides.Add(1)
		r.mu.Lock()
		if _, ok := r.announced[id]; ok {
			r.announced[id] = true
			r.provided[id] = r.cfg.clock.Now()
		}
		r.mu.Unlock()
	}
	return pending
}

// provide provides the keys of capID and its prefixes.
func (r *Routing) provide(ctx context.Context, capID string) error {
	if r.dht.RoutingTable().Size() == 0 {
		return fmt.Errorf("provide %s: no DHT peers yet", capID)
	}
	for _, p := range Prefixes(capID) {
		key, err := Key(r.network, p)
		if err != nil {
			return err
		}
		pctx, cancel := context.WithTimeout(ctx, time.Minute)
		err = r.dht.Provide(pctx, key, true)
		cancel()
		if err != nil {
			return fmt.Errorf("provide %s (key of %s): %w", p, capID, err)
		}
	}
	return nil
}

// Provides counts the capabilities provided successfully since New (each
// with the keys of its prefixes), first announcements and reprovides.
func (r *Routing) Provides() int64 { return r.provides.Load() }

// Pending counts announced capabilities not yet provided successfully since
// they were announced (a node whose routing table is empty has all pending).
func (r *Routing) Pending() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, done := range r.announced {
		if !done {
			n++
		}
	}
	return n
}
