package skillcard

import (
	"encoding/hex"

	"golang.org/x/crypto/sha3"

	"github.com/swarmwage/swarmwage/internal/canon"
)

// StableJSON writes v in the project's one canonical form, the spec's
// stableJsonStringify (package internal/canon, canon.JSON): content hashes
// are keccak256 of it.
func StableJSON(v any) ([]byte, error) { return canon.JSON(v) }

// StableJSONBytes re-writes already encoded JSON in the form of StableJSON
// (canon.JSONBytes).
func StableJSONBytes(raw []byte) ([]byte, error) { return canon.JSONBytes(raw) }

// Keccak256Hex returns the legacy (Ethereum) Keccak-256 of b as "0x" and 64
// lowercase hex digits, as viem's keccak256(toHex(s)) returns it.
func Keccak256Hex(b []byte) string {
	h := sha3.NewLegacyKeccak256()
	h.Write(b)
	return "0x" + hex.EncodeToString(h.Sum(nil))
}
