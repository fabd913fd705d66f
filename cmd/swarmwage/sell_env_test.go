package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCLISellEnvAndFailureClasses: an exec handler gets only the daemon's
// variables named with 'sell add --env', and a failing handler's stderr
// never reaches the buyer.
func TestCLISellEnvAndFailureClasses(t *testing.T) {
	// The daemons inherit the test's environment.
	t.Setenv("SWARMWAGE_TEST_PASSED", "yes")
	t.Setenv("SWARMWAGE_TEST_SECRET", "hunter2")
	m := startMarket(t, "")

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"bad name", []string{"--handler", "exec:cat", "--env", "1BAD", "custom.test.x"}, `--env: "1BAD" is not a variable name`},
		{"builtin runs no program", []string{"--env", "SWARMWAGE_TEST_PASSED", "compute.statistics.mean"}, "builtin handlers run no program"},
		{"http runs no program", []string{"--handler", "http:http://127.0.0.1:1/x", "--env", "A", "custom.test.x"}, "http handlers run no program"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := swarmwage(t, append([]string{"--repo", m.seller, "sell", "add", "--price", "0.1"}, tc.args...)...)
			require.Equal(t, 2, r.Code, r.Stderr)
			require.Contains(t, r.Stderr, tc.want)
		})
	}

	m.sell(t, "custom.test.env", "0.1", "--env", "SWARMWAGE_TEST_PASSED", "--handler",
		`exec:sh -c 'printf "{\"passed\":\"%s\",\"secret\":\"%s\"}" "$SWARMWAGE_TEST_PASSED" "$SWARMWAGE_TEST_SECRET"'`)
	r := swarmwage(t, "--repo", m.seller, "sell", "list", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var list struct {
		Listings []struct {
			Capability string   `json:"capability"`
			Env        []string `json:"env"`
		} `json:"listings"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &list))
	require.Len(t, list.Listings, 1)
	require.Equal(t, []string{"SWARMWAGE_TEST_PASSED"}, list.Listings[0].Env)

	h, r := hire(t, m.buyer, "--input-json", `{}`, "custom.test.env")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.JSONEq(t, `{"passed":"yes","secret":""}`, string(h.Output))

	m.sell(t, "custom.test.fail", "0.1", "--handler", `exec:sh -c 'echo "token $SWARMWAGE_TEST_PASSED hunter2" >&2; exit 3'`)
	_, r = hire(t, m.buyer, "--input-json", `{}`, "custom.test.fail")
	require.Equal(t, 4, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, "handler failed with exit 3")
	require.NotContains(t, r.Stderr+r.Stdout, "hunter2")
	require.NotContains(t, r.Stderr+r.Stdout, "sh:")
}
