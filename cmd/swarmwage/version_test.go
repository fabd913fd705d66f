package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestVersionFromBuildInfo(t *testing.T) {
	t.Parallel()
	checkout := &debug.BuildInfo{
		Main: debug.Module{Path: "github.com/swarmwage/swarmwage", Version: "(devel)"},
		Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
			{Key: "vcs.modified", Value: "false"},
		},
	}
	installed := &debug.BuildInfo{Main: debug.Module{Path: "github.com/swarmwage/swarmwage", Version: "v0.1.0"}}
	testCases := []struct {
		name             string
		ver, rev         string
		bi               *debug.BuildInfo
		wantVer, wantRev string
	}{
		{"go build in a clone: the revision from the build info", "", "", checkout, "devel", "0123456789abcdef0123456789abcdef01234567"},
		{"go install module@version", "", "", installed, "v0.1.0", "unknown"},
		{"-ldflags win over the build info", "v0.2.0", "abc123", checkout, "v0.2.0", "abc123"},
		{"no build info at all", "", "", nil, "devel", "unknown"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			v := versionFrom(tc.ver, tc.rev, tc.bi)
			require.Equal(t, tc.wantVer, v.Version)
			require.Equal(t, tc.wantRev, v.Commit)
			require.Equal(t, runtime.Version(), v.Go)
			require.Equal(t, runtime.GOOS, v.OS)
			require.Equal(t, runtime.GOARCH, v.Arch)
		})
	}
}

// TestCLIVersion: 'version --json' has exactly the five fields of the
// contract, 'version' and '--version' print the same line, and a release
// build's -ldflags show up in both.
func TestCLIVersion(t *testing.T) {
	t.Parallel()
	r := swarmwage(t, "version", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var fields map[string]string
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &fields), r.Stdout)
	require.ElementsMatch(t, []string{"version", "commit", "go", "os", "arch"}, keys(fields))
	require.Equal(t, runtime.Version(), fields["go"])
	require.Equal(t, runtime.GOOS+"/"+runtime.GOARCH, fields["os"]+"/"+fields["arch"])
	for k, v := range fields {
		require.NotEmpty(t, v, k)
	}

	text := swarmwage(t, "version")
	require.Equal(t, 0, text.Code, text.Stderr)
	flag := swarmwage(t, "--version")
	require.Equal(t, 0, flag.Code, flag.Stderr)
	require.Equal(t, text.Stdout, flag.Stdout)
	require.True(t, strings.HasPrefix(text.Stdout, "swarmwage "+fields["version"]+" (commit "+fields["commit"]), text.Stdout)
	json2 := swarmwage(t, "--json", "version")
	require.Equal(t, r.Stdout, json2.Stdout, "--json before the command")

	bin := filepath.Join(t.TempDir(), "swarmwage")
	build := exec.Command("go", "build", "-o", bin, "-ldflags", "-X main.version=v9.8.7 -X main.commit=feedface", ".")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())
	out, err := exec.Command(bin, "version", "--json").Output()
	require.NoError(t, err)
	var rel versionInfo
	require.NoError(t, json.Unmarshal(out, &rel))
	require.Equal(t, "v9.8.7", rel.Version)
	require.Equal(t, "feedface", rel.Commit)
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
