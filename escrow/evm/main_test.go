package evm

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves a goroutine behind: simulated
// chains, anvil processes and their watchers must all stop.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		// go-ethereum starts these once per process, for its lifetime.
		goleak.IgnoreAnyFunction("github.com/ethereum/go-ethereum/metrics.(*meterArbiter).tick"),
		goleak.IgnoreAnyFunction("github.com/syndtr/goleveldb/leveldb.(*DB).mpoolDrain"),
		goleak.IgnoreAnyFunction("github.com/ethereum/go-ethereum/core.(*txSenderCacher).cache"),
	)
}

// skipLongInShort skips one of the longest anvil cases in -short runs
// (the CI's race step, where anvil's waits are many times longer); the
// plain run ('go test ./...', no -short) always has it, and the race step
// still covers the code it drives through the shorter cases.
func skipLongInShort(t *testing.T, what string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("-short: %s; 'go test ./escrow/evm' runs it", what)
	}
}
