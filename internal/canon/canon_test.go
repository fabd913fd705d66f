package canon_test

import (
	"bytes"
	"crypto/ed25519"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/internal/canon"
)

func seedKey(t *testing.T, b byte) (crypto.PrivKey, peer.ID) {
	t.Helper()
	key, err := crypto.UnmarshalEd25519PrivateKey(ed25519.NewKeyFromSeed(bytes.Repeat([]byte{b}, ed25519.SeedSize)))
	require.NoError(t, err)
	id, err := peer.IDFromPrivateKey(key)
	require.NoError(t, err)
	return key, id
}

type msg struct {
	Type  string `json:"type,omitempty"`
	JobID string `json:"job_id"`
	Z     int    `json:"z"`
}

func TestBodyCarriesTheTag(t *testing.T) {
	testCases := []struct {
		name string
		tag  string
		v    any
		want string // "" when refused
	}{
		{"tagged", canon.TagDelivery, msg{Type: canon.TagDelivery, JobID: "j", Z: 1}, `{"job_id":"j","type":"swarmwage/escrow/delivery/1","z":1}`},
		{"no type", canon.TagDelivery, msg{JobID: "j"}, ""},
		{"another kind's type", canon.TagSettle, msg{Type: canon.TagDelivery, JobID: "j"}, ""},
		{"another version's type", canon.TagLock, msg{Type: canon.TagLockV1, JobID: "j"}, ""},
		{"not an object", canon.TagQuote, []string{canon.TagQuote}, ""},
		{"type not a string", canon.TagQuote, map[string]any{"type": 1}, ""},
		{"nested type does not count", canon.TagQuote, map[string]any{"inner": map[string]string{"type": canon.TagQuote}}, ""},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := canon.Body(tc.tag, tc.v)
			if tc.want == "" {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, string(got))
			plain, err := canon.JSON(tc.v)
			require.NoError(t, err)
			require.Equal(t, plain, got, "a tagged body is the message's stable JSON")
		})
	}
}

func TestSignVerify(t *testing.T) {
	key, id := seedKey(t, 1)
	_, other := seedKey(t, 2)
	body, err := canon.Body(canon.TagSettle, msg{Type: canon.TagSettle, JobID: "j"})
	require.NoError(t, err)
	sig, err := canon.Sign(key, body)
	require.NoError(t, err)
	require.NoError(t, canon.Verify(id, body, sig))

	asDelivery, err := canon.Body(canon.TagDelivery, msg{Type: canon.TagDelivery, JobID: "j"})
	require.NoError(t, err)
	testCases := []struct {
		name   string
		signer peer.ID
		body   []byte
		sig    []byte
	}{
		{"another signer", other, body, sig},
		{"another kind of message", id, asDelivery, sig},
		{"body changed", id, append(bytes.Clone(body[:len(body)-1]), ' ', '}'), sig},
		{"signature cut", id, body, sig[:10]},
		{"no signature", id, body, nil},
		{"signer without an embedded key", peer.ID("not a peer"), body, sig},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			require.ErrorIs(t, canon.Verify(tc.signer, tc.body, tc.sig), canon.ErrBadSignature)
		})
	}
}

// The grace period of untagged listings and quotes ends at UntaggedUntil,
// to the second.
func TestAcceptUntaggedUntilTheCutoff(t *testing.T) {
	cutoff, err := time.Parse(time.RFC3339, canon.UntaggedUntil)
	require.NoError(t, err)
	require.NoError(t, canon.AcceptUntagged(canon.TagQuote, cutoff.Add(-time.Second)))
	require.NoError(t, canon.AcceptUntagged(canon.TagQuote, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)))
	require.ErrorIs(t, canon.AcceptUntagged(canon.TagQuote, cutoff), canon.ErrUntaggedExpired)
	err = canon.AcceptUntagged(canon.TagListing, cutoff.Add(time.Hour))
	require.ErrorIs(t, err, canon.ErrUntaggedExpired)
	require.Contains(t, err.Error(), canon.TagListing)
}

func TestSignedTagsAreDistinct(t *testing.T) {
	seen := map[string]bool{}
	for _, tag := range canon.SignedTags() {
		require.False(t, seen[tag], tag)
		seen[tag] = true
	}
	require.NotContains(t, seen, canon.TagReceipt, "a receipt is not signed itself")
}

// BenchmarkSigningBytes compares the tagged signing bytes with the plain
// stable JSON that listings and quotes were signed over before tags: the
// tag check must not cost another encoding.
func BenchmarkSigningBytes(b *testing.B) {
	type quote struct {
		Type       string `json:"type"`
		V          int    `json:"v"`
		QuoteID    string `json:"quote_id"`
		Capability string `json:"capability"`
		Price      string `json:"price"`
		Seller     string `json:"seller"`
		Buyer      string `json:"buyer"`
		CreatedAt  string `json:"created_at"`
		ExpiresAt  string `json:"expires_at"`
		WindowMS   int64  `json:"window_ms"`
	}
	q := quote{Type: canon.TagQuote, V: 1, QuoteID: "q-0123456789", Capability: "compute.statistics.mean", Price: "0.01",
		Seller: "12D3KooWJWoaqZhDaoEFshF7Rh1bpY9ohihFhzcW6d69Lr2NASuq", Buyer: "12D3KooWK99VoVxNE7XzyBwXEzW7xhK7Gpv85r9F3V3fyKSUKPH5",
		CreatedAt: "2026-11-29T12:00:00Z", ExpiresAt: "2026-11-29T12:05:00Z", WindowMS: 600_000}
	b.Run("JSON", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := canon.JSON(q); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Body", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := canon.Body(canon.TagQuote, q); err != nil {
				b.Fatal(err)
			}
		}
	})
}
