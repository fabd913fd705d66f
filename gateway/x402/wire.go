package x402

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/swarmwage/swarmwage/escrow/evm"
)

// The x402 v2 wire format, as @x402/core 2.27.0 writes and reads it: each
// header is standard base64 (with padding) of UTF-8 JSON.

// Header names (x402 v2 HTTP transport).
const (
	HeaderPaymentRequired  = "PAYMENT-REQUIRED"
	HeaderPaymentSignature = "PAYMENT-SIGNATURE"
	HeaderPaymentResponse  = "PAYMENT-RESPONSE"
)

// Version is the x402 protocol version this door speaks.
const Version = 2

// SchemeExact is the payment scheme: the exact amount, by an EIP-3009
// authorization on EVM chains.
const SchemeExact = "exact"

// AssetTransferMethodEIP3009 is extra.assetTransferMethod of the accepted
// requirements: the client signs TransferWithAuthorization (not Permit2).
const AssetTransferMethodEIP3009 = "eip3009"

const (
	// MaxSignatureHeader bounds a PAYMENT-SIGNATURE header (base64): the
	// client's payload is about 1.5 KB; more is not a payment.
	MaxSignatureHeader = 8 << 10
	// maxSignatureJSON bounds the decoded payload.
	maxSignatureJSON = MaxSignatureHeader * 3 / 4
	// maxFieldLen bounds each string field a payload may carry.
	maxFieldLen = 256
)

// ResourceInfo names what is paid for.
type ResourceInfo struct {
	URL         string `json:"url"`
	Description string `json:"description,omitempty"`
	MimeType    string `json:"mimeType,omitempty"`
}

// Requirements is one way to pay (PaymentRequirements in x402 v2).
type Requirements struct {
	Scheme            string `json:"scheme"`
	Network           string `json:"network"`
	Asset             string `json:"asset"`
	Amount            string `json:"amount"`
	PayTo             string `json:"payTo"`
	MaxTimeoutSeconds int64  `json:"maxTimeoutSeconds"`
	Extra             Extra  `json:"extra"`
}

// Extra is what an exact EVM client needs besides the requirements' core:
// the token's EIP-712 domain name and version, and how to transfer.
type Extra struct {
	Name                string `json:"name"`
	Version             string `json:"version"`
	AssetTransferMethod string `json:"assetTransferMethod,omitempty"`
}

// PaymentRequired is the PAYMENT-REQUIRED header's document.
type PaymentRequired struct {
	X402Version int            `json:"x402Version"`
	Error       string         `json:"error,omitempty"`
	Resource    ResourceInfo   `json:"resource"`
	Accepts     []Requirements `json:"accepts"`
}

// PaymentPayload is the PAYMENT-SIGNATURE header's document: the
// requirements the client accepted and its signed authorization.
type PaymentPayload struct {
	X402Version int             `json:"x402Version"`
	Resource    *ResourceInfo   `json:"resource,omitempty"`
	Accepted    Requirements    `json:"accepted"`
	Payload     ExactEVMPayload `json:"payload"`
}

// ExactEVMPayload is the exact scheme's EIP-3009 payload.
type ExactEVMPayload struct {
	Signature     string        `json:"signature"`
	Authorization Authorization `json:"authorization"`
}

// Authorization is the EIP-3009 authorization as JSON: addresses in hex,
// amounts and times as decimal strings, the nonce as 0x and 64 hex digits.
type Authorization struct {
	From        string `json:"from"`
	To          string `json:"to"`
	Value       string `json:"value"`
	ValidAfter  string `json:"validAfter"`
	ValidBefore string `json:"validBefore"`
	Nonce       string `json:"nonce"`
}

// SettleResponse is the PAYMENT-RESPONSE header's document.
type SettleResponse struct {
	Success      bool   `json:"success"`
	ErrorReason  string `json:"errorReason,omitempty"`
	ErrorMessage string `json:"errorMessage,omitempty"`
	Payer        string `json:"payer,omitempty"`
	Transaction  string `json:"transaction"`
	Network      string `json:"network"`
	Amount       string `json:"amount,omitempty"`
}

// Payment is a decoded, well-formed PAYMENT-SIGNATURE: the accepted
// requirements and the authorization with its signature. It is not yet
// checked against the node's terms, the signature or the chain.
type Payment struct {
	Accepted      Requirements
	Authorization evm.Authorization
	Signature     []byte
}

var (
	// ErrMalformed: a payment header is not base64 JSON of the expected
	// shape.
	ErrMalformed = errors.New("x402: malformed payment header")

	base64Re  = regexp.MustCompile(`^[A-Za-z0-9+/]*={0,2}$`)
	decimalRe = regexp.MustCompile(`^(0|[1-9][0-9]{0,77})$`)
)

// maxUint256 bounds every decimal in an authorization.
var maxUint256 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))

// EncodeHeader is base64(JSON(v)), the form of every x402 header.
func EncodeHeader(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("encode x402 header: %w", err)
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

// decodeHeader decodes base64 JSON of at most limit bytes into v, refusing
// unknown fields nowhere (clients add extensions) but trailing data.
func decodeHeader(h string, limit int, v any) error {
	h = strings.TrimSpace(h)
	if len(h) > limit {
		return fmt.Errorf("%w: %d bytes, at most %d", ErrMalformed, len(h), limit)
	}
	if h == "" || !base64Re.MatchString(h) {
		return fmt.Errorf("%w: not standard base64", ErrMalformed)
	}
	raw, err := base64.StdEncoding.DecodeString(h)
	if err != nil {
		// Clients pad; some strip the padding.
		if raw, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(h, "=")); err != nil {
			return fmt.Errorf("%w: base64: %v", ErrMalformed, err)
		}
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: JSON: %v", ErrMalformed, err)
	}
	if dec.More() {
		return fmt.Errorf("%w: data after the JSON document", ErrMalformed)
	}
	return nil
}

