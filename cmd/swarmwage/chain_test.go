package main

import (
	"encoding/json"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow/evm"
	"github.com/swarmwage/swarmwage/escrow/evm/contract"
	"github.com/swarmwage/swarmwage/escrow/evm/evmtest"
)

// chain deploy against a real anvil, driven exactly as the issue writes it.
func TestChainDeployOnAnvil(t *testing.T) {
	t.Parallel()
	a := evmtest.StartAnvil(t)
	keyFile, err := a.WriteKey(t.TempDir(), 0)
	require.NoError(t, err)

	// A notice too short for the default hire deadline plus window is
	// refused (nothing deployed), or deployed with a warning under --force.
	res := swarmwage(t, "chain", "deploy", "--rpc", a.URL, "--key-file", keyFile, "--test-token", "--notice", "60s", "--json")
	require.Equal(t, 2, res.Code, res.Stderr)
	require.Contains(t, res.Stderr, "--notice 1m0s is too short")
	require.Contains(t, res.Stderr, "at least 22m30s")
	require.Contains(t, res.Stderr, "--force")
	var refused struct {
		Error    string `json:"error"`
		ExitCode int    `json:"exit_code"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.Stdout), &refused), "a --json usage error prints a document: %s", res.Stdout)
	require.Equal(t, 2, refused.ExitCode)
	require.Contains(t, refused.Error, "--force")
	res = swarmwage(t, "chain", "deploy", "--rpc", a.URL, "--key-file", keyFile, "--test-token", "--notice", "60s", "--force", "--json")
	require.Equal(t, 0, res.Code, res.Stderr)
	require.Contains(t, res.Stderr, "Warning: --notice 1m0s is too short")
	var out map[string]any
	require.NoError(t, json.Unmarshal([]byte(res.Stdout), &out))
	require.Len(t, out, 3, "exactly chain_id, escrow, token: %s", res.Stdout)
	require.EqualValues(t, 31337, out["chain_id"])
	escrowAddr, tokenAddr := out["escrow"].(string), out["token"].(string)
	require.True(t, common.IsHexAddress(escrowAddr), escrowAddr)
	require.True(t, common.IsHexAddress(tokenAddr), tokenAddr)

	eth, err := ethclient.Dial(a.URL)
	require.NoError(t, err)
	defer eth.Close()
	call := &bind.CallOpts{Context: t.Context()}
	esc, err := contract.NewSwarmwageEscrow(common.HexToAddress(escrowAddr), eth)
	require.NoError(t, err)
	gotToken, err := esc.Token(call)
	require.NoError(t, err)
	require.Equal(t, common.HexToAddress(tokenAddr), gotToken)
	notice, err := esc.Notice(call)
	require.NoError(t, err)
	require.Equal(t, uint64(60), notice)
	tok, err := contract.NewTestStablecoin(gotToken, eth)
	require.NoError(t, err)
	dec, err := tok.Decimals(call)
	require.NoError(t, err)
	require.Equal(t, uint8(6), dec)
	// The deployer may mint.
	deployer, err := evm.ParseKey(a.Keys[0])
	require.NoError(t, err)
	to := common.HexToAddress(a.Addresses[3])
	require.NoError(t, evm.MintTest(t.Context(), a.URL, deployer, gotToken, to, 1_000_000))
	bal, err := tok.BalanceOf(call, to)
	require.NoError(t, err)
	require.Zero(t, bal.Cmp(big.NewInt(1_000_000)))

	// An escrow for an existing token, with the default notice (a week).
	res = swarmwage(t, "chain", "deploy", "--rpc", a.URL, "--key-file", keyFile, "--token", tokenAddr, "--json")
	require.Equal(t, 0, res.Code, res.Stderr)
	var out2 chainDeployResult
	require.NoError(t, json.Unmarshal([]byte(res.Stdout), &out2))
	require.Equal(t, tokenAddr, out2.Token)
	require.NotEqual(t, escrowAddr, out2.Escrow)
	esc2, err := contract.NewSwarmwageEscrow(common.HexToAddress(out2.Escrow), eth)
	require.NoError(t, err)
	notice, err = esc2.Notice(call)
	require.NoError(t, err)
	require.Equal(t, uint64(7*24*3600), notice)

	// Text output says how nodes use it.
	res = swarmwage(t, "chain", "deploy", "--rpc", a.URL, "--key-file", keyFile, "--test-token")
	require.Equal(t, 0, res.Code, res.Stderr)
	require.Contains(t, res.Stdout, "swarmwage init --settlement evm --rpc "+a.URL)
	require.NotContains(t, res.Stdout+res.Stderr, strings.TrimPrefix(a.Keys[0], "0x"), "the key is never shown")

	// A token address without a contract is a chain error (exit 1).
	res = swarmwage(t, "chain", "deploy", "--rpc", a.URL, "--key-file", keyFile, "--token", "0x000000000000000000000000000000000000dEaD", "--json")
	require.Equal(t, 1, res.Code, res.Stderr)
	require.Contains(t, res.Stderr, "no contract at token")
}

func TestChainDeployErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "k")
	require.NoError(t, os.WriteFile(keyFile, []byte("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80\n"), 0o600))
	badKey := filepath.Join(dir, "bad")
	require.NoError(t, os.WriteFile(badKey, []byte("not a key"), 0o600))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	down := "http://" + ln.Addr().String()
	require.NoError(t, ln.Close())

	testCases := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no rpc", []string{"--key-file", keyFile, "--test-token"}, 2, "--rpc URL is required"},
		{"no key file", []string{"--rpc", down, "--test-token"}, 2, "--key-file FILE is required"},
		{"no token", []string{"--rpc", down, "--key-file", keyFile}, 2, "exactly one of --token ADDR and --test-token"},
		{"both tokens", []string{"--rpc", down, "--key-file", keyFile, "--test-token", "--token", "0x000000000000000000000000000000000000dEaD"}, 2, "exactly one"},
		{"bad token", []string{"--rpc", down, "--key-file", keyFile, "--token", "0x12"}, 2, "not an address"},
		{"bad notice", []string{"--rpc", down, "--key-file", keyFile, "--test-token", "--notice", "soon"}, 2, "--notice"},
		{"sub-second notice", []string{"--rpc", down, "--key-file", keyFile, "--test-token", "--notice", "1500ms"}, 2, "whole seconds"},
		{"notice too short", []string{"--rpc", down, "--key-file", keyFile, "--test-token", "--notice", "22m29s"}, 2, "too short for the default terms"},
		{"missing key file", []string{"--rpc", down, "--key-file", filepath.Join(dir, "none"), "--test-token"}, 2, "no such file"},
		{"malformed key file", []string{"--rpc", down, "--key-file", badKey, "--test-token"}, 2, "64 hex characters"},
		{"extra argument", []string{"--rpc", down, "--key-file", keyFile, "--test-token", "now"}, 2, "no arguments"},
		{"chain down", []string{"--rpc", down, "--key-file", keyFile, "--test-token", "--json"}, 1, "chain unreachable"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			res := swarmwage(t, append([]string{"chain", "deploy"}, tc.args...)...)
			require.Equal(t, tc.code, res.Code, "stderr: %s", res.Stderr)
			require.Contains(t, res.Stderr, tc.msg)
			require.Empty(t, res.Stdout)
			require.NotContains(t, res.Stderr, "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")
		})
	}
}
