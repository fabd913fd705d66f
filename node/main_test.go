package node

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a test leaves goroutines behind: the
// node's own (disk guard, value-log GC) and its parts' (libp2p, Badger,
// the DHT) must all end with Close.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
