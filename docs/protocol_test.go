package docs_test

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"math/big"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	ethcrypto "github.com/ethereum/go-ethereum/crypto"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/dht"
	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/escrow/evm"
	"github.com/swarmwage/swarmwage/gateway/x402"
	"github.com/swarmwage/swarmwage/internal/canon"
	"github.com/swarmwage/swarmwage/market"
)

var update = flag.Bool("update", false, "rewrite the vectors in protocol.md")

// seedKey is the Ed25519 key of a 32-byte seed of b.
func seedKey(t *testing.T, b byte) (crypto.PrivKey, peer.ID) {
	t.Helper()
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{b}, ed25519.SeedSize))
	key, err := crypto.UnmarshalEd25519PrivateKey(priv)
	require.NoError(t, err)
	id, err := peer.IDFromPrivateKey(key)
	require.NoError(t, err)
	return key, id
}

func sign(t *testing.T, key crypto.PrivKey, body []byte) []byte {
	t.Helper()
	sig, err := key.Sign(body)
	require.NoError(t, err)
	return sig
}

// vectors computes every vector of protocol.md from the implementation,
// and checks that the implementation verifies what it signed.
func vectors(t *testing.T) map[string]string {
	buyerKey, buyer := seedKey(t, 1)
	sellerKey, seller := seedKey(t, 2)
	at := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	out := map[string]string{}

	key, err := dht.Key("amino", "text.summarize.short")
	require.NoError(t, err)
	out["dht-key"] = "network: amino\ncapability: text.summarize.short\nkey: " + key.String()

	signer := func(who string, seed byte, id peer.ID) string {
		return fmt.Sprintf("signer: %s, Ed25519 seed %02x..%02x (32 bytes), peer %s", who, seed, seed, id)
	}
	sellerLine, buyerLine := signer("seller", 2, seller), signer("buyer", 1, buyer)

	l0 := market.Listing{
		Version: 1, Capability: "compute.statistics.mean", Price: 10_000, Handler: market.HandlerBuiltin, Seller: seller, CreatedAt: at,
		Terms: &market.ListingTerms{WindowMS: 600_000, MaxDurationMS: 300_000},
	}
	sl, err := market.SignListing(sellerKey, l0)
	require.NoError(t, err)
	require.NoError(t, sl.VerifyAt(seller, "compute.statistics.mean", at))
	lb, err := canon.Body(market.TypeListing, sl.Listing)
	require.NoError(t, err)
	out["listing"] = sellerLine + "\nsigning bytes: " + string(lb) + "\nsignature: " + sl.Signature

	q := market.Quote{
		Type: market.TypeQuote, Version: 1, QuoteID: "q1", Capability: "compute.statistics.mean", Price: 10_000,
		Seller: seller, Buyer: buyer, CreatedAt: at.Format(time.RFC3339Nano), ExpiresAt: at.Add(5 * time.Minute).Format(time.RFC3339Nano),
		WindowMS: 600_000, MaxDurationMS: 300_000,
	}
	qb, err := canon.Body(market.TypeQuote, q)
	require.NoError(t, err)
	qsig := base64.StdEncoding.EncodeToString(sign(t, sellerKey, qb))
	require.NoError(t, market.SignedQuote{Quote: q, Signature: qsig}.Verify(seller, buyer, "compute.statistics.mean", at))
	out["quote"] = sellerLine + "\nsigning bytes: " + string(qb) + "\nsignature: " + qsig

	// The same listing and quote as a release before type tags signed them:
	// accepted until canon.UntaggedUntil.
	ul := sl.Listing
	ul.Type = ""
	ulb, err := canon.LegacyBody(ul)
	require.NoError(t, err)
	ulsig := base64.StdEncoding.EncodeToString(sign(t, sellerKey, ulb))
	untaggedListing := market.SignedListing{Listing: ul, Signature: ulsig}
	require.NoError(t, untaggedListing.VerifyAt(seller, "compute.statistics.mean", at))
	require.Error(t, untaggedListing.VerifyAt(seller, "compute.statistics.mean", untaggedCutoff(t)))
	out["listing-untagged"] = sellerLine + "\nsigning bytes: " + string(ulb) + "\nsignature: " + ulsig
	uq := q
	uq.Type = ""
	uqb, err := canon.LegacyBody(uq)
	require.NoError(t, err)
	uqsig := base64.StdEncoding.EncodeToString(sign(t, sellerKey, uqb))
	require.NoError(t, market.SignedQuote{Quote: uq, Signature: uqsig}.Verify(seller, buyer, "compute.statistics.mean", at))
	out["quote-untagged"] = sellerLine + "\nsigning bytes: " + string(uqb) + "\nsignature: " + uqsig

	input := []byte(`{"data":[1,2,3]}`)
	l := &escrow.Lock{
		JobID: "job-1", QuoteID: "q1", Capability: "compute.statistics.mean", Buyer: buyer, Seller: seller,
		Amount: 50_000, Deadline: at.Add(10 * time.Minute), Window: time.Minute, CreatedAt: at, InputHash: escrow.HashHex(input),
	}
	lkb, err := l.SigningBytes()
	require.NoError(t, err)
	l.Signature = sign(t, buyerKey, lkb)
	require.NoError(t, l.Verify())
	out["lock"] = buyerLine + "\ninput: " + string(input) + "\nsigning bytes: " + string(lkb) + "\nsignature: " + base64.StdEncoding.EncodeToString(l.Signature)

	output := []byte(`{"result":2}`)
	d := &escrow.Delivery{JobID: "job-1", OutputHash: escrow.HashHex(output), Seller: seller, DeliveredAt: at.Add(time.Second)}
	db, err := d.SigningBytes()
	require.NoError(t, err)
	d.Signature = sign(t, sellerKey, db)
	require.NoError(t, d.Verify())
	out["delivery"] = sellerLine + "\noutput: " + string(output) + "\nsigning bytes: " + string(db) + "\nsignature: " + base64.StdEncoding.EncodeToString(d.Signature)

	s := &escrow.Settle{JobID: "job-1", Decision: escrow.DecisionRelease, Amount: 50_000, Buyer: buyer, At: at.Add(2 * time.Second)}
	sb, err := s.SigningBytes()
	require.NoError(t, err)
	s.Signature = sign(t, buyerKey, sb)
	require.NoError(t, s.Verify())
	out["settle"] = buyerLine + "\nsigning bytes: " + string(sb) + "\nsignature: " + base64.StdEncoding.EncodeToString(s.Signature)

	r := escrow.Receipt{Lock: l, Delivery: d, Settle: s, Rail: escrow.RailCredits, Input: input, Output: output}
	require.NoError(t, r.Check(), "the vectors make one receipt that checks out")
	out["payment-evm"], out["lock-rail"], out["settle-rail"] = evmPaymentVector(t, buyerKey, l, d, s)
	out["lock-rail"] = buyerLine + "\n" + out["lock-rail"]
	out["settle-rail"] = buyerLine + "\n" + out["settle-rail"]
	out["listing-served"] = sellerLine + "\n" + listingVector(t, sellerKey, seller, at)
	out["job-quote"], out["job-request"], out["job-events"] = jobVectors(t, buyerKey, sellerKey, buyer, seller, at)
	out["payment-signature"] = x402PaymentVector(t)
	return out
}

