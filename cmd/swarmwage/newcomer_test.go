package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The friction of issue 29 ("a newcomer's second hour"), through the built
// binary.

// TestCLIAmountFlagsHaveOneWording: --max-price -1, 0 and 0.0000001 gave
// three wordings, the last "want a positive amount" for a positive amount
// with too many decimals.
func TestCLIAmountFlagsHaveOneWording(t *testing.T) {
	t.Parallel()
	repo := initRepo(t)
	testCases := []struct {
		value, why string
	}{
		{"-1", "negative"},
		{"0", "must be more than 0"},
		{"0.0000001", "too many decimals (at most 6)"},
		{"abc", "not a decimal number"},
	}
	for _, tc := range testCases {
		for _, cmd := range [][]string{
			{"hire", "--input-json", `{"data":[1]}`, "--max-price", tc.value, "compute.statistics.mean"},
			{"sell", "add", "--price", tc.value, "compute.statistics.mean"},
		} {
			flag := cmd[len(cmd)-3]
			t.Run(cmd[0]+" "+tc.value, func(t *testing.T) {
				r := swarmwage(t, append([]string{"--repo", repo}, cmd...)...)
				require.Equal(t, exitUsage, r.Code, r.Stderr)
				require.Contains(t, r.Stderr, flag+` "`+tc.value+`": `+tc.why+"; want a positive amount of credits, such as 0.05")
			})
		}
	}
}

// TestCLIUsageMessagesNameTheFix: 'sell add CAP' without --price printed
// the library's "Required flag" text, 'jobs ls' got no suggestion, and an
// exec handler whose script does not exist was accepted.
func TestCLIUsageMessagesNameTheFix(t *testing.T) {
	t.Parallel()
	repo := initRepo(t)
	runExitCases(t, []exitCase{
		{"sell add without --price", []string{"--repo", repo, "sell", "add", "compute.statistics.mean"}, exitUsage, "sell add needs --price, the price of one job in credits, as: sell add --price 0.05 compute.statistics.mean"},
		{"jobs ls", []string{"--repo", repo, "jobs", "ls"}, exitUsage, "did you mean 'list'?"},
		{"sell rm", []string{"--repo", repo, "sell", "rm", "x"}, exitUsage, "did you mean 'remove'?"},
		{"exec script missing", []string{"--repo", repo, "sell", "add", "--price", "0.05", "--handler", "exec:python3 nothere.py", "custom.me.thing"}, exitUsage, "nothere.py"},
	})
	r := swarmwage(t, "--repo", repo, "sell", "add", "--price", "0.05", "compute.statistics.mean")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Equal(t, "selling compute.statistics.mean at 0.05 credits (handler builtin)\n", r.Stdout)
}

