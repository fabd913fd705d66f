package node_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/node"
	"github.com/swarmwage/swarmwage/node/nodetest"
)

// Regression: the CLI told a bad value given by flag (daemon --network
// 'Bad!') from a node failure by looking for "config " in the message;
// every bad config is now a *node.ConfigError, whoever finds it.
func TestEveryBadConfigIsAConfigError(t *testing.T) {
	repo := nodetest.NewRepo(t, "cfgtest")
	testCases := []struct {
		name    string
		err     func() error
		message string
	}{
		{"Validate", func() error {
			cfg := node.DefaultConfig("cfgtest")
			cfg.Listen = nil
			return cfg.Validate()
		}, "config listen: at least one address is needed"},
		{"a flag over the file", func() error {
			n, err := node.New(t.Context(), repo, node.Options{Network: "Bad!"})
			if err == nil {
				n.Close()
			}
			return err
		}, "config network: "},
		{"config.toml", func() error {
			dir := nodetest.NewRepo(t, "cfgtest").Dir
			require.NoError(t, os.WriteFile(filepath.Join(dir, "config.toml"), []byte("network = \"lab\"\nlisten = []\n"), 0o600))
			_, err := node.Open(dir)
			return err
		}, "config.toml: config listen: at least one address is needed"},
		{"init", func() error {
			cfg := node.DefaultConfig("cfgtest")
			cfg.API = "0.0.0.0:5001"
			_, err := node.Init(t.TempDir(), cfg)
			return err
		}, "config api: "},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.err()
			var ce *node.ConfigError
			require.ErrorAs(t, err, &ce)
			require.Contains(t, err.Error(), tc.message)
		})
	}
}

// [market] max_price is the most one hire pays unless it names its own:
// a bad one is refused at validation with a message naming the key.
func TestConfigRejectsABadMarketMaxPrice(t *testing.T) {
	testCases := []struct {
		name, value string
		ok          bool
	}{
		{"default", "", true},
		{"one", "1", true},
		{"fraction", "0.25", true},
		{"zero", "0", false},
		{"negative", "-1", false},
		{"word", "lots", false},
		{"too precise", "0.0000001", false},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := node.DefaultConfig("cfgtest")
			cfg.Market.MaxPrice = tc.value
			err := cfg.Validate()
			if tc.ok {
				require.NoError(t, err)
				return
			}
			var ce *node.ConfigError
			require.ErrorAs(t, err, &ce)
			require.ErrorContains(t, err, "config market.max_price = "+`"`+tc.value+`"`)
			require.ErrorContains(t, err, "positive amount")
		})
	}
}

// [settlement] rpc_timeout (issue 29: a frozen RPC held a hire a minute)
// is a positive duration, and a key of the evm rail only.
func TestConfigSettlementRPCTimeout(t *testing.T) {
	evmCfg := func(timeout string) node.Config {
		cfg := node.DefaultConfig("cfgtest")
		cfg.Settlement = node.SettlementConfig{Rail: node.RailEVM, RPC: "http://127.0.0.1:8545",
			Escrow: "0x1000000000000000000000000000000000000001", Token: "0x2000000000000000000000000000000000000002", RPCTimeout: timeout}
		return cfg
	}
	require.NoError(t, evmCfg("").Validate())
	require.NoError(t, evmCfg("2s").Validate())
	for _, bad := range []string{"soon", "0s", "-1s"} {
		err := evmCfg(bad).Validate()
		require.ErrorContains(t, err, "config settlement.rpc_timeout", bad)
	}
	cfg := node.DefaultConfig("cfgtest")
	cfg.Settlement = node.SettlementConfig{RPCTimeout: "2s"}
	require.ErrorContains(t, cfg.Validate(), `belong to rail = "evm"`)
}
