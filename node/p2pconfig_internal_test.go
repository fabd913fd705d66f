package node

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/node/p2p"
)

const (
	relayA = "/ip4/198.20.7.10/tcp/4747/p2p/12D3KooWChckUcyZuyC1rWPPs5BP59KiZTnTLKZv2itsqfPwvAEJ"
	relayB = "/ip4/198.20.7.11/udp/4747/quic-v1/p2p/12D3KooWLu5PxiaMTKAWj69QNmyY4g57WY5ZSKREi1fnUqf8DrXq"
)

func TestP2PConfigValidate(t *testing.T) {
	testCases := []struct {
		name    string
		p2p     P2PConfig
		wantErr string
	}{
		{name: "empty"},
		{name: "auto", p2p: P2PConfig{Reachability: "auto"}},
		{name: "public relay", p2p: P2PConfig{Reachability: "public", RelayService: true}},
		{name: "private with static relays", p2p: P2PConfig{Reachability: "private", Relays: []string{relayA, relayB}}},
		{name: "unknown reachability", p2p: P2PConfig{Reachability: "maybe"}, wantErr: `p2p.reachability = "maybe"`},
		{name: "private relay", p2p: P2PConfig{Reachability: "private", RelayService: true}, wantErr: "p2p.relay_service"},
		{name: "relay without peer ID", p2p: P2PConfig{Relays: []string{"/ip4/198.20.7.10/tcp/4747"}}, wantErr: "p2p.relays"},
		{name: "relay not a multiaddr", p2p: P2PConfig{Relays: []string{"relay.example.com:4747"}}, wantErr: "p2p.relays"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig("lab")
			cfg.P2P = tc.p2p
			err := cfg.Validate()
			if tc.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.wantErr)
		})
	}
}

func TestEffectiveReachability(t *testing.T) {
	testCases := []struct {
		name    string
		network string
		p2p     P2PConfig
		want    string
	}{
		{"default", "lab", P2PConfig{}, p2p.ReachabilityAuto},
		{"forced private", "lab", P2PConfig{Reachability: "private"}, p2p.ReachabilityPrivate},
		// A private network's relay is dialled by its members, even on
		// private addresses where AutoNAT cannot tell.
		{"relay of a private network", "lab", P2PConfig{RelayService: true}, p2p.ReachabilityPublic},
		// On amino the relay waits for AutoNAT to find it public.
		{"relay on amino", "amino", P2PConfig{RelayService: true}, p2p.ReachabilityAuto},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, tc.p2p.reachability(tc.network))
		})
	}
}
