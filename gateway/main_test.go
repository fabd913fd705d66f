package gateway_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/swarmwage/swarmwage/node/nodetest"
)

// TestMain fails the package when a test leaves goroutines behind: the
// gateway's hires and streams must end with Close.
func TestMain(m *testing.M) {
	nodetest.RaiseFileLimit()
	goleak.VerifyTestMain(m)
}
