package lyingrpc_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/swarmwage/swarmwage/internal/lyingrpc"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// upstream answers every call with the canned result of its method, as a
// node would (the tests of escrow/evm put a real anvil behind the proxy).
func upstream(t *testing.T, results map[string]string) string {
	t.Helper()
	answer := func(m map[string]json.RawMessage) map[string]any {
		var method string
		_ = json.Unmarshal(m["method"], &method)
		return map[string]any{"jsonrpc": "2.0", "id": m["id"], "result": json.RawMessage(results[method])}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var out any
		if bytes.HasPrefix(bytes.TrimSpace(b), []byte("[")) {
			var ms []map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(b, &ms))
			var as []map[string]any
			for _, m := range ms {
				as = append(as, answer(m))
			}
			out = as
		} else {
			var m map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(b, &m))
			out = answer(m)
		}
		_ = json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func call(t *testing.T, url, method string, params ...any) json.RawMessage {
	t.Helper()
	if params == nil {
		params = []any{}
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
	require.NoError(t, err)
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	var a struct {
		ID     int             `json:"id"`
		Result json.RawMessage `json:"result"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&a))
	require.Equal(t, 7, a.ID)
	return a.Result
}

const logs = `[{"address":"0xe5c4","topics":["0xaa","0x01"],"data":"0x","transactionHash":"0x11"},{"address":"0xe5c4","topics":["0xbb","0x02"],"data":"0x","transactionHash":"0x22"}]`

func start(t *testing.T, results map[string]string) *lyingrpc.Proxy {
	t.Helper()
	p, err := lyingrpc.Start(upstream(t, results))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Close()) })
	return p
}

func topics0(t *testing.T, res json.RawMessage) []string {
	t.Helper()
	var ls []lyingrpc.Log
	require.NoError(t, json.Unmarshal(res, &ls))
	var out []string
	for _, l := range ls {
		out = append(out, l.Topics()[0])
	}
	return out
}

func TestLies(t *testing.T) {
	results := map[string]string{
		"eth_getLogs":               logs,
		"eth_blockNumber":           `"0x10"`,
		"eth_call":                  `"0x01"`,
		"eth_getTransactionReceipt": `{"transactionHash":"0x11","status":"0x1","logs":` + logs + `}`,
	}
	testCases := []struct {
		name   string
		method string
		lie    lyingrpc.Lie
		params []any
		check  func(t *testing.T, res json.RawMessage)
	}{
		{"reorder", "eth_getLogs", lyingrpc.ReorderLogs(), nil, func(t *testing.T, res json.RawMessage) {
			require.Equal(t, []string{"0xbb", "0xaa"}, topics0(t, res))
		}},
		{"drop", "eth_getLogs", lyingrpc.DropLogs(lyingrpc.HasTopic0("0xAA")), nil, func(t *testing.T, res json.RawMessage) {
			require.Equal(t, []string{"0xbb"}, topics0(t, res))
		}},
		{"forge", "eth_getLogs", lyingrpc.AddLogs(func(lyingrpc.Request) []lyingrpc.Log {
			l := lyingrpc.Log{}
			l.Set("topics", []string{"0xcc"})
			return []lyingrpc.Log{l}
		}), nil, func(t *testing.T, res json.RawMessage) {
			require.Equal(t, []string{"0xaa", "0xbb", "0xcc"}, topics0(t, res))
		}},
		{"head behind", "eth_blockNumber", lyingrpc.BlockBehind(3), nil, func(t *testing.T, res json.RawMessage) {
			require.JSONEq(t, `"0xd"`, string(res))
		}},
		{"call result", "eth_call", lyingrpc.CallResult("0x05c27d16", "0x02", "abcd"), []any{map[string]string{"data": "0x05c27d16000abcd"}}, func(t *testing.T, res json.RawMessage) {
			require.JSONEq(t, `"0x02"`, string(res))
		}},
		{"call result, other call", "eth_call", lyingrpc.CallResult("0x05c27d16", "0x02"), []any{map[string]string{"data": "0x12345678"}}, func(t *testing.T, res json.RawMessage) {
			require.JSONEq(t, `"0x01"`, string(res))
		}},
		{"receipt logs", "eth_getTransactionReceipt", lyingrpc.ReceiptLogs(lyingrpc.AnyTx, func([]lyingrpc.Log) []lyingrpc.Log { return nil }), nil, func(t *testing.T, res json.RawMessage) {
			var rc struct {
				Status string            `json:"status"`
				Logs   []json.RawMessage `json:"logs"`
			}
			require.NoError(t, json.Unmarshal(res, &rc))
			require.Equal(t, "0x1", rc.Status)
			require.NotNil(t, rc.Logs)
			require.Empty(t, rc.Logs)
		}},
		{"huge", "eth_blockNumber", lyingrpc.Huge(1 << 20), nil, func(t *testing.T, res json.RawMessage) {
			require.Len(t, res, 1<<20+2)
		}},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			p := start(t, results)
			require.Equal(t, string(results[tc.method]), string(compact(t, call(t, p.URL, tc.method, tc.params...))), "honest until told")
			p.Lie(tc.method, tc.lie)
			tc.check(t, call(t, p.URL, tc.method, tc.params...))
			p.Truth()
			require.Equal(t, compact(t, json.RawMessage(results[tc.method])), compact(t, call(t, p.URL, tc.method, tc.params...)), "honest again")
			require.Equal(t, 3, p.Calls(tc.method))
		})
	}
}

func compact(t *testing.T, b json.RawMessage) string {
	t.Helper()
	var out bytes.Buffer
	require.NoError(t, json.Compact(&out, b))
	return out.String()
}

func TestOnceAndTold(t *testing.T) {
	p := start(t, map[string]string{"eth_blockNumber": `"0x10"`})
	p.Lie("eth_blockNumber", lyingrpc.Once(lyingrpc.BlockBehind(1)))
	require.JSONEq(t, `"0xf"`, string(call(t, p.URL, "eth_blockNumber")))
	require.JSONEq(t, `"0x10"`, string(call(t, p.URL, "eth_blockNumber")))
	require.Equal(t, 1, p.Told("eth_blockNumber"))
}

func TestBatchAnswersAreRewrittenByID(t *testing.T) {
	p := start(t, map[string]string{"eth_blockNumber": `"0x10"`, "eth_chainId": `"0x1"`})
	p.Lie("eth_blockNumber", lyingrpc.BlockBehind(2))
	body := `[{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]},{"jsonrpc":"2.0","id":2,"method":"eth_blockNumber","params":[]}]`
	resp, err := http.Post(p.URL, "application/json", bytes.NewReader([]byte(body)))
	require.NoError(t, err)
	defer resp.Body.Close()
	var as []struct {
		ID     int    `json:"id"`
		Result string `json:"result"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&as))
	require.Len(t, as, 2)
	require.Equal(t, "0x1", as[0].Result)
	require.Equal(t, "0xe", as[1].Result)
}

func TestFreezeAnswersNothingUntilTheTruth(t *testing.T) {
	p := start(t, map[string]string{"eth_blockNumber": `"0x10"`})
	p.Freeze()
	c := &http.Client{Timeout: 200 * time.Millisecond}
	_, err := c.Post(p.URL, "application/json", bytes.NewReader([]byte(`{"jsonrpc":"2.0","id":7,"method":"eth_blockNumber","params":[]}`)))
	require.Error(t, err, "no answer")
	p.Truth()
	require.JSONEq(t, `"0x10"`, string(call(t, p.URL, "eth_blockNumber")))
	c.CloseIdleConnections()
	http.DefaultClient.CloseIdleConnections()
}