// x402PaymentVector is a PAYMENT-SIGNATURE for USDC on Base: the EIP-3009
// TransferWithAuthorization an x402 client signs, and the header the door
// decodes and checks.
func x402PaymentVector(t *testing.T) string {
	priv, err := ethcrypto.HexToECDSA(strings.Repeat("03", 32))
	require.NoError(t, err)
	from := ethcrypto.PubkeyToAddress(priv.PublicKey)
	dom := evm.TokenDomain{Name: "USD Coin", Version: "2", ChainID: big.NewInt(8453), Token: common.HexToAddress("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913")}
	payTo := common.HexToAddress("0x5050A4F4b3f9338C3472dcC01A87C76A144b3c9c")
	var nonce [32]byte
	copy(nonce[:], bytes.Repeat([]byte{7}, 32))
	a := evm.Authorization{From: from, To: payTo, Value: big.NewInt(50_050), ValidAfter: big.NewInt(0), ValidBefore: big.NewInt(1795954320), Nonce: nonce}
	sep, err := dom.Separator()
	require.NoError(t, err)
	digest, err := dom.Digest(a)
	require.NoError(t, err)
	sig, err := ethcrypto.Sign(digest[:], priv)
	require.NoError(t, err)
	sig[64] += 27
	require.NoError(t, evm.CheckAuthorizationSignature(dom, a, sig))
	req := x402.Requirements{Scheme: x402.SchemeExact, Network: x402.Network(8453), Asset: dom.Token.Hex(), Amount: "50050", PayTo: payTo.Hex(),
		MaxTimeoutSeconds: 90, Extra: x402.Extra{Name: dom.Name, Version: dom.Version, AssetTransferMethod: x402.AssetTransferMethodEIP3009}}
	header, err := x402.EncodeHeader(x402.PaymentPayload{X402Version: x402.Version, Accepted: req, Payload: x402.ExactEVMPayload{
		Signature: "0x" + common.Bytes2Hex(sig),
		Authorization: x402.Authorization{From: from.Hex(), To: payTo.Hex(), Value: "50050", ValidAfter: "0", ValidBefore: "1795954320",
			Nonce: "0x" + common.Bytes2Hex(nonce[:])},
	}})
	require.NoError(t, err)
	got, err := x402.DecodePaymentSignature(header)
	require.NoError(t, err)
	require.Equal(t, a, got.Authorization)
	raw, err := base64.StdEncoding.DecodeString(header)
	require.NoError(t, err)
	return "payer evm key: 0x" + strings.Repeat("03", 32) + " (" + from.Hex() + ")\n" +
		"domain: name \"USD Coin\", version \"2\", chain 8453, token " + dom.Token.Hex() + "\n" +
		"domain separator: " + sep.Hex() + "\n" +
		"digest: " + digest.Hex() + "\n" +
		"signature: 0x" + common.Bytes2Hex(sig) + "\n" +
		"PAYMENT-SIGNATURE JSON: " + string(raw) + "\n" +
		"PAYMENT-SIGNATURE: " + header
}

