package demo

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a demo run leaves goroutines behind:
// Run must close both nodes it starts, whatever happened to the hires.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
