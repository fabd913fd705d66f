// Package evm is the evm settlement rail: the node's side of the
// SwarmwageEscrow contract (contracts/SwarmwageEscrow.sol) on an EVM chain
// holding one ERC-20 stablecoin (USDC on Base in production, a
// TestStablecoin on a dev chain). The escrow package keeps the state machine
// and the Badger records; this package signs and checks the vouchers, moves
// the money on chain and reports what the chain says, and the contract is the
// one arbiter both sides reconcile from.
//
// # Money on chain
//
// A buyer deposits once (Deposit: approve + deposit) into its free balance
// and allocates part of it to a line per seller (EnsureLine, one transaction
// the first time it hires a seller, for only what that job needs; once the
// seller accepted a job and the buyer released it, the line grows by a
// chunk, DefaultLineChunkFactor jobs, and again when it runs low). A seller
// that refuses every lock thus holds at most one job's amount of the
// buyer's deposit. Buyers do not even quote a seller whose listing's
// accept horizon (its terms, signed in the listing) cannot fit the hire. A line backs the buyer's locks with that seller only:
// a seller can count its own open locks but not the buyer's locks with
// others, so a pool shared by all sellers could be over-committed without
// any seller noticing. The free balance backs nothing and leaves at once
// (WithdrawFree); a line leaves only RequestWithdraw + the escrow's notice
// later (Withdraw).
//
// Amounts are int64 base units of the token. For a 6-decimal stablecoin one
// base unit is one micro-dollar, the same scale as the escrow package's
// micro-credits, so amounts carry over unchanged.
//
// # A hire (no transaction on the happy path)
//
//	buyer                                        seller
//	EnsureLine (tx only if the line is short)
//	SignLock(job, seller, amount, notBefore) --> CheckLock(lock, open): signature, for this
//	                                             node, notBefore within AcceptHorizon, line
//	                                             balance - withdrawing - open >= amount at
//	                                             the confirmation depth
//	verify the output ...
//	pass: SignRelease(lock) -------------------> VerifyRelease; queue; Redeem(batch) later
//	fail: Cancel(seller, job) on chain (tx) ---> the lock can no longer be claimed
//	silent past notBefore ---------------------> Redeem(lock): the contract pays the claim
//
// notBefore is the job's deadline plus its verification window plus the
// settle grace: the buyer's decision comes first, as on the credits rail. A
// buyer's cancel counts only before notBefore; a release always pays; each
// (buyer, seller, job) pays at most once; a voucher is bound to the chain ID
// and the escrow's address (EIP-712 domain), so it never pays on another
// chain or contract.
//
// A seller accepts locks only with notBefore within AcceptHorizon (half the
// notice) of now: a withdrawal request takes the whole notice to execute, so
// every lock accepted before the request can be claimed for at least half
// the notice before the money can leave, and coverage subtracts a pending
// withdrawal for locks accepted after it. A seller watches Reconcile's
// withdraw_requested line events and claims its open locks on that line at
// their notBefore.
//
// # Errors
//
// ErrChainDown (RPC unreachable), ErrReorg (a block relied on was replaced;
// *ReorgError for a reconcile cursor), ErrNoGas (no native currency for
// gas), ErrNotCovered (a line or the free balance is short at the
// confirmation depth), ErrReverted (the contract refused; the message names
// its error), ErrWrongChain (the RPC serves another chain or the address is
// no escrow for the token), ErrBadSignature and ErrInvalidVoucher (a peer's
// voucher). No hire may proceed on a lock CheckLock did not accept.
//
// # Keys
//
// The node's secp256k1 key is KeyFileName (evm.key, 0600, hex text) in the
// repo, created by LoadOrCreateKey or imported by ImportKey. A Key prints as
// its address only; it is never logged.
//
// # The Settler: the rail as the escrow uses it
//
// Settler implements escrow.Rail (rail.go in package escrow has the
// interface and the precedence rule) on top of Rail:
//
//	escrow.Rail         Settler
//	PrepareLock         line covers open + amount (read at the confirmation
//	                    depth, once per confirmed head), else allocate (one
//	                    tx, one seller at a time: what is short until a job
//	                    of the seller was released, then a chunk; topped up
//	                    in the background below half a chunk); SignLock
//	CheckLock           the voucher is the lock's own; VerifyLock; horizon;
//	                    job open on chain; line - withdrawing - open >=
//	                    amount (a redeem of this node not yet booked is
//	                    added back)
//	Release             SignRelease (no chain needed: the chain ID is kept)
//	CheckRelease        matches the lock; VerifyRelease
//	Refund              wakes the worker: Cancel until mined, effective only
//	                    before notBefore
//
// Its worker reconciles from events (Reconcile: paid and effective cancels
// of the lock's job, confirmed by the chain, go to escrow.ApplyRailOutcome,
// deposits and withdrawals to escrow.BookRail), watches recorded outcomes
// for reorgs (Watch), redeems releases in batches (RedeemBatch, or
// RedeemInterval after the oldest), claims the locks of silent buyers
// after notBefore, and redeems at once when a buyer asks to withdraw a
// line this node sells to. Every step reads its work from the escrow's
// rail index, so a restart resumes it; a chain that is down is logged
// once and waited for. Deposit, Withdraw and Figures are the wallet.
//
// # Receipts: proof that the money moved
//
// A seller's receipts (escrow.Receipt) carry the buyer's vouchers in their
// signed messages and, once the chain settled the job, a Payment (the
// Settler is the escrow's PaymentProver): chain ID, escrow, the contract's
// job id, buyer, seller, amount, and the transaction and block whose Paid
// event paid it. A buyer scoring the seller asks its own Settler
// (PaymentChecker: CheckPayment): the proof must be the receipt's own
// (ReceiptPayment, offline: parties, amount and job of the lock, vouchers
// signed for the proof's chain and escrow) and the node's own chain must
// show the Paid event, final. A proof the receipt or the chain contradicts
// is escrow.ErrForged; one on another chain or contract, not final, or
// unreadable now is escrow.ErrNotPaid. Each RPC read has a deadline
// (paymentRPCTimeout); a final transaction's Paid events are cached (one
// read per redeem batch), "no such transaction" for paymentNegativeTTL.
// The wire form is in docs/protocol.md.
//
// # The chain is checked, not trusted (events.go, watch.go)
//
// A Paid or Cancelled event counts for a job only if its job ID, buyer,
// seller and (Paid) amount are the lock's: anyone can pay 1 base unit for
// any job ID with itself as buyer, and that is another job to the
// contract. Before a job's escrow state changes because of an event, the
// node reads the event's transaction receipt and block (canonical, at the
// confirmation depth, the receipt succeeded and holds the same event) and
// job(buyer, seller, jobId) at the confirmed head. A seller re-reads
// job() before it stops redeeming (a redeem skipped as already paid makes
// it look for the payment on chain); a buyer's refund stays pending, its
// cancel re-sent, until the contract shows the job CANCELLED or PAID. A
// disagreement keeps the local decision: it is logged, noted on the job
// (escrow.Record.ChainNote) and counted (Stats.Disagreements).
//
// The contract's state alone (job() by eth_call) never settles a job:
// a cancel or a payment is booked only with its event found in a receipt
// of a canonical block, so an endpoint lying about one call cannot flip a
// pending refund to paid or a release to cancelled. Deposits and
// withdrawals the logs show are booked only when their receipt holds the
// same event (strictly: exact topics and data); a deposit receipt that
// credits more than was sent is refused (ErrRPCMisbehaved). The head
// counts from the highest the endpoint reported while that block exists
// (a head that goes back is logged and counted). An outcome the logs left
// out, or a receipt did not confirm then, is found later: every
// sweepEvery reconcile passes the worker reads job() of the node's
// decided jobs (and of every job with a disagreement) and applies what a
// receipt confirms. The tests run both nodes through a lying JSON-RPC
// proxy (internal/lyingrpc: forged, missing and reordered logs, wrong
// eth_call results, receipts without their logs, heads going back, huge
// answers) in front of anvil.
//
// Every RPC answer is bounded (MaxRPCAnswer, RPCRequestTimeout); the
// requests a hire waits on (reaching the chain, the buyer's line, the
// seller's coverage check) give up after HireRPCTimeout ([settlement]
// rpc_timeout, 5 s), so an endpoint that accepts connections and never
// answers fails a hire with "chain unreachable: <endpoint>" (the URL
// without its credentials) quickly.
//
// A recorded outcome (payout, cancel), an allocation and a deposit are
// final only once WatchDepth blocks deep and still canonical (a deposit
// meanwhile counts in ProvisionalDeposits; one that vanished is undone
// in the ledger, escrow.UnbookRail, and booked again if the chain holds
// it again): every reconcile checks
// them again (escrow.RailWatched). One a reorg deeper than the
// confirmation depth took away is re-sent: the reconcile cursor goes back
// before its block, escrow.RevertRailOutcome undoes it (the job is
// chain_provisional and open on the rail again), and the worker redeems
// the release voucher again, claims the lock again after notBefore (a
// provisional release), or cancels again; a vanished allocation is made
// again for the open locks. Each step is durable before the next, so a
// crash anywhere converges (failpoints evm/after-vanished,
// evm/after-rewind, evm/after-revert, evm/after-vanished-allocation).
//
// Precedence on the evm rail: Paid on chain (released or claimed) makes the
// job released in both ledgers; Cancelled before notBefore with no payment
// makes it refunded; anything else is still open and its timers run. An
// outcome that vanishes from the canonical chain is undone, and the job is
// open again until the chain shows another.
package evm
