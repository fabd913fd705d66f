package p2p

import (
	"testing"

	ma "github.com/multiformats/go-multiaddr"
	"github.com/stretchr/testify/require"
)

// TestDialableFirst: find on a remote buyer listed the seller's own
// loopback addresses first.
func TestDialableFirst(t *testing.T) {
	seller := []string{"/ip4/127.0.0.1/tcp/4747/p2p/12D3KooWEyHPHw5ACTZBayzh9yE1a4tzqGPpEFMdnaLE8oZpbHUa", "/ip6/::1/tcp/4747/p2p/12D3KooWEyHPHw5ACTZBayzh9yE1a4tzqGPpEFMdnaLE8oZpbHUa", "/ip4/192.0.2.7/tcp/4747/p2p/12D3KooWEyHPHw5ACTZBayzh9yE1a4tzqGPpEFMdnaLE8oZpbHUa"}
	testCases := []struct {
		name string
		own  []string
		want []string
	}{
		{"remote buyer", []string{"/ip4/198.51.100.2/tcp/4747", "/ip4/127.0.0.1/tcp/4747"},
			[]string{"/ip4/192.0.2.7/tcp/4747/p2p/12D3KooWEyHPHw5ACTZBayzh9yE1a4tzqGPpEFMdnaLE8oZpbHUa", "/ip4/127.0.0.1/tcp/4747/p2p/12D3KooWEyHPHw5ACTZBayzh9yE1a4tzqGPpEFMdnaLE8oZpbHUa", "/ip6/::1/tcp/4747/p2p/12D3KooWEyHPHw5ACTZBayzh9yE1a4tzqGPpEFMdnaLE8oZpbHUa"}},
		{"buyer on loopback only", []string{"/ip4/127.0.0.1/tcp/4747"}, seller},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			var own []ma.Multiaddr
			for _, a := range tc.own {
				own = append(own, ma.StringCast(a))
			}
			require.Equal(t, tc.want, DialableFirst(seller, own))
		})
	}
}
