package gateway_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/gateway"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/node"
	"github.com/swarmwage/swarmwage/node/nodetest"
)

const testNetwork = "gateway-test"

// Capabilities the test seller sells.
const (
	capMean   = "compute.statistics.mean"   // builtin, 0.05
	capSlow   = "compute.math.numeric"      // exec, sleeps: for cancel
	capBroken = "custom.gatewaytest.broken" // exec, fails: for FAILED
)

// pair is a buyer node serving the gateway and a seller it hires from,
// both real nodes on loopback.
type pair struct {
	seller, buyer *node.Node
	buyerDir      string
	url           string // the gateway's base URL
	token         string
}

// startPair starts a seller with three listings and a buyer with 10
// credits and the gateway on a free port; edit changes the buyer's config.
func startPair(t *testing.T, edit func(*node.Config)) *pair {
	t.Helper()
	seller := nodetest.Start(t, nodetest.NewRepo(t, testNetwork), node.Options{})
	ctx := context.Background()
	for _, l := range []market.ListingParams{
		{Capability: capMean, Price: nodetest.Amount(t, "0.05"), Handler: market.HandlerConfig{Kind: market.HandlerBuiltin}},
		{Capability: capSlow, Price: nodetest.Amount(t, "0.02"), Handler: market.HandlerConfig{Kind: market.HandlerExec, Command: []string{"sh", "-c", `sleep 60; echo '{"result": 3.14}'`}}},
		{Capability: capBroken, Price: nodetest.Amount(t, "0.01"), Handler: market.HandlerConfig{Kind: market.HandlerExec, Command: []string{"sh", "-c", "echo broken >&2; exit 3"}}},
	} {
		_, err := seller.Market.AddListing(ctx, l)
		require.NoError(t, err)
	}
	dir := t.TempDir()
	p := &pair{seller: seller, buyerDir: dir}
	p.buyer = p.startBuyer(t, edit)
	require.NoError(t, p.buyer.Escrow.Deposit(ctx, nodetest.Amount(t, "10"), "test"))
	return p
}

// startBuyer starts (or restarts) the buyer node on its repo.
func (p *pair) startBuyer(t *testing.T, edit func(*node.Config)) *node.Node {
	t.Helper()
	var repo *node.Repo
	if _, err := os.Stat(filepath.Join(p.buyerDir, "config.toml")); err == nil {
		var err error
		repo, err = node.Open(p.buyerDir)
		require.NoError(t, err)
	} else {
		repo = nodetest.NewRepoWith(t, p.buyerDir, testNetwork, func(c *node.Config) {
			c.Gateway.Listen = "127.0.0.1:0"
			if edit != nil {
				edit(c)
			}
		})
	}
	b := nodetest.Start(t, repo, node.Options{StartGateway: gateway.StartNode()}, p.seller)
	nodetest.WaitReady(t, p.seller, b)
	p.url = "http://" + b.GatewayAddr()
	if !b.Config.Gateway.Open {
		tok, err := os.ReadFile(filepath.Join(p.buyerDir, gateway.TokenFile))
		require.NoError(t, err)
		p.token = strings.TrimSpace(string(tok))
	}
	return b
}