// TestCLIUsageErrorWithJSONPrintsADocument: 'hire --json' with a usage
// error printed nothing on stdout, so a script reading it got no answer.
func TestCLIUsageErrorWithJSONPrintsADocument(t *testing.T) {
	t.Parallel()
	repo := initRepo(t)
	r := swarmwage(t, "--repo", repo, "hire", "--json", "--max-price", "0", "--input-json", `{"data":[1]}`, "compute.statistics.mean")
	require.Equal(t, exitUsage, r.Code, r.Stderr)
	var doc struct {
		Error    string `json:"error"`
		ExitCode int    `json:"exit_code"`
		Outcome  string `json:"outcome"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &doc), r.Stdout)
	require.Equal(t, exitUsage, doc.ExitCode)
	require.Equal(t, "invalid_input", doc.Outcome)
	require.Contains(t, doc.Error, "--max-price")
	require.Equal(t, 1, strings.Count(r.Stderr, "Error:"), r.Stderr)

	// Without --json, stdout stays empty.
	r = swarmwage(t, "--repo", repo, "hire", "--max-price", "0", "--input-json", `{"data":[1]}`, "compute.statistics.mean")
	require.Equal(t, exitUsage, r.Code)
	require.Empty(t, r.Stdout)
}

// TestCLIRefundTwiceAndCancelUnknown: a second 'escrow refund' said it
// refunded again; 'jobs cancel nosuchjob' printed an internal message.
func TestCLIRefundTwiceAndCancelUnknown(t *testing.T) {
	t.Parallel()
	m := startMarket(t, "")
	m.sell(t, "custom.test.echo", "0.25", "--handler", "exec:cat")
	h, r := hire(t, m.buyer, "--input-json", `{"a":1}`, "custom.test.echo")
	require.Equal(t, 0, r.Code, r.Stderr)
	r = swarmwage(t, "--repo", m.buyer, "escrow", "refund", "--reason", "wrong", h.JobID)
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "refunded job "+h.JobID+": 0.25 credits back to available")
	r = swarmwage(t, "--repo", m.buyer, "escrow", "refund", "--reason", "wrong", h.JobID)
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "job "+h.JobID+" was already refunded")
	require.Contains(t, r.Stdout, "nothing changed")
	require.Equal(t, "10", balance(t, m.buyer).Available, "refunded once")

	// find: a rail column, --rail, --refresh, and payable sellers.
	r = swarmwage(t, "--repo", m.buyer, "find", "--refresh", "custom.test.echo")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Regexp(t, `PEER\s+CAPABILITY\s+PRICE\s+RAIL\s+RTT`, r.Stdout)
	require.Regexp(t, `custom.test.echo\s+0.25\s+credits\s`, r.Stdout)
	r = swarmwage(t, "--repo", m.buyer, "find", "--json", "custom.test.echo")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, `"payable": true`)
	r = swarmwage(t, "--repo", m.buyer, "find", "--rail", "evm", "custom.test.echo")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "no sellers of custom.test.echo found")
	r = swarmwage(t, "--repo", m.buyer, "find", "--rail", "btc", "custom.test.echo")
	require.Equal(t, exitUsage, r.Code)

	r = swarmwage(t, "--repo", m.buyer, "jobs", "cancel", "nosuchjob")
	require.Equal(t, exitUsage, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, `no bought job "nosuchjob" on this node ('swarmwage jobs list --role buyer' shows them)`)
}

// TestCLIJobHasOneStateEverywhere: a cancelled job showed "failed" in 'jobs
// list' and "refunded" on the dashboard; 'hire --detach --json' left seller
// and price empty after a seller accepted; 'jobs watch' piped printed a
// progress line every second and bare "accepted " lines.
func TestCLIJobHasOneStateEverywhere(t *testing.T) {
	t.Parallel()
	m := startMarket(t, "")
	m.sell(t, "custom.test.slow", "0.01", "--handler", `exec:sh -c "cat >/dev/null; sleep 3; echo '{\"ok\": true}'"`)
	m.sell(t, "custom.test.stuck", "0.02", "--handler", `exec:sh -c "cat >/dev/null; sleep 60"`)
	sellerID := nodeIDOf(t, m.seller).PeerID

	// Detached: seller and price are known once the seller accepted.
	h, r := hire(t, m.buyer, "--detach", "--input-json", `{"a":1}`, "custom.test.slow")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.NotEmpty(t, h.JobID)
	require.Equal(t, sellerID, h.Seller)
	require.Equal(t, "0.01", h.Price)

	// Watched through a pipe: one line per step, in words.
	r = swarmwage(t, "--repo", m.buyer, "jobs", "watch", h.JobID)
	require.Equal(t, 0, r.Code, r.Stderr)
	require.NotContains(t, r.Stderr, "progress")
	require.LessOrEqual(t, strings.Count(r.Stderr, "the seller is running the job"), 1, r.Stderr)
	for _, l := range strings.Split(strings.TrimSpace(r.Stderr), "\n") {
		require.False(t, strings.HasSuffix(l, " "), "no bare event names: %q", l)
	}

	// Cancelled: "refunded" in every view.
	c, r := hire(t, m.buyer, "--detach", "--input-json", `{"a":2}`, "custom.test.stuck")
	require.Equal(t, 0, r.Code, r.Stderr)
	r = swarmwage(t, "--repo", m.buyer, "jobs", "cancel", c.JobID)
	require.Equal(t, 0, r.Code, r.Stderr)
	r = swarmwage(t, "--repo", m.buyer, "jobs", "show", "--json", c.JobID)
	require.Equal(t, 0, r.Code, r.Stderr)
	var job struct {
		State  string `json:"state"`
		Status string `json:"status"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &job))
	require.Equal(t, "refunded", job.State)
	require.Equal(t, "refunded", escrowState(t, m.buyer, c.JobID))
	r = swarmwage(t, "--repo", m.buyer, "jobs", "list", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var list struct {
		Jobs []struct {
			JobID string `json:"job_id"`
			State string `json:"state"`
		} `json:"jobs"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &list))
	states := map[string]string{}
	for _, j := range list.Jobs {
		states[j.JobID] = j.State
	}
	require.Equal(t, map[string]string{h.JobID: "delivered", c.JobID: "refunded"}, states)
	r = swarmwage(t, "--repo", m.buyer, "jobs", "list")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "STATE")
	require.Regexp(t, c.JobID+`\s+buyer\s+custom.test.stuck\s+0.02\s+refunded\s`, r.Stdout)
	require.NotContains(t, r.Stdout, "failed")
}

// TestCLIDaemonReadyLinePeersConnectAndShutdown: a script waits for the
// daemon's one-line JSON ready document, connects it to a peer without a
// restart, and stops it with 'shutdown'.
func TestCLIDaemonReadyLinePeersConnectAndShutdown(t *testing.T) {
	t.Parallel()
	a, b := initRepo(t), initRepo(t)
	startDaemon(t, a)
	cmd := exec.Command(binPath, "--repo", b, "daemon", "--json")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var ready struct {
		Ready  bool   `json:"ready"`
		API    string `json:"api"`
		PeerID string `json:"peer_id"`
	}
	select {
	case l := <-lines:
		require.NoError(t, json.Unmarshal([]byte(l), &ready), "one line of JSON: %q", l)
	case <-time.After(30 * time.Second):
		t.Fatal("no ready line after 30s")
	}
	require.True(t, ready.Ready)
	require.Equal(t, nodeIDOf(t, b).PeerID, ready.PeerID)
	require.True(t, strings.HasPrefix(ready.API, "http://127.0.0.1:"), ready.API)

	aID := nodeIDOf(t, a)
	r := swarmwage(t, "--repo", b, "peers", "connect", aID.Addrs[0])
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Equal(t, "connected to "+aID.PeerID+"\n", r.Stdout)
	r = swarmwage(t, "--repo", b, "peers", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, aID.PeerID)
	r = swarmwage(t, "--repo", b, "peers", "connect", "/ip4/127.0.0.1/tcp/1")
	require.Equal(t, exitUsage, r.Code, "no /p2p/: %s", r.Stderr)
	require.Contains(t, r.Stderr, "/p2p/<peer-id>")

	r = swarmwage(t, "--repo", b, "shutdown")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Equal(t, "daemon stopped\n", r.Stdout)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		require.NoError(t, err, "the daemon exits 0")
	case <-time.After(30 * time.Second):
		t.Fatal("the daemon did not stop")
	}
	r = swarmwage(t, "--repo", b, "shutdown")
	require.Equal(t, 1, r.Code)
	require.Contains(t, r.Stderr, "start 'swarmwage daemon'")
}

// TestCLISecondHourOfflineMessages: 'id PEER' ignored PEER; 'sell test' of
// a capability without a standard verifier said "a buyer would pay for
// this output" although the hire ends delivered and waits the window.
func TestCLISecondHourOfflineMessages(t *testing.T) {
	t.Parallel()
	repo := initRepo(t)
	r := swarmwage(t, "--repo", repo, "id", "12D3KooWEyHPHw5ACTZBayzh9yE1a4tzqGPpEFMdnaLE8oZpbHUa")
	require.Equal(t, exitUsage, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, "id shows this node only")

	r = swarmwage(t, "--repo", repo, "sell", "add", "--price", "0.05", "--handler", "exec:cat", "custom.test.echo")
	require.Equal(t, 0, r.Code, r.Stderr)
	r = swarmwage(t, "--repo", repo, "sell", "test", "--input-json", `{"a":1}`, "custom.test.echo")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.NotContains(t, r.Stderr, "a buyer would pay")
	require.Contains(t, r.Stderr, "custom.test.echo has no standard verifier, so a buyer's hire ends 'delivered' and is paid when the verification window ends")
}

// TestCLIMCPFinishesTheRequestsItReadWhenStdinCloses: a client that wrote
// its requests and closed stdin got no answer to them.
func TestCLIMCPFinishesTheRequestsItReadWhenStdinCloses(t *testing.T) {
	t.Parallel()
	repo := initRepo(t)
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"swarmwage_capabilities","arguments":{}}}
`
	r := swarmwageIn(t, in, "--repo", repo, "mcp")
	require.Equal(t, 0, r.Code, r.Stderr)
	ids := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		require.NotEmpty(t, m.Result, l)
		ids[string(m.ID)] = true
	}
	require.Equal(t, map[string]bool{"1": true, "2": true, "3": true}, ids, "every request answered")
}

// TestCLIJQFiltersEveryJSONDocument: --jq EXPR on a --json command prints
// what the expression makes of the document, as gh does.
func TestCLIJQFiltersEveryJSONDocument(t *testing.T) {
	t.Parallel()
	repo := initRepo(t)
	r := swarmwage(t, "--repo", repo, "wallet", "deposit", "--json", "--jq", ".balance.available", "2.5")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Equal(t, "2.5\n", r.Stdout, "strings raw")
	r = swarmwage(t, "--repo", repo, "wallet", "balance", "--json", "--jq", "{available, held}")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.JSONEq(t, `{"available":"2.5","held":"0"}`, r.Stdout)
	r = swarmwage(t, "--repo", repo, "--json", "--jq", ".network", "id")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Equal(t, "clitest\n", r.Stdout)
	r = swarmwage(t, "--repo", repo, "wallet", "balance", "--json", "--jq", ".[")
	require.Equal(t, exitUsage, r.Code)
	require.Contains(t, r.Stderr, `--jq ".["`)
}
