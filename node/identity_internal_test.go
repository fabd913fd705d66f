package node

import (
	"testing"

	"github.com/libp2p/go-libp2p/core/crypto"
)

// FuzzParseKeyNoPanic: identity.key is a file anything may have written
// over; a bad one is an error (an IdentityError), never a panic.
func FuzzParseKeyNoPanic(f *testing.F) {
	key, err := newIdentityKey()
	if err != nil {
		f.Fatal(err)
	}
	raw, err := crypto.MarshalPrivateKey(key)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(raw)
	f.Add([]byte{})
	f.Add([]byte("not a key"))
	f.Add(raw[:len(raw)/2])
	f.Fuzz(func(t *testing.T, b []byte) {
		k, id, err := parseKey(b)
		if err == nil && (k == nil || id == "") {
			t.Fatal("a parsed key without an identity")
		}
	})
}
