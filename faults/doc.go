// Package faults is swarmwage's fault-injection suite (issue 12). It holds
// tests only: they check that money is never paid wrongly when daemons
// crash, peers are partitioned, the disk fills up, messages are replayed or
// forged, and many hires run at once.
//
// The suite builds the binary once with the failpoints build tag
// (go build -tags failpoints ./cmd/swarmwage) and runs real daemons of it:
// repos in temp dirs on real disk (or on a small tmpfs), Badger, libp2p on
// 127.0.0.1, a private network per test, short terms in config.toml
// ([market] verification_window = "2s", max_job_duration = "5s", hire
// --timeout of a few seconds). Sellers: an honest one (built-in
// compute.statistics.mean and .stddev) and a dishonest one whose exec:
// handler answers compute.statistics.stddev wrongly, padded large, so that
// verification must fail and every one of its jobs must end refunded.
//
// Faults:
//
//   - SIGKILL at failpoints (package internal/failpoint, set through
//     SWARMWAGE_FAILPOINTS when a daemon starts). The names are a contract
//     with the code that calls failpoint.Inject:
//     buyer/after-lock (market/hire.go, runHire: escrow.Lock succeeded),
//     buyer/after-record-delivery (verifyAndSettle: the delivery arrived
//     and matches its output; it is written with the decision, in one
//     commit), buyer/after-decision (decide and refundDelivered: the
//     release or refund returned, the settle not sent yet),
//     seller/after-accept-lock (market/seller.go, handleJob: the lock
//     checked and the job taken, its handler not started; the lock is
//     written with the delivery, or on its own once the job runs past
//     acceptGrace), seller/after-deliver (finish and finishTaken: the
//     delivery written, the result not sent yet), seller/after-early-delivery
//     (finishEarly and deliverEarly: the output and its signed delivery
//     sent to a buyer that takes them early, before they are written),
//     buyer/after-early-delivery (runJob: such a delivery checked, nothing
//     of it written), seller/after-apply-settle (handleSettle:
//     ApplySettle succeeded), escrow/before-fire (escrow/timers.go, the top
//     of fire). A killed daemon stays down past every due time of its jobs
//     and is then restarted.
//   - Partitions through the node's connection gater
//     (POST /v1/debug/partition, only in a failpoints build), at the
//     moment of delivery and of the settle: a few seconds and 12 s in the
//     bounded run, 20 s in the soak.
//   - A full disk: a daemon's repo on a small tmpfs that a filler file
//     fills while jobs with large outputs arrive; then space is freed.
//   - Replayed and forged messages: a lock POSTed twice with another input,
//     settles signed by a stranger, replayed for another job, rewritten.
//   - Concurrent hires: dozens at once against sellers with a small queue.
//   - A seller quoting above its listing (issue 22): the failpoint
//     seller/quote-price=set(N) (market/seller.go, the quote handler) makes
//     the honest seller quote N micro-credits for what it lists at 0.01;
//     the buyer must refuse every such quote before any lock, and every
//     lock it ever makes must hold a listed price (any other amount is a
//     wrong payment).
//   - The evm rail (evm_test.go, issue 22): a cluster with evm set
//     settles through the escrow contract on a real anvil (the one pinned
//     in contracts/, installed with npm ci when missing), deployed and
//     funded with the binary itself ('chain deploy --test-token', 'chain
//     mint', 'wallet deposit'); each daemon brings an anvil account as its
//     evm.key. evmConfig.rpc gives a daemon its own JSON-RPC URL in front
//     of anvil's (a proxy that lies, delays or drops: the seam for chain
//     faults per node).
//   - A stranger's payment for a job ID (evm): a third key reads each job
//     ID from the seller's public GET /receipts while its release waits
//     for the seller's redeem batch, deposits, allocates 1 base unit to the
//     seller, signs a Release for that job ID with itself as buyer and
//     redeems it. The seller must still be paid the buyer's real amount,
//     and no job record or receipt may name the stranger's transaction.
//   - Reorgs deeper than the confirmation depth (evm): while hires run
//     back to back, anvil's evm_snapshot, 2 to 6 blocks of hires (padded
//     with empty blocks), evm_revert and a longer chain of empty blocks,
//     again and again: allocations, payouts and cancels vanish and must be
//     re-sent. Afterwards a restart of every daemon must change nothing.
//     The soak (-soak) runs 40 reorgs instead of 5.
//   - A lying chain endpoint (evm, issue 30): every daemon, buyer and
//     sellers, reads the chain through its own internal/lyingrpc proxy in
//     front of anvil (evmConfig.rpc). The proxies tell one lie after
//     another while hires of both sellers run, each until every proxy told
//     it: forged Paid logs of the dishonest seller's jobs and Cancelled
//     logs of the honest one's, every log left out, logs in reverse order,
//     job() answering another state than the chain's, receipts without
//     their logs, heads 6 blocks back on every other answer, answers
//     larger than the rail's limit, answers 250 ms late; then the truth
//     for a hire of each seller. The soak (-soak) cycles through the lies
//     5 times instead of once.
//
// After each run the suite compares the ledgers job by job, read with the
// CLI (escrow list --json, wallet balance --json, jobs list --json), and
// waits by polling with a bounded deadline until they converge. It fails
// on: a divergence (a buyer's released must meet a seller's released, a
// buyer's refunded a seller's refunded, disputed or failed or no record; a
// seller's released marked "provisional": true is not converged yet), any
// payment for output that failed verification (every job of the dishonest
// seller must end refunded on both sides), an open hold past its due time
// plus a slack, a broken ledger invariant (available + held + paid +
// withdrawn == deposited + earned on every node; the buyer's paid equals
// the sellers' earned), a job record left "running", a decision a hire
// reported that the ledger lost, and a lock no hire result accounts for.
// On the evm rail it also compares each job with the contract (job(buyer,
// seller, jobId)): a released job must be paid on chain and
// "chain_outcome": "paid" on both sides, a refunded one cancelled and so
// booked, nothing "chain_provisional" or "refund_pending"; a record naming
// a stranger's transaction, or a chain payment of the dishonest seller's
// job, is a wrong payment; the token must be conserved (every unit minted
// is held by a known address), the escrow must hold what the buyer's
// ledger says is deposited and not paid or withdrawn, and each seller's
// address what its ledger redeemed plus what strangers paid it.
//
// Running it:
//
//	go test ./faults                      # the bounded run, a few minutes
//	go test ./faults -run TestKill -v     # one family, with its summary
//	go test ./faults -run TestSoak -soak -soak.duration 30m -v
//	SWARMWAGE_SOAK=1 go test ./faults -run TestSoak -v
//	go test ./faults -run EVM -v          # the evm rail's cases
//
// Every run logs a summary: runs, faults injected, divergences and wrong
// payments (both must be 0). The full-disk test mounts tmpfs and so needs
// root; it fails, never skips, without it.
package faults