// evmPaymentVector is the same job on the evm rail: its lock and release
// vouchers and the payment proof of its receipt, which checks out against
// the receipt's signed messages.
func evmPaymentVector(t *testing.T, buyerKey crypto.PrivKey, l2 *escrow.Lock, d *escrow.Delivery, s1 *escrow.Settle) (payment, lock, settle string) {
	bk, err := evm.ParseKey(strings.Repeat("01", 32))
	require.NoError(t, err)
	sk, err := evm.ParseKey(strings.Repeat("02", 32))
	require.NoError(t, err)
	dom := evm.Domain{ChainID: big.NewInt(8453), Escrow: common.HexToAddress("0x5757575757575757575757575757575757575757")}
	notBefore := l2.Deadline.Add(l2.Window).Add(time.Minute)
	v := &evm.Lock{JobID: evm.JobID(l2.JobID), Buyer: bk.Address(), Seller: sk.Address(), Amount: l2.Amount, NotBefore: uint64(notBefore.Unix())}
	require.NoError(t, dom.SignLock(bk, v))
	vb, err := json.Marshal(v)
	require.NoError(t, err)
	l := *l2
	l.Rail, l.BuyerAddress, l.SellerAddress, l.NotBefore, l.RailProof = escrow.RailEVM, bk.Address().Hex(), sk.Address().Hex(), notBefore, vb
	lb, err := l.SigningBytes()
	require.NoError(t, err)
	l.Signature = sign(t, buyerKey, lb)
	require.NoError(t, l.Verify())
	rel := &evm.Release{JobID: v.JobID, Buyer: v.Buyer, Seller: v.Seller, Amount: v.Amount}
	require.NoError(t, dom.SignRelease(bk, rel))
	rb, err := json.Marshal(rel)
	require.NoError(t, err)
	s := *s1
	s.Rail, s.RailProof = escrow.RailEVM, rb
	sb, err := s.SigningBytes()
	require.NoError(t, err)
	s.Signature = sign(t, buyerKey, sb)
	require.NoError(t, s.Verify())
	p := evm.Payment{Outcome: escrow.RailPaid, ChainID: 8453, Escrow: dom.Escrow, JobID: v.JobID, Buyer: v.Buyer, Seller: v.Seller,
		Amount: v.Amount, Tx: common.HexToHash("0x" + strings.Repeat("ab", 32)), Block: 24_000_000}
	pb, err := p.MarshalJSON()
	require.NoError(t, err)
	r := escrow.Receipt{Lock: &l, Delivery: d, Settle: &s, Rail: escrow.RailEVM, Payment: pb}
	require.NoError(t, r.Check())
	got, err := evm.ReceiptPayment(&r)
	require.NoError(t, err, "the payment is the receipt's")
	require.Equal(t, p, *got)
	return "buyer evm key: 0x" + strings.Repeat("01", 32) + " (" + bk.Address().Hex() + ")\n" +
			"seller evm key: 0x" + strings.Repeat("02", 32) + " (" + sk.Address().Hex() + ")\n" +
			"domain: chain 8453, escrow " + dom.Escrow.Hex() + "\n" +
			"lock rail_proof: " + string(vb) + "\n" +
			"settle rail_proof: " + string(rb) + "\n" +
			"payment: " + string(pb),
		"signing bytes: " + string(lb) + "\nsignature: " + base64.StdEncoding.EncodeToString(l.Signature),
		"signing bytes: " + string(sb) + "\nsignature: " + base64.StdEncoding.EncodeToString(s.Signature)
}

