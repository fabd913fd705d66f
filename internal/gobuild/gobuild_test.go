package gobuild

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func writeModule(t *testing.T, main string) string {
	t.Helper()
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "cmd", "hi"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "cmd", "hi", "main.go"), []byte(main), 0o644))
	return root
}

func TestBuildAndPath(t *testing.T) {
	for _, tc := range []struct {
		name, main, wantErr string
	}{
		{name: "builds", main: "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Print(\"hi\") }\n"},
		{name: "compile error", main: "package main\n\nfunc main() { undefined() }\n", wantErr: "undefined"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := writeModule(t, tc.main)
			b, err := Build(root, "./cmd/hi", filepath.Join(t.TempDir(), "hi"), "sometag")
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				require.ErrorContains(t, err, "go build -tags sometag")
				return
			}
			require.NoError(t, err)
			out, err := exec.Command(b.Path()).Output()
			require.NoError(t, err)
			require.Equal(t, "hi", string(out))
			require.NoError(t, statSources(root))
			require.Error(t, statSources(filepath.Join(root, "missing")))
		})
	}
}
