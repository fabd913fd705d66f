package skillcard_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/skillcard"
)

func TestKeccak256Hex(t *testing.T) {
	// Well-known Keccak-256 vectors (Ethereum), not SHA3-256.
	require.Equal(t, "0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470", skillcard.Keccak256Hex(nil))
	require.Equal(t, "0x1c8aff950685c2ed4bc3174f3472287b56d9517b9c948127319a09a7a36deac8", skillcard.Keccak256Hex([]byte("hello")))
}
