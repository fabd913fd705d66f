package node

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestGatewayConfigValidate(t *testing.T) {
	testCases := []struct {
		name    string
		cfg     GatewayConfig
		wantErr string
	}{
		{"off", GatewayConfig{}, ""},
		{"on with caps", GatewayConfig{Listen: "127.0.0.1:8402", MaxPerHire: "0.05", MaxPerDay: "5", Fee: "0.001"}, ""},
		{"no port", GatewayConfig{Listen: "127.0.0.1"}, "gateway.listen"},
		{"bad cap", GatewayConfig{Listen: "127.0.0.1:8402", MaxPerHire: "a lot"}, "gateway.max_per_hire"},
		{"bad day cap", GatewayConfig{MaxPerDay: "-1"}, "gateway.max_per_day"},
		{"bad fee", GatewayConfig{Fee: "x"}, "gateway.fee"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig("gwtest")
			cfg.Gateway = tc.cfg
			err := cfg.Validate()
			if tc.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.wantErr)
		})
	}
	perHire, perDay, fee := GatewayConfig{MaxPerHire: "0.05", Fee: "0.001"}.Amounts()
	require.Equal(t, []int64{50_000, 0, 1_000}, []int64{perHire, perDay, fee})
}
