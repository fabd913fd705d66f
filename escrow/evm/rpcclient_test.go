package evm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"runtime"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/stretchr/testify/require"
)

// A hostile RPC endpoint answered eth_getLogs with 100 MB, and the daemon
// grew to 450-550 MB RSS and stayed there. Every answer is now cut at
// MaxRPCAnswer: the call fails with ErrRPCMisbehaved naming the endpoint
// (not its API key), whether the answer announces its length or not, and
// the heap does not grow by the answer's size.
func TestRPCAnswersAreBounded(t *testing.T) {
	const huge = 100 << 20
	chunk := bytes.Repeat([]byte("0"), 1<<20)
	testCases := []struct {
		name          string
		contentLength bool
	}{
		{"announced length", true},
		{"chunked", false},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				if tc.contentLength {
					w.Header().Set("Content-Length", "104857620")
				}
				_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":"0x`)
				for i := 0; i < huge/len(chunk); i++ {
					if _, err := w.Write(chunk); err != nil {
						return
					}
				}
				_, _ = io.WriteString(w, `"}`)
			}))
			t.Cleanup(srv.Close)
			endpoint := srv.URL + "/v3/secret-api-key"
			eth, err := dialRPC(t.Context(), endpoint)
			require.NoError(t, err)
			t.Cleanup(eth.Close)

			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err = eth.ChainID(t.Context())
			runtime.ReadMemStats(&after)
			require.ErrorIs(t, err, ErrRPCMisbehaved)
			wrapped := classify("chain ID", err)
			require.ErrorIs(t, wrapped, ErrRPCMisbehaved, "not taken for an unreachable chain")
			require.Contains(t, wrapped.Error(), srv.URL)
			require.NotContains(t, wrapped.Error(), "secret-api-key")
			// What the call allocated in all: the bounded answer and the
			// decoder's copies of it, far from the 100 MB sent.
			require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(8*MaxRPCAnswer))
		})
	}
}

// An endpoint that never answers fails each call at the request deadline,
// as an unreachable chain, whatever the caller's context allows.
func TestRPCRequestsHaveADeadline(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	eth, err := dialRPCLimits(t.Context(), srv.URL, rpcLimits{maxAnswer: MaxRPCAnswer, timeout: 100 * time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(eth.Close)
	ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
	defer cancel()
	_, err = eth.ChainID(ctx)
	require.Error(t, err)
	require.ErrorIs(t, classify("chain ID", err), ErrChainDown)
	require.NoError(t, ctx.Err(), "the request's own deadline ended it, not the caller's")
}

func TestRedactURL(t *testing.T) {
	testCases := []struct{ in, want string }{
		{"https://mainnet.example/v3/KEY", "https://mainnet.example"},
		{"https://user:pass@rpc.example:8545/?key=x", "https://rpc.example:8545"},
		{"http://127.0.0.1:8545", "http://127.0.0.1:8545"},
		{"/tmp/geth.ipc", "(the configured RPC endpoint)"},
		{"::bad", "(the configured RPC endpoint)"},
	}
	for _, tc := range testCases {
		require.Equal(t, tc.want, redactURL(tc.in), tc.in)
	}
}

// statusFlipper is a JSON-RPC proxy in front of a real node that reports
// every transaction receipt as reverted (status 0) and drops its logs, as
// a lying endpoint would; all else passes through.
func statusFlipper(t *testing.T, target string) string {
	t.Helper()
	u, err := url.Parse(target)
	require.NoError(t, err)
	p := httputil.NewSingleHostReverseProxy(u)
	p.ModifyResponse = func(resp *http.Response) error {
		if resp.Request.Header.Get("X-Method") != "eth_getTransactionReceipt" {
			return nil
		}
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		var msg struct {
			JSONRPC string                     `json:"jsonrpc"`
			ID      json.RawMessage            `json:"id"`
			Result  map[string]json.RawMessage `json:"result"`
		}
		if json.Unmarshal(b, &msg) == nil && msg.Result != nil {
			msg.Result["status"] = json.RawMessage(`"0x0"`)
			msg.Result["logs"] = json.RawMessage(`[]`)
			b, _ = json.Marshal(msg)
		}
		resp.Body = io.NopCloser(bytes.NewReader(b))
		resp.ContentLength = int64(len(b))
		resp.Header.Del("Content-Length")
		return nil
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		var req struct {
			Method string `json:"method"`
		}
		_ = json.Unmarshal(body, &req)
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.Header.Set("X-Method", req.Method)
		p.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// A lying endpoint says a transaction that went through (the deposit's
// approve) reverted. The rail does not report "contract refused", which
// would tell the user nothing moved: it finds the transaction's logs on
// chain, says the endpoint misbehaved, and the chain has the approval.
func TestStatusZeroReceiptWithLogsIsNotAFailure(t *testing.T) {
	n := newAnvilNet(t, time.Hour, 1)
	liar := statusFlipper(t, n.a.URL)
	r, err := Open(t.Context(), Config{RPC: liar, Escrow: n.dep.Escrow, Token: n.dep.Token, Confirmations: 1,
		PollInterval: 20 * time.Millisecond, TxTimeout: 20 * time.Second, Logger: quiet}, anvilKey(t, n.a, 1))
	require.NoError(t, err)
	t.Cleanup(r.Close)
	_, err = r.Deposit(t.Context(), 25_000)
	require.ErrorIs(t, err, ErrRPCMisbehaved)
	require.False(t, errors.Is(err, ErrReverted), "not reported as refused: %v", err)
	require.Contains(t, err.Error(), redactURL(liar))
	allowance, err := n.buyer.tok.Allowance(&bind.CallOpts{Context: t.Context()}, n.buyer.Address(), n.dep.Escrow)
	require.NoError(t, err)
	require.Equal(t, int64(25_000), allowance.Int64(), "the chain has the approval")
}
