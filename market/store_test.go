package market

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// The store keeps the offers it read (Get), and every write of a
// listing (Put, Delete, a re-signing) is what the next Get returns.
func TestStoreGetSeesEveryWrite(t *testing.T) {
	p := setupPeer(t, nil)
	s, ctx := p.market.store, context.Background()
	const capID = "compute.statistics.mean"
	put := func(price int64) {
		_, err := s.Put(ctx, ListingParams{Capability: capID, Price: price, Handler: HandlerConfig{Kind: HandlerBuiltin}})
		require.NoError(t, err)
	}
	price := func() int64 {
		o, err := s.Get(ctx, capID)
		require.NoError(t, err)
		return int64(o.Signed.Listing.Price)
	}
	put(10_000)
	require.Equal(t, int64(10_000), price())
	require.Equal(t, int64(10_000), price(), "read from the cache")
	put(20_000)
	require.Equal(t, int64(20_000), price(), "a Put is seen")
	require.NoError(t, s.Delete(ctx, capID))
	_, err := s.Get(ctx, capID)
	require.ErrorIs(t, err, ErrNotListed, "a Delete is seen")
	put(30_000)
	require.Equal(t, int64(30_000), price())
}
