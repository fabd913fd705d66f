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
