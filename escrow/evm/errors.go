package evm

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"syscall"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
)

// Errors of the chain, each wrapped with what was being done. Callers test
// them with errors.Is; no hire proceeds on money the rail could not prove.
var (
	// ErrChainDown: the RPC endpoint cannot be reached or does not answer.
	// Nothing changed on chain that the caller does not know of; retry when
	// the chain is back.
	ErrChainDown = errors.New("evm: chain unreachable")
	// ErrReorg: a block the rail relied on was replaced. Within the
	// confirmation depth it means wait and look again; a reorg deeper than it
	// means the confirmation depth is too small for this chain.
	ErrReorg = errors.New("evm: chain reorganized")
	// ErrNoGas: the node's address has too little of the chain's native
	// currency to pay for the transaction's gas.
	ErrNoGas = errors.New("evm: not enough gas money")
	// ErrNotCovered: a lock is not covered by the buyer's line on chain (at
	// the confirmation depth), or the buyer's free deposit cannot cover a new
	// line.
	ErrNotCovered = errors.New("evm: not covered on chain")
	// ErrReverted: the escrow or token contract refused the call; the
	// message names the contract's error.
	ErrReverted = errors.New("evm: contract refused")
	// ErrWrongChain: the RPC endpoint serves another chain, or the escrow
	// address holds no escrow for the configured token.
	ErrWrongChain = errors.New("evm: wrong chain or contract")
	// ErrInvalidPayment: a receipt's payment proof is malformed, or
	// contradicts the receipt or the chain (CheckPayment wraps it in
	// escrow.ErrForged as well).
	ErrInvalidPayment = errors.New("evm: invalid payment proof")
)

// classify wraps err from an RPC call: connection failures become
// ErrChainDown, "insufficient funds" ErrNoGas, revert data the contract's
// named error (ErrReverted). what says what was being done.
func classify(what string, err error, abis ...*abi.ABI) error {
	if err == nil {
		return nil
	}
	// http.Client's errors carry the whole endpoint URL, and providers
	// put API keys in it: keep its scheme and host only.
	var ue *url.Error
	if errors.As(err, &ue) {
		ue.URL = redactURL(ue.URL)
	}
	if errors.Is(err, ErrRPCMisbehaved) {
		return fmt.Errorf("%s: %w", what, err)
	}
	if errors.Is(err, ErrChainDown) || errors.Is(err, ErrNoGas) || errors.Is(err, ErrReverted) ||
		errors.Is(err, ErrReorg) || errors.Is(err, ErrNotCovered) || errors.Is(err, ErrWrongChain) {
		return fmt.Errorf("%s: %w", what, err)
	}
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("%s: %w", what, err)
	}
	var de rpc.DataError
	if errors.As(err, &de) {
		if name := revertName(de, abis); name != "" {
			return fmt.Errorf("%s: %w: %s", what, ErrReverted, name)
		}
	}
	msg := err.Error()
	switch {
	case blockGone(err):
		return fmt.Errorf("%s: %w: the block it was read at is no longer on the chain (the endpoint answered %q)", what, ErrReorg, msg)
	case strings.Contains(msg, "insufficient funds"), strings.Contains(msg, "gas required exceeds allowance: 0"):
		return fmt.Errorf("%s: %w: %v", what, ErrNoGas, err)
	case strings.Contains(msg, "execution reverted"):
		return fmt.Errorf("%s: %w: %v", what, ErrReverted, err)
	case isConnErr(err):
		return fmt.Errorf("%s: %w: %v", what, ErrChainDown, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// blockGone reports whether err is the endpoint saying that the block a
// read was pinned to (by hash: the rail reads at the confirmed block's
// hash) is not on its chain: a reorg replaced it between reading the
// header and reading at it. Anvil answers -32001 "Resource not found",
// geth "header not found" or "unknown block".
func blockGone(err error) bool {
	var re rpc.Error
	if errors.As(err, &re) && re.ErrorCode() == -32001 {
		return true
	}
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "resource not found") || strings.Contains(msg, "header not found") || strings.Contains(msg, "unknown block")
}

func isConnErr(err error) bool {
	var oe *net.OpError
	var ue *url.Error
	var he rpc.HTTPError
	switch {
	case errors.As(err, &oe), errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET):
		return true
	case errors.As(err, &ue):
		return true
	case errors.As(err, &he):
		return he.StatusCode >= 500 || he.StatusCode == 429
	case errors.Is(err, context.DeadlineExceeded):
		return true
	}
	return strings.Contains(err.Error(), "EOF") || strings.Contains(err.Error(), "connection refused")
}

// revertName decodes revert data into "Name(args)" with the contracts' ABIs.
func revertName(de rpc.DataError, abis []*abi.ABI) string {
	s, _ := de.ErrorData().(string)
	b, err := hexutil.Decode(s)
	if err != nil || len(b) < 4 {
		return ""
	}
	for _, a := range abis {
		for name, e := range a.Errors {
			if string(e.ID[:4]) != string(b[:4]) {
				continue
			}
			args, err := e.Inputs.Unpack(b[4:])
			if err != nil || len(args) == 0 {
				return name
			}
			return fmt.Sprintf("%s%v", name, args)
		}
	}
	if reason, err := abi.UnpackRevert(b); err == nil {
		return reason
	}
	return ""
}
