package x402

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"
)

// clientHeader has the shape and field order of a PAYMENT-SIGNATURE as
// @x402/fetch 2.27.0 sends it (x402Version, payload, resource, accepted;
// see @x402/core's x402Client.createPaymentPayload), with a made-up
// signature: the form the decoder must take.
const clientHeader = `eyJ4NDAyVmVyc2lvbiI6MiwicGF5bG9hZCI6eyJhdXRob3JpemF0aW9uIjp7ImZyb20iOiIweGYzOUZkNmU1MWFhZDg4RjZGNGNlNmFCODgyNzI3OWNmZkZiOTIyNjYiLCJ0byI6IjB4NzA5OTc5NzBDNTE4MTJkYzNBMDEwQzdkMDFiNTBlMGQxN2RjNzlDOCIsInZhbHVlIjoiMTA1MCIsInZhbGlkQWZ0ZXIiOiIwIiwidmFsaWRCZWZvcmUiOiIxNzY0NjI3MjAwIiwibm9uY2UiOiIweDAxMDIwMzA0MDUwNjA3MDgwOTBhMGIwYzBkMGUwZjEwMTExMjEzMTQxNTE2MTcxODE5MWExYjFjMWQxZTFmMjAifSwic2lnbmF0dXJlIjoiMHgxMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjFiIn0sInJlc291cmNlIjp7InVybCI6Imh0dHA6Ly8xMjcuMC4wLjE6MTIzNC94NDAyL2NvbXB1dGUuc3RhdGlzdGljcy5tZWFuIiwibWltZVR5cGUiOiJhcHBsaWNhdGlvbi9qc29uIn0sImFjY2VwdGVkIjp7InNjaGVtZSI6ImV4YWN0IiwibmV0d29yayI6ImVpcDE1NTozMTMzNyIsImFzc2V0IjoiMHg1RmJEQjIzMTU2NzhhZmVjYjM2N2YwMzJkOTNGNjQyZjY0MTgwYWEzIiwiYW1vdW50IjoiMTA1MCIsInBheVRvIjoiMHg3MDk5Nzk3MEM1MTgxMmRjM0EwMTBDN2QwMWI1MGUwZDE3ZGM3OUM4IiwibWF4VGltZW91dFNlY29uZHMiOjkwLCJleHRyYSI6eyJuYW1lIjoiU3dhcm13YWdlIFRlc3QgVVNEIiwidmVyc2lvbiI6IjIiLCJhc3NldFRyYW5zZmVyTWV0aG9kIjoiZWlwMzAwOSJ9fX0=`

