// pay.mjs: one paid request with the real x402 client (@x402/fetch +
// @x402/evm over viem, pinned in package-lock.json), for the Go tests.
//
//   node pay.mjs URL PRIVATE_KEY BODY_JSON NETWORK ASSET MAX_ATOMIC
//
// The client's spend controls allow the asset (a non-default token such as
// the dev chain's test token) up to MAX_ATOMIC base units a payment.
// Prints one JSON line: {status, body, paymentResponse, paymentSignature}
// where paymentSignature is the PAYMENT-SIGNATURE header the client sent
// (the test replays it) and paymentResponse the decoded PAYMENT-RESPONSE.
import { wrapFetchWithPayment, x402Client, decodePaymentResponseHeader } from "@x402/fetch";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { privateKeyToAccount } from "viem/accounts";

const [url, key, body, network, asset, maxAtomic] = process.argv.slice(2);
if (!url || !key || !body || !network || !asset || !maxAtomic) {
  console.error("usage: node pay.mjs URL PRIVATE_KEY BODY_JSON NETWORK ASSET MAX_ATOMIC");
  process.exit(2);
}
const account = privateKeyToAccount(key.startsWith("0x") ? key : "0x" + key);
const client = new x402Client()
  .register("eip155:*", new ExactEvmScheme(account))
  .setSpendControls({ allowedAssets: [{ network, asset, maxAmountPerPayment: maxAtomic }] });
let sent = "";
const recording = async (input, init) => {
  const req = new Request(input, init);
  const h = req.headers.get("PAYMENT-SIGNATURE");
  if (h) sent = h;
  return fetch(req);
};
const pay = wrapFetchWithPayment(recording, client);
const res = await pay(url, { method: "POST", headers: { "Content-Type": "application/json" }, body });
const text = await res.text();
let parsed;
try { parsed = JSON.parse(text); } catch { parsed = text; }
const pr = res.headers.get("PAYMENT-RESPONSE");
console.log(JSON.stringify({
  status: res.status,
  body: parsed,
  paymentResponse: pr ? decodePaymentResponseHeader(pr) : null,
  paymentSignature: sent,
}));
