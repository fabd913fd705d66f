package mcp_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a test leaves goroutines behind: every
// server session and the nodes the tests start must end with Close.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
