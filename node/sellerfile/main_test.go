package sellerfile

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a test leaves goroutines behind: the
// nodes the example seller test starts must all end with Close.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
