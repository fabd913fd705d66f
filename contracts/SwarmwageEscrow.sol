// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title SwarmwageEscrow: pay-after-verification escrow for one ERC-20 token.
/// @notice Immutable, no owner, no admin key. A buyer deposits once into its free
/// balance and allocates part of it to a line per seller. Each job is an EIP-712
/// Lock voucher signed by the buyer against that line; no transaction per hire.
///
///  - Release voucher (buyer-signed): the seller redeems it at once.
///  - Lock voucher: the seller may claim it from `notBefore` on (deadline plus
///    verification window), unless the buyer cancelled on chain before then.
///  - Cancel (buyer, on chain) before `notBefore`: the job can no longer be
///    claimed with its lock voucher. A release voucher still pays: a buyer that
///    released cannot take it back.
///  - Each (buyer, seller, jobId) pays at most once, whichever way.
///  - A line's money leaves only to its seller or, after requestWithdraw and
///    `notice` seconds, back to the buyer. Sellers accept a lock only if the line
///    covers it (balance - pending withdrawal - their own open vouchers) and its
///    notBefore lies well inside the notice, so a seller always has time to claim
///    before a withdrawal can take the money.
///  - The contract never pays out more than it holds for a buyer: every payment
///    comes out of the line, and a voucher the line cannot cover is skipped.
/// Lines are per seller because a seller can count only its own vouchers: with one
/// pool shared by all sellers no seller could tell whether the buyer had
/// over-committed it to others.
contract SwarmwageEscrow {
    /// The token held, fixed at deployment.
    address public immutable token;
    /// Seconds between a buyer's requestWithdraw and the withdrawal.
    uint64 public immutable notice;

    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 private constant NAME_HASH = keccak256("SwarmwageEscrow");
    bytes32 private constant VERSION_HASH = keccak256("1");
    bytes32 public constant LOCK_TYPEHASH =
        keccak256("Lock(bytes32 jobId,address buyer,address seller,uint256 amount,uint64 notBefore)");
    bytes32 public constant RELEASE_TYPEHASH =
        keccak256("Release(bytes32 jobId,address buyer,address seller,uint256 amount)");

    uint256 private immutable cachedChainId;
    bytes32 private immutable cachedDomainSeparator;

    /// Upper half of the secp256k1 order: signatures with s above it are the
    /// malleable twin of another and are refused.
    uint256 private constant HALF_N = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    // Job states.
    uint8 public constant OPEN = 0;
    uint8 public constant PAID = 1;
    uint8 public constant CANCELLED = 2;

    // Reasons a voucher in a batch was skipped (event Skipped).
    uint8 public constant SKIP_BAD_SIGNATURE = 1;
    uint8 public constant SKIP_ALREADY_PAID = 2;
    uint8 public constant SKIP_CANCELLED = 3;
    uint8 public constant SKIP_TOO_EARLY = 4;
    uint8 public constant SKIP_NOT_COVERED = 5;

    struct Line {
        uint256 balance; // allocated to the seller, not yet paid or withdrawn
        uint256 withdrawing; // amount of the pending withdrawal request
        uint64 withdrawAt; // when it may be executed; 0: none pending
    }

    struct Job {
        uint8 state;
        uint64 cancelledAt; // block time of the buyer's cancel
    }

    /// A voucher as a seller presents it (the seller is redeem's argument).
    /// release: a Release voucher (notBefore unused, must be 0), else a Lock
    /// voucher.
    struct Voucher {
        bool release;
        bytes32 jobId;
        address buyer;
        uint256 amount;
        uint64 notBefore;
        bytes signature;
    }

    /// Free balance per buyer: deposited, not allocated to a seller.
    mapping(address => uint256) public free;
    mapping(address => mapping(address => Line)) private lines;
    mapping(bytes32 => Job) private jobs;

    uint256 private entered = 1;

    event Deposited(address indexed buyer, uint256 amount);
    event Allocated(address indexed buyer, address indexed seller, uint256 amount);
    event WithdrawRequested(address indexed buyer, address indexed seller, uint256 amount, uint64 readyAt);
    /// seller is the zero address for a withdrawal from the free balance.
    event Withdrawn(address indexed buyer, address indexed seller, uint256 amount);
    /// released: paid by a release voucher, else a lock voucher claimed after notBefore.
    event Paid(bytes32 indexed jobId, address indexed buyer, address indexed seller, uint256 amount, bool released);
    event Cancelled(bytes32 indexed jobId, address indexed buyer, address indexed seller);
    event Skipped(bytes32 indexed jobId, address indexed buyer, address indexed seller, uint8 reason);

    error Reentrancy();
    error ZeroAmount();
    error NoCode();
    error Insufficient(uint256 available, uint256 wanted);
    error NoWithdrawal();
    error NoticeRunning(uint64 readyAt);
    error TransferFailed();
    error BadVoucher();

    modifier nonReentrant() {
        if (entered != 1) revert Reentrancy();
        entered = 2;
        _;
        entered = 1;
    }

    constructor(address token_, uint64 notice_) {
        if (token_.code.length == 0) revert NoCode();
        token = token_;
        notice = notice_;
        cachedChainId = block.chainid;
        cachedDomainSeparator = buildDomainSeparator();
    }

    // ---- buyer -------------------------------------------------------------

    /// Moves amount of the token from the caller (approve first) into its free
    /// balance. Credits what actually arrived, so a token with a transfer fee
    /// cannot credit more than the contract holds.
    function deposit(uint256 amount) external nonReentrant {
        if (amount == 0) revert ZeroAmount();
        uint256 before = balanceOfThis();
        safeCall(abi.encodeWithSelector(0x23b872dd, msg.sender, address(this), amount)); // transferFrom
        uint256 got = balanceOfThis() - before;
        free[msg.sender] += got;
        emit Deposited(msg.sender, got);
    }

    /// Moves amount of the caller's free balance to its line for seller.
    function allocate(address seller, uint256 amount) external nonReentrant {
        if (amount == 0) revert ZeroAmount();
        uint256 f = free[msg.sender];
        if (f < amount) revert Insufficient(f, amount);
        free[msg.sender] = f - amount;
        lines[msg.sender][seller].balance += amount;
        emit Allocated(msg.sender, seller, amount);
    }

    /// Pays amount of the caller's free balance back to it at once: no seller
    /// holds a voucher against free money.
    function withdrawFree(uint256 amount) external nonReentrant {
        if (amount == 0) revert ZeroAmount();
        uint256 f = free[msg.sender];
        if (f < amount) revert Insufficient(f, amount);
        free[msg.sender] = f - amount;
        emit Withdrawn(msg.sender, address(0), amount);
        safeCall(abi.encodeWithSelector(0xa9059cbb, msg.sender, amount)); // transfer
    }

    /// Announces a withdrawal of amount from the caller's line for seller,
    /// executable `notice` seconds from now. A new request replaces the pending
    /// one and restarts the notice; amount 0 withdraws the request.
    function requestWithdraw(address seller, uint256 amount) external nonReentrant {
        Line storage l = lines[msg.sender][seller];
        uint64 readyAt = amount == 0 ? 0 : uint64(block.timestamp) + notice;
        l.withdrawing = amount;
        l.withdrawAt = readyAt;
        emit WithdrawRequested(msg.sender, seller, amount, readyAt);
    }

    /// Executes the pending withdrawal from the caller's line for seller once its
    /// notice has passed: pays what the request named, or the whole line if the
    /// seller was paid from it meanwhile and less is left.
    function withdraw(address seller) external nonReentrant {
        Line storage l = lines[msg.sender][seller];
        uint64 readyAt = l.withdrawAt;
        if (readyAt == 0) revert NoWithdrawal();
        if (block.timestamp < readyAt) revert NoticeRunning(readyAt);
        uint256 amount = l.withdrawing < l.balance ? l.withdrawing : l.balance;
        l.balance -= amount;
        l.withdrawing = 0;
        l.withdrawAt = 0;
        emit Withdrawn(msg.sender, seller, amount);
        if (amount > 0) safeCall(abi.encodeWithSelector(0xa9059cbb, msg.sender, amount));
    }

    /// Cancels the caller's jobs with seller: from now on their lock vouchers
    /// cannot be claimed, unless their notBefore had already come (a late cancel
    /// changes nothing). A job already paid stays paid; cancelling twice keeps
    /// the first time.
    function cancel(address seller, bytes32[] calldata jobIds) external nonReentrant {
        for (uint256 i = 0; i < jobIds.length; i++) {
            Job storage j = jobs[jobKey(msg.sender, seller, jobIds[i])];
            if (j.state != OPEN) continue;
            j.state = CANCELLED;
            j.cancelledAt = uint64(block.timestamp);
            emit Cancelled(jobIds[i], msg.sender, seller);
        }
    }

    // ---- seller ------------------------------------------------------------

    /// Pays seller every voucher for it that is valid now, each out of its
    /// buyer's line for seller, in one transfer (whoever submits the batch: the
    /// money only ever goes to seller). A voucher that is not valid now is
    /// skipped with a Skipped event; the rest still pay. Reverts only on a
    /// malformed voucher or a failed token transfer.
    function redeem(address seller, Voucher[] calldata vs) external nonReentrant {
        if (seller == address(0)) revert BadVoucher();
        uint256 owed;
        for (uint256 i = 0; i < vs.length; i++) {
            if (settleOne(seller, vs[i])) owed += vs[i].amount;
        }
        // Interaction last: every effect of the batch is written before the token is called.
        if (owed > 0) safeCall(abi.encodeWithSelector(0xa9059cbb, seller, owed));
    }

    /// Checks one voucher and applies its effects; true if it pays.
    function settleOne(address seller, Voucher calldata v) private returns (bool) {
        if (v.buyer == address(0) || v.amount == 0) revert BadVoucher();
        if (v.release && v.notBefore != 0) revert BadVoucher();
        bytes32 digest = v.release
            ? hashRelease(v.jobId, v.buyer, seller, v.amount)
            : hashLock(v.jobId, v.buyer, seller, v.amount, v.notBefore);
        if (recover(digest, v.signature) != v.buyer) return skip(seller, v, SKIP_BAD_SIGNATURE);
        Job storage j = jobs[jobKey(v.buyer, seller, v.jobId)];
        if (j.state == PAID) return skip(seller, v, SKIP_ALREADY_PAID);
        if (!v.release) {
            if (block.timestamp < v.notBefore) return skip(seller, v, SKIP_TOO_EARLY);
            if (j.state == CANCELLED && j.cancelledAt < v.notBefore) return skip(seller, v, SKIP_CANCELLED);
        }
        Line storage l = lines[v.buyer][seller];
        if (l.balance < v.amount) return skip(seller, v, SKIP_NOT_COVERED);
        l.balance -= v.amount;
        j.state = PAID;
        emit Paid(v.jobId, v.buyer, seller, v.amount, v.release);
        return true;
    }

    function skip(address seller, Voucher calldata v, uint8 reason) private returns (bool) {
        emit Skipped(v.jobId, v.buyer, seller, reason);
        return false;
    }

    // ---- views -------------------------------------------------------------

    /// The buyer's line for seller: its balance, the pending withdrawal and when
    /// it may be executed (0: none).
    function line(address buyer, address seller)
        external
        view
        returns (uint256 balance, uint256 withdrawing, uint64 withdrawAt)
    {
        Line storage l = lines[buyer][seller];
        return (l.balance, l.withdrawing, l.withdrawAt);
    }

    /// A job's state (OPEN, PAID, CANCELLED) and when it was cancelled.
    function job(address buyer, address seller, bytes32 jobId)
        external
        view
        returns (uint8 state, uint64 cancelledAt)
    {
        Job storage j = jobs[jobKey(buyer, seller, jobId)];
        return (j.state, j.cancelledAt);
    }

    function jobKey(address buyer, address seller, bytes32 jobId) public pure returns (bytes32) {
        return keccak256(abi.encode(buyer, seller, jobId));
    }

    function domainSeparator() public view returns (bytes32) {
        // Recomputed after a chain split so vouchers of one chain never pay on the other.
        return block.chainid == cachedChainId ? cachedDomainSeparator : buildDomainSeparator();
    }

    function hashLock(bytes32 jobId, address buyer, address seller, uint256 amount, uint64 notBefore)
        public
        view
        returns (bytes32)
    {
        bytes32 s = keccak256(abi.encode(LOCK_TYPEHASH, jobId, buyer, seller, amount, notBefore));
        return keccak256(abi.encodePacked("\x19\x01", domainSeparator(), s));
    }

    function hashRelease(bytes32 jobId, address buyer, address seller, uint256 amount) public view returns (bytes32) {
        bytes32 s = keccak256(abi.encode(RELEASE_TYPEHASH, jobId, buyer, seller, amount));
        return keccak256(abi.encodePacked("\x19\x01", domainSeparator(), s));
    }

    // ---- internals ---------------------------------------------------------

    function buildDomainSeparator() private view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, NAME_HASH, VERSION_HASH, block.chainid, address(this)));
    }

    /// ecrecover that refuses malformed and malleable signatures (returns 0).
    function recover(bytes32 digest, bytes calldata sig) private pure returns (address) {
        if (sig.length != 65) return address(0);
        bytes32 r = bytes32(sig[0:32]);
        bytes32 s = bytes32(sig[32:64]);
        uint8 v = uint8(sig[64]);
        if (v < 27) v += 27;
        if (v != 27 && v != 28) return address(0);
        if (uint256(s) > HALF_N) return address(0);
        return ecrecover(digest, v, r, s);
    }

    function balanceOfThis() private view returns (uint256) {
        (bool ok, bytes memory ret) = token.staticcall(abi.encodeWithSelector(0x70a08231, address(this)));
        if (!ok || ret.length < 32) revert TransferFailed();
        return abi.decode(ret, (uint256));
    }

    /// Calls the token and requires success: no revert, and either no return
    /// data or a true bool (tokens that return false on failure are caught).
    function safeCall(bytes memory data) private {
        (bool ok, bytes memory ret) = token.call(data);
        if (!ok) revert TransferFailed();
        if (ret.length != 0 && (ret.length < 32 || abi.decode(ret, (uint256)) != 1)) revert TransferFailed();
    }
}
