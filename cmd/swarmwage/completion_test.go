package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCompletionScripts: each shell gets a script for swarmwage; bash's
// parses, and completes commands and flags from the binary it runs.
func TestCompletionScripts(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		shell string
		want  []string
	}{
		{"bash", []string{"complete ", "_swarmwage_complete", "--generate-bash-completion"}},
		{"zsh", []string{"#compdef swarmwage", "compdef _swarmwage swarmwage", "--generate-bash-completion"}},
		{"fish", []string{"complete -c swarmwage", "-a 'hire'", "-l max-price", "-a 'add'"}},
	}
	for _, tc := range testCases {
		t.Run(tc.shell, func(t *testing.T) {
			r := swarmwage(t, "completion", tc.shell)
			require.Equal(t, 0, r.Code, r.Stderr)
			for _, w := range tc.want {
				require.Contains(t, r.Stdout, w)
			}
		})
	}
	bad := swarmwage(t, "completion", "tcsh")
	require.Equal(t, 2, bad.Code)
	require.Contains(t, bad.Stderr, "bash, zsh, fish")
	require.Equal(t, 2, swarmwage(t, "completion").Code)

	script := filepath.Join(t.TempDir(), "swarmwage.bash")
	require.NoError(t, os.WriteFile(script, []byte(swarmwage(t, "completion", "bash").Stdout), 0o600))
	out, err := exec.Command("bash", "-n", script).CombinedOutput()
	require.NoError(t, err, "bash -n: %s", out)

	complete := func(words ...string) []string {
		t.Helper()
		// What bash does on <TAB>: the words typed so far, the last one
		// being completed.
		quoted := make([]string, len(words))
		for i, w := range words {
			quoted[i] = "'" + w + "'"
		}
		prog := "source " + script + "\nCOMP_WORDS=(" + strings.Join(quoted, " ") + ")\n" +
			"COMP_CWORD=" + string(rune('0'+len(words)-1)) + "\n_swarmwage_complete\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n"
		cmd := exec.Command("bash", "-c", prog)
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(binPath)+":"+os.Getenv("PATH"), "HOME="+t.TempDir())
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		return strings.Fields(string(out))
	}
	require.ElementsMatch(t, []string{"add", "apply"}, complete("swarmwage", "sell", "a"))
	require.Contains(t, complete("swarmwage", "hi"), "hire")
	require.Contains(t, complete("swarmwage", "hire", "--max-p"), "--max-price")
	// Capability IDs, and this node's job IDs.
	require.Contains(t, complete("swarmwage", "hire", "compute.statistics.me"), "compute.statistics.mean")
	require.Contains(t, complete("swarmwage", "find", "compute.statistics.va"), "compute.statistics.variance")
	// config.toml's keys.
	require.ElementsMatch(t, []string{"market.max_price", "market.max_job_duration"}, complete("swarmwage", "config", "set", "market.max_"))
	require.Contains(t, complete("swarmwage", "config", "get", "mark"), "market", "get reads a whole table too")
	require.NotContains(t, complete("swarmwage", "config", "set", "mark"), "market", "set writes one key")
	repo := initRepo(t)
	r := swarmwage(t, "--repo", repo, "wallet", "deposit", "1")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Empty(t, complete("swarmwage", "--repo", repo, "jobs", "show", "x"), "no jobs yet, no candidates")
}