// rpc posts one JSON-RPC request to /a2a and decodes the answer.
func (p *pair) rpc(t *testing.T, method string, params any) (result json.RawMessage, rpcErr *struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, p.url+gateway.A2APath, bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(gateway.VersionHeader, "1.0")
	if p.token != "" {
		req.Header.Set("Authorization", "Bearer "+p.token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var out struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      int             `json:"id"`
		Result  json.RawMessage `json:"result"`
		Error   *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	require.Equal(t, "2.0", out.JSONRPC)
	require.Equal(t, 7, out.ID)
	return out.Result, out.Error
}

// hireMessage is SendMessage's params for a hire.
func hireMessage(capID string, input any, maxPrice string, immediately bool) map[string]any {
	data := map[string]any{"capability": capID, "input": input}
	if maxPrice != "" {
		data["max_price"] = maxPrice
	}
	p := map[string]any{"message": map[string]any{
		"messageId": "m-" + capID, "role": gateway.RoleUser,
		"parts": []any{map[string]any{"data": data}},
	}}
	if immediately {
		p["configuration"] = map[string]any{"returnImmediately": true}
	}
	return p
}

func decodeTask(t *testing.T, raw json.RawMessage) gateway.Task {
	t.Helper()
	var task gateway.Task
	require.NoError(t, json.Unmarshal(raw, &task))
	return task
}

func sendTask(t *testing.T, raw json.RawMessage) gateway.Task {
	t.Helper()
	var res struct {
		Task *gateway.Task `json:"task"`
	}
	require.NoError(t, json.Unmarshal(raw, &res))
	require.NotNil(t, res.Task, "SendMessage answers with a task: %s", raw)
	return *res.Task
}

// part returns the data part named name of a's parts.
func part(t *testing.T, a gateway.Artifact, name string) json.RawMessage {
	t.Helper()
	for _, p := range a.Parts {
		if p.Metadata["name"] == name {
			return p.Data
		}
	}
	t.Fatalf("artifact has no %q part", name)
	return nil
}

func TestSendMessageHiresVerifiesAndPays(t *testing.T) {
	p := startPair(t, nil)
	res, rerr := p.rpc(t, gateway.MethodSendMessage, hireMessage(capMean, map[string]any{"data": []float64{1, 2, 3, 4}}, "0.1", false))
	require.Nil(t, rerr)
	task := sendTask(t, res)
	require.Equal(t, gateway.StateCompleted, task.Status.State, "status: %+v", task.Status.Message)
	require.Len(t, task.Artifacts, 1)
	require.JSONEq(t, `{"result":2.5}`, string(part(t, task.Artifacts[0], "output")))
	var report struct {
		Passed bool `json:"passed"`
		Checks []struct {
			Name   string `json:"name"`
			Passed bool   `json:"passed"`
		} `json:"checks"`
	}
	require.NoError(t, json.Unmarshal(part(t, task.Artifacts[0], "verification"), &report))
	require.True(t, report.Passed)
	require.NotEmpty(t, report.Checks)
	// The receipt is the signed one: it decodes and its signatures check.
	rc, err := escrow.DecodeReceipt(part(t, task.Artifacts[0], "receipt"))
	require.NoError(t, err)
	require.NoError(t, rc.Check())
	meta := task.Metadata["swarmwage"].(map[string]any)
	require.Equal(t, rc.Lock.JobID, meta["job_id"])
	require.Equal(t, "0.05", meta["price"])

	ctx := context.Background()
	b, err := p.buyer.Escrow.Balance(ctx)
	require.NoError(t, err)
	require.Equal(t, nodetest.Amount(t, "9.95"), b.Available)
	require.NoError(t, p.buyer.Escrow.CheckInvariant(ctx))

	// GetTask gives the same task, and ListTasks lists it.
	res, rerr = p.rpc(t, gateway.MethodGetTask, map[string]any{"id": task.ID})
	require.Nil(t, rerr)
	got := decodeTask(t, res)
	require.Equal(t, gateway.StateCompleted, got.Status.State)
	res, rerr = p.rpc(t, gateway.MethodListTasks, map[string]any{})
	require.Nil(t, rerr)
	var list gateway.ListTasksResponse
	require.NoError(t, json.Unmarshal(res, &list))
	require.Len(t, list.Tasks, 1)
	require.Equal(t, task.ID, list.Tasks[0].ID)
}

func TestOutcomesMapToTaskStates(t *testing.T) {
	p := startPair(t, nil)
	ctx := context.Background()
	testCases := []struct {
		name, capID, maxPrice, want string
	}{
		{"no seller within the price", capMean, "0.01", gateway.StateRejected},
		{"the job fails", capBroken, "0.1", gateway.StateFailed},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			before, err := p.buyer.Escrow.Balance(ctx)
			require.NoError(t, err)
			res, rerr := p.rpc(t, gateway.MethodSendMessage, hireMessage(tc.capID, map[string]any{"data": []float64{1, 2}}, tc.maxPrice, false))
			require.Nil(t, rerr)
			task := sendTask(t, res)
			require.Equal(t, tc.want, task.Status.State)
			require.Empty(t, task.Artifacts)
			require.NotNil(t, task.Status.Message)
			require.NotEmpty(t, *task.Status.Message.Parts[0].Text)
			after, err := p.buyer.Escrow.Balance(ctx)
			require.NoError(t, err)
			require.Equal(t, before.Available, after.Available, "nothing is spent")
		})
	}
	require.NoError(t, p.buyer.Escrow.CheckInvariant(ctx))
}

