package node_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/node"
)

// postAPI posts body to path on n's control API, as the CLI would.
func postAPI(t *testing.T, n *node.Node, path string, body any) (int, []byte) {
	t.Helper()
	tok, err := os.ReadFile(filepath.Join(n.Repo.Dir, "api.token"))
	require.NoError(t, err)
	data, err := json.Marshal(body)
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, n.APIURL()+path, bytes.NewReader(data))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(tok)))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, err = buf.ReadFrom(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, buf.Bytes()
}
