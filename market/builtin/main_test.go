package builtin

import (
	"context"
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if sb, err := realSandbox(); err == nil {
		_ = sb.Close(context.Background())
	}
	os.Exit(code)
}
