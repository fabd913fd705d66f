package sellerfile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/node"
)

func TestConfigOverSetsOnlyTheFilesKeys(t *testing.T) {
	base := node.DefaultConfig("lab")
	base.API = "127.0.0.1:5999"
	base.Market.MaxJobDuration = "2m"
	sf, _, err := Parse("s.toml", []byte("listen = [\"/ip4/127.0.0.1/tcp/4999\"]\n[market]\nverification_window = \"1m\"\n[[listing]]\ncapability = \"compute.statistics.mean\"\nprice = \"0.01\"\n"))
	require.NoError(t, err)
	got, err := sf.ConfigOver(base)
	require.NoError(t, err)
	require.Equal(t, "lab", got.Network, "left out: kept")
	require.Equal(t, "127.0.0.1:5999", got.API, "left out: kept")
	require.Equal(t, []string{"/ip4/127.0.0.1/tcp/4999"}, got.Listen)
	require.Equal(t, "1m", got.Market.VerificationWindow)
	require.Equal(t, "2m", got.Market.MaxJobDuration, "a section's other keys are kept")
	require.Equal(t, node.DefaultListen(), base.Listen, "base is not modified")

	changes, err := node.DiffConfig(base, got)
	require.NoError(t, err)
	var keys []string
	for _, c := range changes {
		keys = append(keys, c.Key)
	}
	require.Equal(t, []string{"listen", "market.verification_window"}, keys)
	require.Equal(t, `market.verification_window: (unset) -> "1m"`, changes[1].String())
}

func TestPlanApplyAddsUpdatesKeepsAndPrunes(t *testing.T) {
	ctx := t.Context()
	cfg := node.DefaultConfig("lab")
	cfg.Listen, cfg.API = []string{"/ip4/127.0.0.1/tcp/0"}, "127.0.0.1:0"
	repo, err := node.Init(filepath.Join(t.TempDir(), "r"), cfg)
	require.NoError(t, err)
	l, err := node.OpenLocal(repo)
	require.NoError(t, err)
	defer l.Close()
	for _, p := range []market.ListingParams{
		{Capability: "compute.statistics.mean", Price: 10_000, Handler: market.HandlerConfig{Kind: market.HandlerBuiltin}},
		{Capability: "compute.statistics.median", Price: 10_000, Handler: market.HandlerConfig{Kind: market.HandlerBuiltin}},
		{Capability: "compute.statistics.mode", Price: 10_000, Handler: market.HandlerConfig{Kind: market.HandlerBuiltin}},
	} {
		_, err := l.Store.Put(ctx, p)
		require.NoError(t, err)
	}
	file := "network = \"lab2\"\n" +
		"[[listing]]\ncapability = \"compute.statistics.mean\"\nprice = \"0.01\"\n" +
		"[[listing]]\ncapability = \"compute.statistics.median\"\nprice = \"0.02\"\n" +
		"[[listing]]\ncapability = \"compute.statistics.stddev\"\nprice = \"0.01\"\n"
	sf, params, err := Parse("s.toml", []byte(file))
	require.NoError(t, err)

	actions := func(p Plan) map[string]string {
		out := map[string]string{}
		for _, ch := range p.Listings {
			out[ch.Capability] = ch.Action
		}
		return out
	}
	kept, err := PlanApply(ctx, l.Store, sf, params, repo.Config, false)
	require.NoError(t, err)
	require.Equal(t, map[string]string{
		"compute.statistics.mean": ListingUnchanged, "compute.statistics.median": ListingUpdate,
		"compute.statistics.stddev": ListingAdd, "compute.statistics.mode": ListingKeep,
	}, actions(kept))

	pruned, err := PlanApply(ctx, l.Store, sf, params, repo.Config, true)
	require.NoError(t, err)
	require.Equal(t, ListingRemove, actions(pruned)["compute.statistics.mode"])
	_, err = pruned.Apply(ctx, l.Store, repo)
	require.NoError(t, err)
	offers, err := l.Store.List(ctx)
	require.NoError(t, err)
	var caps []string
	for _, o := range offers {
		caps = append(caps, o.Signed.Listing.Capability)
	}
	require.ElementsMatch(t, []string{"compute.statistics.mean", "compute.statistics.median", "compute.statistics.stddev"}, caps)

	reopened, err := node.Open(repo.Dir)
	require.NoError(t, err)
	require.Equal(t, "lab2", reopened.Config.Network, "written to config.toml")
	require.Equal(t, "127.0.0.1:0", reopened.Config.API, "keys the file leaves out are kept")
	entries, err := os.ReadDir(repo.Dir)
	require.NoError(t, err)
	for _, e := range entries {
		require.NotContains(t, e.Name(), ".tmp", "no temp file left behind")
	}

	again, err := PlanApply(ctx, l.Store, sf, params, reopened.Config, true)
	require.NoError(t, err)
	require.Empty(t, again.ConfigChanges, "applied: nothing left to change")
	require.Equal(t, ListingUnchanged, actions(again)["compute.statistics.median"])
}
