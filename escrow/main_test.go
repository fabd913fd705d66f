package escrow_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves a goroutine behind (the
// timers goroutine must stop on Close).
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