func TestDecodePaymentSignature(t *testing.T) {
	p, err := DecodePaymentSignature(clientHeader)
	require.NoError(t, err)
	require.Equal(t, "exact", p.Accepted.Scheme)
	require.Equal(t, "eip155:31337", p.Accepted.Network)
	require.Equal(t, "1050", p.Authorization.Value.String())
	require.Equal(t, int64(1764627200), p.Authorization.ValidBefore.Int64())
	require.Equal(t, byte(0x01), p.Authorization.Nonce[0])
	require.Len(t, p.Signature, 65)
	require.Equal(t, "Swarmwage Test USD", p.Accepted.Extra.Name)

	enc := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	valid, err := base64.StdEncoding.DecodeString(clientHeader)
	require.NoError(t, err)
	testCases := []struct {
		name, header, want string
	}{
		{"empty", "", "not standard base64"},
		{"not base64", "@@@", "not standard base64"},
		{"url-safe base64", strings.NewReplacer("+", "-", "/", "_").Replace(enc(`{"x402Version":2,"a":"???>>>"}`)), "not standard base64"},
		{"not JSON", enc("hello"), "JSON"},
		{"trailing data", enc(string(valid) + " {}"), "data after"},
		{"version 1", enc(`{"x402Version":1}`), "x402Version 1"},
		{"no accepted", enc(`{"x402Version":2}`), "missing"},
		{"too large", strings.Repeat("A", MaxSignatureHeader+1), "at most"},
		{"bad nonce", enc(strings.Replace(string(valid), `"nonce":"0x01`, `"nonce":"0x`, 1)), "nonce"},
		{"bad value", enc(strings.Replace(string(valid), `"value":"1050"`, `"value":"-1"`, 1)), "value"},
		{"value over uint256", enc(strings.Replace(string(valid), `"value":"1050"`, `"value":"`+strings.Repeat("9", 78)+`"`, 1)), "uint256"},
		{"leading zero", enc(strings.Replace(string(valid), `"value":"1050"`, `"value":"01050"`, 1)), "decimal"},
		{"short signature", enc(strings.Replace(string(valid), `1b"}`, `"}`, 1)), "signature"},
		{"zero from", enc(strings.Replace(string(valid), `"from":"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"`, `"from":"0x0000000000000000000000000000000000000000"`, 1)), "zero address"},
		{"from without 0x", enc(strings.Replace(string(valid), `"from":"0x`, `"from":"`, 1)), "from"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodePaymentSignature(tc.header)
			require.Error(t, err)
			require.True(t, errors.Is(err, ErrMalformed), "%v", err)
			require.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestHeaderRoundTrip(t *testing.T) {
	key, err := crypto.GenerateKey()
	require.NoError(t, err)
	c := newFakeChain(crypto.PubkeyToAddress(key.PublicKey))
	req := Requirements{Scheme: "exact", Network: "eip155:31337", Asset: c.terms.Domain.Token.Hex(), Amount: "7", PayTo: c.terms.PayTo.Hex(), MaxTimeoutSeconds: 90}
	h := signPayment(t, key, c.terms.Domain, req, time.Now(), nil)
	p, err := DecodePaymentSignature(h)
	require.NoError(t, err)
	require.Equal(t, req, p.Accepted)
	s, err := EncodeHeader(SettleResponse{Success: true, Transaction: "0xab", Network: "eip155:1"})
	require.NoError(t, err)
	sr, err := DecodeSettleResponse(s)
	require.NoError(t, err)
	require.True(t, sr.Success)
}

func FuzzDecodePaymentSignature(f *testing.F) {
	f.Add(clientHeader)
	f.Add("")
	f.Add("e30=")
	f.Add(base64.StdEncoding.EncodeToString([]byte(`{"x402Version":2,"accepted":{},"payload":{"authorization":{}}}`)))
	f.Fuzz(func(t *testing.T, h string) {
		p, err := DecodePaymentSignature(h)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		if len(p.Signature) != 65 || p.Authorization.Value == nil || p.Authorization.ValidBefore == nil || p.Authorization.ValidAfter == nil {
			t.Fatalf("accepted an incomplete payment: %+v", p)
		}
		if p.Authorization.Value.BitLen() > 256 || p.Authorization.Value.Sign() < 0 {
			t.Fatalf("value out of range: %s", p.Authorization.Value)
		}
	})
}

func FuzzDecodePaymentRequired(f *testing.F) {
	pr, _ := EncodeHeader(PaymentRequired{X402Version: 2, Accepts: []Requirements{{Scheme: "exact"}}})
	f.Add(pr)
	f.Add("")
	f.Fuzz(func(t *testing.T, h string) {
		if _, err := DecodePaymentRequired(h); err != nil && !errors.Is(err, ErrMalformed) {
			t.Fatalf("error %v does not wrap ErrMalformed", err)
		}
	})
}

func FuzzDecodeSettleResponse(f *testing.F) {
	sr, _ := EncodeHeader(SettleResponse{Success: true, Transaction: "0x01", Network: "eip155:1"})
	f.Add(sr)
	f.Add("")
	f.Fuzz(func(t *testing.T, h string) {
		if _, err := DecodeSettleResponse(h); err != nil && !errors.Is(err, ErrMalformed) {
			t.Fatalf("error %v does not wrap ErrMalformed", err)
		}
	})
}
