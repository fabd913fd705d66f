package lyingrpc

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"sync"
)

// The canned lies. Each is a Lie for Proxy.Lie under the method it names.

// Log is one log of an eth_getLogs answer or a receipt, field by field as
// the node sent it (unknown fields are kept).
type Log map[string]json.RawMessage

// Str is the log's field as a string ("" if absent or no string).
func (l Log) Str(field string) string {
	var s string
	_ = json.Unmarshal(l[field], &s)
	return s
}

// Topics are the log's topics, 0x-hex.
func (l Log) Topics() []string {
	var ts []string
	_ = json.Unmarshal(l["topics"], &ts)
	return ts
}

// Set sets a field to v (marshalled).
func (l Log) Set(field string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic("lyingrpc: log field " + field + ": " + err.Error()) // a test's own value
	}
	l[field] = b
}

// Clone is a copy of the log.
func (l Log) Clone() Log {
	out := make(Log, len(l))
	for k, v := range l {
		out[k] = append(json.RawMessage(nil), v...)
	}
	return out
}

// HasTopic0 matches logs whose first topic is topic (0x-hex, any case).
func HasTopic0(topic string) func(Log) bool {
	return func(l Log) bool {
		ts := l.Topics()
		return len(ts) > 0 && strings.EqualFold(ts[0], topic)
	}
}

// AnyLog matches every log.
func AnyLog(Log) bool { return true }

// mapLogs rewrites a JSON array of logs with f.
func mapLogs(result json.RawMessage, f func([]Log) ([]Log, bool)) (json.RawMessage, bool) {
	var logs []Log
	if err := json.Unmarshal(result, &logs); err != nil {
		return result, false
	}
	out, changed := f(logs)
	if !changed {
		return result, false
	}
	if out == nil {
		out = []Log{}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return result, false
	}
	return b, true
}

// ReorderLogs (eth_getLogs) answers the logs in reverse order.
func ReorderLogs() Lie {
	return func(_ Request, result json.RawMessage) (json.RawMessage, bool) {
		return mapLogs(result, func(logs []Log) ([]Log, bool) {
			if len(logs) < 2 {
				return logs, false
			}
			out := make([]Log, len(logs))
			for i, l := range logs {
				out[len(logs)-1-i] = l
			}
			return out, true
		})
	}
}

// DropLogs (eth_getLogs) leaves out the logs match selects.
func DropLogs(match func(Log) bool) Lie {
	return func(_ Request, result json.RawMessage) (json.RawMessage, bool) {
		return mapLogs(result, func(logs []Log) ([]Log, bool) {
			var out []Log
			for _, l := range logs {
				if !match(l) {
					out = append(out, l)
				}
			}
			return out, len(out) != len(logs)
		})
	}
}

// AddLogs (eth_getLogs) appends the logs forge returns for the request
// (nil: none) to the answer: forged events.
func AddLogs(forge func(Request) []Log) Lie {
	return func(req Request, result json.RawMessage) (json.RawMessage, bool) {
		extra := forge(req)
		if len(extra) == 0 {
			return result, false
		}
		return mapLogs(result, func(logs []Log) ([]Log, bool) {
			return append(logs, extra...), true
		})
	}
}

// Once tells l's lie once: the first answer it changes; later answers are
// the truth.
func Once(l Lie) Lie {
	var mu sync.Mutex
	done := false
	return func(req Request, result json.RawMessage) (json.RawMessage, bool) {
		mu.Lock()
		defer mu.Unlock()
		if done {
			return result, false
		}
		out, lied := l(req, result)
		done = lied
		return out, lied
	}
}

// ReceiptLogs (eth_getTransactionReceipt) rewrites the logs of the
// receipts match selects (by the transaction hash, 0x-hex) with f.
func ReceiptLogs(match func(tx string) bool, f func([]Log) []Log) Lie {
	return func(_ Request, result json.RawMessage) (json.RawMessage, bool) {
		var rc map[string]json.RawMessage
		if err := json.Unmarshal(result, &rc); err != nil || rc == nil {
			return result, false
		}
		var tx string
		_ = json.Unmarshal(rc["transactionHash"], &tx)
		if !match(tx) {
			return result, false
		}
		var logs []Log
		_ = json.Unmarshal(rc["logs"], &logs)
		out := f(logs)
		if out == nil {
			out = []Log{}
		}
		b, err := json.Marshal(out)
		if err != nil {
			return result, false
		}
		rc["logs"] = b
		full, err := json.Marshal(rc)
		if err != nil {
			return result, false
		}
		return full, true
	}
}

// AnyTx matches every transaction.
func AnyTx(string) bool { return true }

// CallResult (eth_call) answers result (0x-hex ABI data) to calls whose
// data starts with selector (0x and 8 hex digits) and contains every one
// of args (hex without 0x, e.g. an address's 40 digits or a job ID's 64),
// any case.
func CallResult(selector string, result string, args ...string) Lie {
	return func(req Request, res json.RawMessage) (json.RawMessage, bool) {
		var call struct {
			Data  string `json:"data"`
			Input string `json:"input"`
		}
		if !req.Param(0, &call) {
			return res, false
		}
		data := strings.ToLower(call.Input)
		if data == "" {
			data = strings.ToLower(call.Data)
		}
		if !strings.HasPrefix(data, strings.ToLower(selector)) {
			return res, false
		}
		for _, a := range args {
			if !strings.Contains(data, strings.ToLower(strings.TrimPrefix(a, "0x"))) {
				return res, false
			}
		}
		b, _ := json.Marshal(result)
		return b, true
	}
}

// BlockBehind (eth_blockNumber) reports the head n blocks lower than it
// is (not below 0): a head going backwards.
func BlockBehind(n uint64) Lie {
	return func(_ Request, result json.RawMessage) (json.RawMessage, bool) {
		var s string
		if json.Unmarshal(result, &s) != nil {
			return result, false
		}
		v, ok := new(big.Int).SetString(strings.TrimPrefix(s, "0x"), 16)
		if !ok || v.Sign() == 0 {
			return result, false
		}
		v.Sub(v, new(big.Int).SetUint64(n))
		if v.Sign() < 0 {
			v.SetUint64(0)
		}
		b, _ := json.Marshal(fmt.Sprintf("0x%x", v))
		return b, true
	}
}

// Huge answers a JSON string of n bytes instead of the result.
func Huge(n int) Lie {
	return func(_ Request, _ json.RawMessage) (json.RawMessage, bool) {
		b := make([]byte, 0, n+2)
		b = append(b, '"')
		b = append(b, strings.Repeat("0", n)...)
		b = append(b, '"')
		return b, true
	}
}
