package dht_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/dht"
)

// TestKeyGoldenVector pins the key derivation; the vectors were computed
// outside Go (Python: sha256, multihash 0x12 0x20, CID 0x01 0x55, base32). Changing it changes every
// capability's DHT key on every network: a breaking protocol change, and
// old and new nodes stop finding each other.
func TestKeyGoldenVector(t *testing.T) {
	testCases := []struct {
		network, capID, want string
	}{
		{"amino", "text.summarize.short", "bafkreiddn43lulz6gnvigv4wjnfxnggay6msfurlbrfx6ca3xqqgwjow4i"},
		{"local", "text.summarize.short", "bafkreiettdiferasnfsdixaijxyr5im4krbz4iq64xq7uzchu3rkgseisq"},
		{"amino", "text", "bafkreie4zfomgk2vngdqu7ogi4uow6lpkhq7ossfztx6kmnm577avu4ehy"},
	}
	for _, tc := range testCases {
		key, err := dht.Key(tc.network, tc.capID)
		require.NoError(t, err)
		require.Equal(t, tc.want, key.String(), "%s on %s", tc.capID, tc.network)
	}
	a, _ := dht.Key("a", "x.y")
	b, _ := dht.Key("b", "x.y")
	require.NotEqual(t, a, b, "networks must not share keys")
}

func TestPrefixes(t *testing.T) {
	require.Equal(t, []string{"text", "text.translate", "text.translate.en"}, dht.Prefixes("text.translate.en"))
	require.Equal(t, []string{"custom", "custom.acme", "custom.acme.ocr"}, dht.Prefixes("custom.acme.ocr"))
}

func TestCheckNetwork(t *testing.T) {
	for _, ok := range []string{"amino", "local", "testnet-2"} {
		require.NoError(t, dht.CheckNetwork(ok), ok)
	}
	for _, bad := range []string{"", "Local", "a_b", "a/b", "x234567890123456789012345678901234"} {
		require.ErrorIs(t, dht.CheckNetwork(bad), dht.ErrNoNetwork, bad)
	}
	require.Equal(t, "/ipfs", string(dht.ProtocolPrefix("amino")))
	require.Equal(t, "/swarmwage/local", string(dht.ProtocolPrefix("local")))
}