// DecodePaymentSignature decodes a PAYMENT-SIGNATURE header and checks its
// form: x402 version 2, every field present and within its limits, hex
// addresses and nonce, decimal amounts and times within uint256, a 65-byte
// signature. Errors wrap ErrMalformed and say which field is wrong.
func DecodePaymentSignature(h string) (Payment, error) {
	var p PaymentPayload
	if err := decodeHeader(h, MaxSignatureHeader, &p); err != nil {
		return Payment{}, err
	}
	if p.X402Version != Version {
		return Payment{}, fmt.Errorf("%w: x402Version %d, this server speaks %d", ErrMalformed, p.X402Version, Version)
	}
	acc := p.Accepted
	for name, v := range map[string]string{"accepted.scheme": acc.Scheme, "accepted.network": acc.Network,
		"accepted.asset": acc.Asset, "accepted.amount": acc.Amount, "accepted.payTo": acc.PayTo} {
		if v == "" || len(v) > maxFieldLen {
			return Payment{}, fmt.Errorf("%w: %s missing or longer than %d", ErrMalformed, name, maxFieldLen)
		}
	}
	if len(acc.Extra.Name) > maxFieldLen || len(acc.Extra.Version) > maxFieldLen || len(acc.Extra.AssetTransferMethod) > maxFieldLen {
		return Payment{}, fmt.Errorf("%w: accepted.extra field longer than %d", ErrMalformed, maxFieldLen)
	}
	a := p.Payload.Authorization
	from, err := parseAddress("payload.authorization.from", a.From)
	if err != nil {
		return Payment{}, err
	}
	to, err := parseAddress("payload.authorization.to", a.To)
	if err != nil {
		return Payment{}, err
	}
	out := Payment{Accepted: acc, Authorization: evm.Authorization{From: from, To: to}}
	for _, f := range []struct {
		name string
		s    string
		dst  **big.Int
	}{
		{"value", a.Value, &out.Authorization.Value},
		{"validAfter", a.ValidAfter, &out.Authorization.ValidAfter},
		{"validBefore", a.ValidBefore, &out.Authorization.ValidBefore},
	} {
		v, err := parseUint256("payload.authorization."+f.name, f.s)
		if err != nil {
			return Payment{}, err
		}
		*f.dst = v
	}
	nonce, err := hexutil.Decode(a.Nonce)
	if err != nil || len(nonce) != 32 {
		return Payment{}, fmt.Errorf("%w: payload.authorization.nonce: want 0x and 64 hex digits", ErrMalformed)
	}
	copy(out.Authorization.Nonce[:], nonce)
	sig, err := hexutil.Decode(p.Payload.Signature)
	if err != nil || len(sig) != 65 {
		return Payment{}, fmt.Errorf("%w: payload.signature: want 0x and 130 hex digits (a 65-byte ECDSA signature; contract-wallet signatures are not taken)", ErrMalformed)
	}
	out.Signature = sig
	if _, err := parseUint256("accepted.amount", acc.Amount); err != nil {
		return Payment{}, err
	}
	return out, nil
}

// DecodePaymentRequired decodes a PAYMENT-REQUIRED header (what a client
// reads; the tests use it).
func DecodePaymentRequired(h string) (PaymentRequired, error) {
	var p PaymentRequired
	if err := decodeHeader(h, 64<<10, &p); err != nil {
		return PaymentRequired{}, err
	}
	if p.X402Version != Version {
		return PaymentRequired{}, fmt.Errorf("%w: x402Version %d", ErrMalformed, p.X402Version)
	}
	return p, nil
}

// DecodeSettleResponse decodes a PAYMENT-RESPONSE header.
func DecodeSettleResponse(h string) (SettleResponse, error) {
	var s SettleResponse
	if err := decodeHeader(h, 8<<10, &s); err != nil {
		return SettleResponse{}, err
	}
	return s, nil
}

func parseAddress(name, s string) (common.Address, error) {
	if !common.IsHexAddress(s) || !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") {
		return common.Address{}, fmt.Errorf("%w: %s: want 0x and 40 hex digits", ErrMalformed, name)
	}
	a := common.HexToAddress(s)
	if a == (common.Address{}) {
		return common.Address{}, fmt.Errorf("%w: %s is the zero address", ErrMalformed, name)
	}
	return a, nil
}

func parseUint256(name, s string) (*big.Int, error) {
	if !decimalRe.MatchString(s) {
		return nil, fmt.Errorf("%w: %s: want a decimal integer string", ErrMalformed, name)
	}
	v, ok := new(big.Int).SetString(s, 10)
	if !ok || v.Cmp(maxUint256) > 0 {
		return nil, fmt.Errorf("%w: %s out of uint256 range", ErrMalformed, name)
	}
	return v, nil
}

// Network is the CAIP-2 name of an EVM chain: eip155:<chain id>.
func Network(chainID int64) string { return fmt.Sprintf("eip155:%d", chainID) }
