package evm

import (
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
)

// frozenListener accepts TCP connections on 127.0.0.1 and never answers
// on them: an RPC endpoint that hangs.
func frozenListener(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}

// TestHireOnAFrozenRPCFailsQuicklyNamingTheEndpoint: issue 29. An RPC
// endpoint that accepts the connection and never answers made a hire wait
// a minute before "chain unreachable". The calls a hire waits on give up
// after HireRPCTimeout, and the error names the endpoint without the
// credentials of its URL.
func TestHireOnAFrozenRPCFailsQuicklyNamingTheEndpoint(t *testing.T) {
	addr := frozenListener(t)
	k, err := GenerateKey()
	require.NoError(t, err)
	s, err := NewSettler(SettlerConfig{
		Config: Config{
			RPC:    "http://user:secret@" + addr + "/v2/apikey-123?key=apikey-456",
			Escrow: common.HexToAddress("0x1000000000000000000000000000000000000001"),
			Token:  common.HexToAddress("0x2000000000000000000000000000000000000002"),
			Logger: quiet,
		},
		HireRPCTimeout: 300 * time.Millisecond,
	}, k)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })

	terms := escrow.LockTerms{JobID: "job-frozen", BuyerAddress: k.Address().Hex(),
		SellerAddress: "0x3000000000000000000000000000000000000003", Amount: 1000, NotBefore: time.Now().Add(time.Minute)}
	start := time.Now()
	_, err = s.PrepareLock(t.Context(), terms, 0)
	took := time.Since(start)
	require.ErrorIs(t, err, escrow.ErrRailUnavailable)
	require.ErrorIs(t, err, ErrChainDown)
	msg := err.Error()
	t.Log(msg)
	require.Contains(t, msg, "chain unreachable: http://"+addr)
	for _, secret := range []string{"secret", "apikey", "/v2"} {
		require.NotContains(t, msg, secret)
	}
	// Well inside the background work's own per-request bound: the hire
	// did not wait for it (it waited HireRPCTimeout, once).
	require.Less(t, took, RPCRequestTimeout, "the hire gave up after %s", took)

	// Within dialBackoff the same error comes back at once, without a
	// request: several candidate sellers do not each wait again.
	_, err2 := s.PrepareLock(t.Context(), terms, 0)
	require.ErrorIs(t, err2, ErrChainDown)
	require.True(t, strings.Contains(err2.Error(), addr))
}

// TestHireOnAnRPCThatFreezesAfterItWasReached: the chain was reached,
// then its endpoint stops answering (accepts, never answers). The hire's
// requests give up after HireRPCTimeout and say which endpoint.
func TestHireOnAnRPCThatFreezesAfterItWasReached(t *testing.T) {
	n := newAnvilNet(t, time.Hour, 1)
	p := startLiar(t, n.a.URL)
	k, err := GenerateKey()
	require.NoError(t, err)
	n.fundGas(t, k.Address())
	rn := newRailNode(t, n, k, p.URL, SettlerConfig{HireRPCTimeout: 300 * time.Millisecond})
	_, err = rn.s.Chain(t.Context())
	require.NoError(t, err)
	p.Freeze()
	terms := escrow.LockTerms{JobID: "job-frozen", BuyerAddress: k.Address().Hex(),
		SellerAddress: "0x3000000000000000000000000000000000000003", Amount: 1000, NotBefore: time.Now().Add(time.Minute)}
	start := time.Now()
	_, err = rn.s.PrepareLock(t.Context(), terms, 0)
	took := time.Since(start)
	require.ErrorIs(t, err, escrow.ErrRailUnavailable)
	require.ErrorIs(t, err, ErrChainDown)
	require.Contains(t, err.Error(), "chain unreachable: "+p.URL)
	require.Less(t, took, RPCRequestTimeout, "the hire gave up after %s", took)
	p.Truth()
}