func untaggedCutoff(t *testing.T) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339, canon.UntaggedUntil)
	require.NoError(t, err)
	return at
}

var vectorRE = regexp.MustCompile("(?s)<!-- vector: ([a-z-]+) -->\n```\n(.*?)\n```")

// TestProtocolVectors: every vector in protocol.md is what the
// implementation computes. A change here is a breaking change of the wire
// protocol.
func TestProtocolVectors(t *testing.T) {
	doc, err := os.ReadFile("protocol.md")
	require.NoError(t, err)
	want := vectors(t)
	found := map[string]bool{}
	updated := vectorRE.ReplaceAllStringFunc(string(doc), func(block string) string {
		m := vectorRE.FindStringSubmatch(block)
		name, got := m[1], m[2]
		found[name] = true
		v, ok := want[name]
		if !ok {
			t.Errorf("protocol.md has a vector %q the test does not know", name)
			return block
		}
		if !*update {
			require.Equal(t, v, got, "vector %s in protocol.md", name)
		}
		return fmt.Sprintf("<!-- vector: %s -->\n```\n%s\n```", name, v)
	})
	for name := range want {
		require.True(t, found[name], "protocol.md lacks vector %s", name)
	}
	if *update {
		require.NoError(t, os.WriteFile("protocol.md", []byte(updated), 0o644))
	}
	require.False(t, strings.Contains(updated, "signature: -"), "every vector is filled in")
}

var (
	signerRE  = regexp.MustCompile(`(?m)^signer: \w+, Ed25519 seed [0-9a-f]{2}\.\.[0-9a-f]{2} \(32 bytes\), peer (\S+)$`)
	bytesRE   = regexp.MustCompile(`(?m)^signing bytes: (.*)$`)
	sigLineRE = regexp.MustCompile(`(?m)^signature: (\S+)$`)
	typeRE    = regexp.MustCompile(`^\{.*"type":"([^"]+)"`)
)

// TestSignedMessageVectors: protocol.md has a vector for every kind of
// signed message (each tag of canon.SignedTags), and each vector's
// signature, read from the document, verifies over its signing bytes by its
// signer's peer ID, and over no other vector's bytes.
func TestSignedMessageVectors(t *testing.T) {
	doc, err := os.ReadFile("protocol.md")
	require.NoError(t, err)
	type vector struct {
		name      string
		signer    peer.ID
		body, sig []byte
		tag       string
	}
	var vs []vector
	for _, m := range vectorRE.FindAllStringSubmatch(string(doc), -1) {
		name, text := m[1], m[2]
		b, sg := bytesRE.FindStringSubmatch(text), sigLineRE.FindStringSubmatch(text)
		if b == nil {
			continue
		}
		who := signerRE.FindStringSubmatch(text)
		require.NotNil(t, who, "vector %s names its signer", name)
		require.NotNil(t, sg, "vector %s has a signature", name)
		id, err := peer.Decode(who[1])
		require.NoError(t, err, "vector %s", name)
		sig, err := base64.StdEncoding.DecodeString(sg[1])
		require.NoError(t, err, "vector %s", name)
		v := vector{name: name, signer: id, body: []byte(b[1]), sig: sig}
		if tm := typeRE.FindStringSubmatch(b[1]); tm != nil && !strings.HasSuffix(name, "-untagged") {
			v.tag = tm[1]
		}
		vs = append(vs, v)
	}
	tags := map[string]string{}
	for _, v := range vs {
		require.NoError(t, canon.Verify(v.signer, v.body, v.sig), "vector %s verifies", v.name)
		if v.tag != "" {
			got, err := canon.JSONBytes(v.body)
			require.NoError(t, err)
			require.Equal(t, string(got), string(v.body), "vector %s: the signing bytes are stable JSON", v.name)
			tags[v.tag] = v.name
		}
		for _, o := range vs {
			if o.name != v.name {
				require.Error(t, canon.Verify(v.signer, o.body, v.sig), "the signature of %s does not verify over %s", v.name, o.name)
			}
		}
	}
	for _, tag := range canon.SignedTags() {
		require.Contains(t, tags, tag, "protocol.md has a vector of %s", tag)
	}
	for _, name := range []string{"listing-untagged", "quote-untagged"} {
		require.True(t, slices.ContainsFunc(vs, func(v vector) bool { return v.name == name }), "protocol.md has the vector %s", name)
	}
}
