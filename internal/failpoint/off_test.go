//go:build !failpoints

package failpoint_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/internal/failpoint"
)

// Without the tag a configured kill point does nothing: this test would
// die if it did.
func TestInjectOffIgnoresEnv(t *testing.T) {
	t.Setenv(failpoint.EnvVar, "faults/test=kill,faults/value=set(7)")
	_, ok := failpoint.Value("faults/value")
	require.False(t, ok, "no value without the tag")
	t.Setenv(failpoint.EnvVar, "faults/test=kill")
	require.False(t, failpoint.Enabled)
	for range 3 {
		failpoint.Inject("faults/test")
	}
}
