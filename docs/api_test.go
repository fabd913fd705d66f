package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAPIDocListsEveryRoute: every route registered on the control API
// mux (HandleFunc("METHOD /path", ...) in controlapi, node and node/ui) is in
// docs/api.md, so the document cannot fall behind the code.
func TestAPIDocListsEveryRoute(t *testing.T) {
	doc, err := os.ReadFile("api.md")
	require.NoError(t, err)
	route := regexp.MustCompile(`HandleFunc\("([A-Z]+ /[^"]*)"`)
	var files []string
	for _, dir := range []string{"../controlapi", "../node", "../node/ui"} {
		m, err := filepath.Glob(filepath.Join(dir, "*.go"))
		require.NoError(t, err)
		files = append(files, m...)
	}
	found := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range route.FindAllStringSubmatch(string(src), -1) {
			found++
			require.Contains(t, string(doc), "`"+m[1]+"`", "docs/api.md lacks the route %s (%s)", m[1], f)
		}
	}
	require.Greater(t, found, 25, "the routes were found in the source")
}
