// Package x402 is the x402 v2 door of a swarmwage node on the evm rail: an
// agent that speaks x402 (HTTP 402 payments, scheme "exact" with EIP-3009)
// but not swarmwage buys one verified job with one HTTP request, and pays
// only if the job's output passed the node's own verification.
//
// # Route
//
//	POST /x402/{capability}      body: the job's input (a JSON object, at most MaxBody)
//
// Without a PAYMENT-SIGNATURE header the answer is 402 with PAYMENT-REQUIRED
// (base64 JSON, x402Version 2): one accepted way to pay, scheme "exact",
// network "eip155:<chain id>", asset the rail's token, payTo the node's evm
// address, amount the best seller's price plus the gateway's fee (base units
// of the token), maxTimeoutSeconds the hire timeout plus the settle margin,
// extra {name, version, assetTransferMethod: "eip3009"} with the token's
// EIP-712 domain. An input the capability's schema refuses is 400 before
// any price; a capability without sellers is 404.
//
// With PAYMENT-SIGNATURE (base64 JSON PaymentPayload: accepted, payload.
// signature, payload.authorization{from,to,value,validAfter,validBefore,
// nonce}) the door checks, in order: the form (DecodePaymentSignature), the
// accepted terms against the node's (scheme, network, asset, payTo, value =
// accepted amount, more than the fee), the EIP-712 signature of the
// TransferWithAuthorization by from, the validity window (validAfter not in
// the future; validBefore leaves the settle margin and a minimum hire
// time), the nonce unused (authorizationState) and from's token balance. A
// refusal is 402 with PAYMENT-REQUIRED whose error names the reason as
// @x402/evm names it (invalid_exact_evm_signature, ...). Then it hires
// through the node's hire service (route, quote, lock from the node's own
// escrow deposit, run, verify, settle with the seller) with the maximum
// price value - fee and a timeout that ends a settle margin before
// validBefore.
//
// Only a job whose output passed verification is settled: the node submits
// transferWithAuthorization from its own evm key (it pays the gas) and
// answers 200 with {job_id, capability, seller, price, output,
// verification} and PAYMENT-RESPONSE {success: true, transaction, network,
// payer, amount}. A job that failed, timed out or whose output failed
// verification is never settled: the answer (502, 503 or 504) carries
// PAYMENT-RESPONSE {success: false, errorReason: the outcome, transaction:
// ""} and the client's balance is untouched (its authorization stays
// unused; it may cancel it or let it expire).
//
// # At most once
//
// Each authorization (chain, token, from, nonce) has one record in the
// node's Badger under x402/auth/ (keys.go layout in store.go), written
// with SyncWrites before anything that depends on it: "hiring" before the
// hire starts, "verified" (with the answer) before the settlement is sent,
// "settled" or "failed" (terminal) before the answer is written. A replay
// of a header gets the stored answer and starts no second job; a replay
// while the job runs waits for it. On restart (New) a "verified" record is
// settled (or found settled on chain: AuthorizationUsed) and a "hiring"
// record, whose outcome died with the process, becomes "failed" and is
// never settled: the client never pays for output it did not get.
//
// A settlement that fails while the authorization is still valid (chain
// down) answers 402 with PAYMENT-RESPONSE success false and stays
// "verified": the next replay or restart settles it. One that can no longer
// succeed (expired, canceled by the payer, balance moved away) is "failed";
// the node then paid the seller and got nothing, which is the gateway's
// risk, covered by its fee.
//
// The node fronts every job from its own escrow deposit and is repaid by
// the authorization: it needs a deposit and gas on the rail's chain. On
// Base the rail's token is USDC itself, which implements EIP-3009 with the
// same domain layout (name "USD Coin", version "2"); on a dev chain it is
// the TestStablecoin of 'swarmwage chain deploy --test-token' (name
// "Swarmwage Test USD", version "2").
//
// Limits: the body at most MaxBody (413) and read within the body timeout
// (DefaultBodyTimeout, 408); PAYMENT-SIGNATURE at most MaxSignatureHeader
// (431); each chain read of a check chainTimeout; the hire its timeout, cut
// to end a settle margin before validBefore; the settlement settleTimeout.
// The answer's write deadline covers the hire and the settlement.
//
// Signatures must be 65-byte ECDSA signatures of externally owned accounts;
// ERC-1271 and ERC-6492 smart-wallet signatures are refused.
package x402
