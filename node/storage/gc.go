package storage

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// Value-log garbage collection. Badger never reclaims value-log space by
// itself: every rewrite of a large value (a job record with its output)
// leaves the old copy behind until RunValueLogGC rewrites the file it sits
// in. The node runs it in rounds, like go-ds-badger's periodicGC, but
// skips a round while the disk is below the watermark (a rewrite needs
// room for the live values it moves) and backs off on errors.
const (
	// gcInterval is the pause between rounds.
	gcInterval = 10 * time.Minute
	// gcDiscardRatio: a value-log file is rewritten when at least this
	// share of it is garbage (Badger's recommended 0.5).
	gcDiscardRatio = 0.5
	// gcPause is the pause between two rewrites of one round, so that GC
	// does not hog the disk.
	gcPause = time.Second
	// gcMaxRewrites bounds the files one round rewrites.
	gcMaxRewrites = 32
	// gcMaxBackoff bounds the pause after failing rounds.
	gcMaxBackoff = 2 * time.Hour
)

// ValueLogGC runs value-log GC rounds on db until Stop.
type ValueLogGC struct {
	db       *badger.DB
	interval time.Duration
	pause    time.Duration
	// skip reports whether to skip this round (the disk is low).
	skip func() bool
	log  *slog.Logger
	// rewritten counts the files rewritten so far.
	rewritten atomic.Int64

	cancel context.CancelFunc
	done   chan struct{}
}

func NewValueLogGC(db *badger.DB, skip func() bool, log *slog.Logger) *ValueLogGC {
	return &ValueLogGC{db: db, interval: gcInterval, pause: gcPause, skip: skip, log: log.With("subsystem", "swarmwage/storage")}
}

// Start launches the loop; Stop ends it and waits.
func (g *ValueLogGC) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	g.cancel, g.done = cancel, make(chan struct{})
	go func() {
		defer close(g.done)
		g.loop(ctx)
	}()
}

func (g *ValueLogGC) Stop() {
	if g.cancel == nil {
		return
	}
	g.cancel()
	<-g.done
	g.cancel = nil
}

func (g *ValueLogGC) loop(ctx context.Context) {
	wait := g.interval
	t := time.NewTimer(wait)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		wait = g.round(ctx, wait)
		t.Reset(wait)
	}
}

// round rewrites value-log files until Badger finds none worth it, and
// returns the pause before the next round: the interval, or a doubled one
// after an error.
func (g *ValueLogGC) round(ctx context.Context, last time.Duration) time.Duration {
	for i := 0; i < gcMaxRewrites; i++ {
		if g.skip() {
			g.log.Debug("value-log GC skipped: disk below the watermark")
			return g.interval
		}
		err := g.db.RunValueLogGC(gcDiscardRatio)
		switch {
		case err == nil:
			// One file rewritten; the next may be worth it too.
			g.rewritten.Add(1)
			if !sleepCtx(ctx, g.pause) {
				return g.interval
			}
		case errors.Is(err, badger.ErrNoRewrite), errors.Is(err, badger.ErrRejected):
			// Nothing left to collect, or a GC (or Close) is under way.
			return g.interval
		default:
			next := min(2*max(last, g.interval), gcMaxBackoff)
			g.log.Warn("value-log GC failed; backing off", "err", err, "next", next)
			return next
		}
	}
	return g.interval
}

// sleepCtx waits d or until ctx is done; it reports whether d passed.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
