//go:build !failpoints

package node_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// A binary built without the failpoints tag has no partition injector.
func TestNoPartitionRouteWithoutFailpoints(t *testing.T) {
	n := startNode(t, newRepo(t, t.TempDir()))
	status, _ := postAPI(t, n, "/v1/debug/partition", map[string]string{"peer": n.Host.ID().String(), "duration": "1s"})
	require.Equal(t, http.StatusNotFound, status)
}