func TestCancelTaskBeforeDeliveryRefunds(t *testing.T) {
	p := startPair(t, nil)
	ctx := context.Background()
	res, rerr := p.rpc(t, gateway.MethodSendMessage, hireMessage(capSlow, map[string]any{"expression": "pi", "precision": 2}, "0.1", true))
	require.Nil(t, rerr)
	task := sendTask(t, res)
	require.Contains(t, []string{gateway.StateSubmitted, gateway.StateWorking}, task.Status.State)
	// Wait until the price is held, then cancel.
	require.Eventually(t, func() bool {
		b, err := p.buyer.Escrow.Balance(ctx)
		return err == nil && b.Held > 0
	}, 30*time.Second, 50*time.Millisecond)
	res, rerr = p.rpc(t, gateway.MethodCancelTask, map[string]any{"id": task.ID})
	require.Nil(t, rerr)
	require.Equal(t, gateway.StateCanceled, decodeTask(t, res).Status.State)
	b, err := p.buyer.Escrow.Balance(ctx)
	require.NoError(t, err)
	require.Equal(t, nodetest.Amount(t, "10"), b.Available)
	require.Zero(t, b.Held)
	// A finished task cannot be cancelled again.
	_, rerr = p.rpc(t, gateway.MethodCancelTask, map[string]any{"id": task.ID})
	require.NotNil(t, rerr)
	require.Equal(t, -32002, rerr.Code)
}

func TestStreamingSendsEveryStage(t *testing.T) {
	p := startPair(t, nil)
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "s1", "method": gateway.MethodSendStreamingMessage,
		"params": hireMessage(capMean, map[string]any{"data": []float64{2, 4}}, "0.1", false)})
	req, _ := http.NewRequest(http.MethodPost, p.url+gateway.A2APath, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+p.token)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	var states, stages []string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev struct {
			ID     string                 `json:"id"`
			Result gateway.StreamResponse `json:"result"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &ev))
		require.Equal(t, "s1", ev.ID)
		switch r := ev.Result; {
		case r.Task != nil:
			states = append(states, r.Task.Status.State)
		case r.StatusUpdate != nil:
			states = append(states, r.StatusUpdate.Status.State)
			for _, pt := range r.StatusUpdate.Status.Message.Parts {
				var d struct {
					Stage string `json:"stage"`
				}
				if pt.Data != nil && json.Unmarshal(pt.Data, &d) == nil {
					stages = append(stages, d.Stage)
				}
			}
		case r.ArtifactUpdate != nil:
			states = append(states, "artifact")
		}
	}
	require.Equal(t, gateway.StateSubmitted, states[0])
	require.Equal(t, gateway.StateCompleted, states[len(states)-1])
	require.Equal(t, "artifact", states[len(states)-2])
	for _, want := range []string{"routing", "quote", "lock", "delivery"} {
		require.Contains(t, stages, want)
	}
}

func TestTasksSurviveARestart(t *testing.T) {
	p := startPair(t, nil)
	res, rerr := p.rpc(t, gateway.MethodSendMessage, hireMessage(capMean, map[string]any{"data": []float64{1, 3}}, "0.1", false))
	require.Nil(t, rerr)
	task := sendTask(t, res)
	require.Equal(t, gateway.StateCompleted, task.Status.State)
	require.NoError(t, p.buyer.Close())
	p.buyer = p.startBuyer(t, nil)
	res, rerr = p.rpc(t, gateway.MethodGetTask, map[string]any{"id": task.ID})
	require.Nil(t, rerr)
	got := decodeTask(t, res)
	require.Equal(t, gateway.StateCompleted, got.Status.State)
	require.JSONEq(t, `{"result":2}`, string(part(t, got.Artifacts[0], "output")))
}

func TestAccess(t *testing.T) {
	p := startPair(t, func(c *node.Config) { c.Gateway.MaxPerHire = "0.04" })
	st, err := os.Stat(filepath.Join(p.buyerDir, gateway.TokenFile))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm())

	// The card is public and names the bearer scheme.
	resp, err := http.Get(p.url + gateway.CardPath)
	require.NoError(t, err)
	var card gateway.AgentCard
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&card))
	resp.Body.Close()
	require.Equal(t, p.url+gateway.A2APath, card.SupportedInterfaces[0].URL)
	require.Contains(t, card.SecuritySchemes, "bearer")

	testCases := []struct {
		name, auth string
		want       int
	}{
		{"no token", "", http.StatusUnauthorized},
		{"wrong token", "Bearer nope", http.StatusUnauthorized},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, p.url+gateway.A2APath, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{}}`))
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			require.Equal(t, tc.want, resp.StatusCode)
		})
	}
	t.Run("x402 is off on credits", func(t *testing.T) {
		resp, err := http.Post(p.url+"/x402/"+capMean, "application/json", strings.NewReader(`{}`))
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Equal(t, http.StatusNotImplemented, resp.StatusCode)
		require.Contains(t, string(b), "evm")
	})
	t.Run("per-hire cap", func(t *testing.T) {
		// Over the cap: refused; without max_price: the cap is the price
		// limit, and the 0.05 seller is over it.
		for _, mp := range []string{"0.1", ""} {
			res, rerr := p.rpc(t, gateway.MethodSendMessage, hireMessage(capMean, map[string]any{"data": []float64{1}}, mp, false))
			require.Nil(t, rerr)
			task := sendTask(t, res)
			require.Equal(t, gateway.StateRejected, task.Status.State)
		}
	})
	t.Run("body cap", func(t *testing.T) {
		big := `{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{"x":"` + strings.Repeat("a", 9<<20) + `"}}`
		req, _ := http.NewRequest(http.MethodPost, p.url+gateway.A2APath, strings.NewReader(big))
		req.Header.Set("Authorization", "Bearer "+p.token)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
	})
}

func TestPerDayCapCountsInTheLock(t *testing.T) {
	p := startPair(t, func(c *node.Config) { c.Gateway.MaxPerDay = "0.08" })
	want := []string{gateway.StateCompleted, gateway.StateRejected}
	for i, w := range want {
		res, rerr := p.rpc(t, gateway.MethodSendMessage, hireMessage(capMean, map[string]any{"data": []float64{float64(i)}}, "0.05", false))
		require.Nil(t, rerr)
		task := sendTask(t, res)
		require.Equal(t, w, task.Status.State, "hire %d: %s", i, *task.Status.Message.Parts[0].Text)
	}
	spent, err := p.buyer.Escrow.Spent(context.Background(), "gateway", time.Time{})
	require.NoError(t, err)
	require.Equal(t, nodetest.Amount(t, "0.05"), spent)
}

// sse reads the data lines of an SSE answer as JSON-RPC stream responses.
func sse(t *testing.T, r io.Reader, each func(gateway.StreamResponse) bool) {
	t.Helper()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Result gateway.StreamResponse `json:"result"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &ev))
		if !each(ev.Result) {
			return
		}
	}
}

func TestSubscribeToTaskStreamsTheRest(t *testing.T) {
	p := startPair(t, nil)
	res, rerr := p.rpc(t, gateway.MethodSendMessage, hireMessage(capSlow, map[string]any{"expression": "pi", "precision": 2}, "0.1", true))
	require.Nil(t, rerr)
	task := sendTask(t, res)

	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 9, "method": gateway.MethodSubscribeToTask, "params": map[string]any{"id": task.ID}})
	req, _ := http.NewRequest(http.MethodPost, p.url+gateway.A2APath, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+p.token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	var last string
	first := true
	sse(t, resp.Body, func(ev gateway.StreamResponse) bool {
		if first {
			require.NotNil(t, ev.Task, "a subscription starts with the task")
			require.Equal(t, task.ID, ev.Task.ID)
			first = false
		}
		if ev.StatusUpdate != nil {
			last = ev.StatusUpdate.Status.State
			var d struct {
				Stage string `json:"stage"`
			}
			for _, pt := range ev.StatusUpdate.Status.Message.Parts {
				if pt.Data != nil && json.Unmarshal(pt.Data, &d) == nil && d.Stage == "lock" {
					// The subscriber's buffer keeps the events while the
					// cancel waits for the refund.
					res, rerr := p.rpc(t, gateway.MethodCancelTask, map[string]any{"id": task.ID})
					require.Nil(t, rerr)
					require.Equal(t, gateway.StateCanceled, decodeTask(t, res).Status.State)
				}
			}
		}
		return true
	})
	require.Equal(t, gateway.StateCanceled, last, "the stream ends with the terminal state")

	// Done: nothing left to subscribe to; ListTasks filters by state.
	_, rerr = p.rpc(t, gateway.MethodSubscribeToTask, map[string]any{"id": task.ID})
	require.NotNil(t, rerr)
	require.Equal(t, -32004, rerr.Code)
	res, rerr = p.rpc(t, gateway.MethodListTasks, map[string]any{"status": gateway.StateCanceled})
	require.Nil(t, rerr)
	var list gateway.ListTasksResponse
	require.NoError(t, json.Unmarshal(res, &list))
	require.Len(t, list.Tasks, 1)
	require.Equal(t, 1, list.TotalSize)
	res, rerr = p.rpc(t, gateway.MethodListTasks, map[string]any{"status": gateway.StateCompleted})
	require.Nil(t, rerr)
	require.NoError(t, json.Unmarshal(res, &list))
	require.Empty(t, list.Tasks)
	_, rerr = p.rpc(t, gateway.MethodGetTask, map[string]any{"id": "0123456789abcdef0123456789abcdef"})
	require.NotNil(t, rerr)
	require.Equal(t, -32001, rerr.Code)
}
