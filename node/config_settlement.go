package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/escrow/evm"
	"github.com/swarmwage/swarmwage/market"
)

// Settlement rails a config names.
const (
	// RailCredits is the default: test credits in each node's ledger.
	RailCredits = escrow.RailCredits
	// RailEVM settles in a stablecoin through the escrow contract on an EVM
	// chain (package escrow/evm).
	RailEVM = escrow.RailEVM
)

// DefaultConfirmations is what 'init --settlement evm' writes: a block
// counts once it is included, right for a dev chain and for Base, whose
// sequencer does not reorganize what it included in practice. A seller
// that wants to ride out a reorg sets more (it then waits that many blocks
// after a buyer's allocation before it accepts the first lock).
const DefaultConfirmations = 1

// maxConfirmations bounds settlement.confirmations: deeper than any reorg
// a chain this rail targets has seen.
const maxConfirmations = 64

// SettlementConfig is the [settlement] section: which rail pays for hires.
// Only rail = "evm" takes the other keys.
type SettlementConfig struct {
	// Rail is "credits" (default, also when empty) or "evm".
	Rail string `toml:"rail,omitempty"`
	// RPC is the chain's JSON-RPC URL (http, https, ws or wss).
	RPC string `toml:"rpc,omitempty"`
	// Escrow is the SwarmwageEscrow contract's address ('chain deploy').
	Escrow string `toml:"escrow,omitempty"`
	// Token is the ERC-20 the escrow holds (USDC on Base).
	Token string `toml:"token,omitempty"`
	// Confirmations is how many blocks (including the one with the event)
	// the node waits before it trusts chain state: a seller's coverage
	// check, its own transactions. Default 1 (DefaultConfirmations).
	Confirmations int `toml:"confirmations,omitzero"`
	// RedeemInterval is the longest a seller's release voucher waits for
	// its batch. Default "1m" (evm.DefaultRedeemInterval).
	RedeemInterval string `toml:"redeem_interval,omitempty"`
	// RedeemBatch is how many vouchers fill a batch (at most 200). Default
	// 100.
	RedeemBatch int `toml:"redeem_batch,omitzero"`
	// ReconcileInterval is how often the node reads the escrow's events.
	// Default "5s".
	ReconcileInterval string `toml:"reconcile_interval,omitempty"`
	// LineChunk is the least a buyer allocates to a seller's line when it
	// must, once a job of that seller was released (token units, "1.5");
	// the first allocation is only what the first job needs. Default: 10
	// times the hire's price (evm.DefaultLineChunkFactor).
	LineChunk string `toml:"line_chunk,omitempty"`
	// RPCTimeout bounds each JSON-RPC request a hire waits on (reaching
	// the chain, the buyer's line, the seller's coverage check), so a
	// frozen endpoint fails a hire with "chain unreachable" quickly.
	// Default "5s" (evm.DefaultHireRPCTimeout).
	RPCTimeout string `toml:"rpc_timeout,omitempty"`
}

// RailName is the configured rail, RailCredits when none is named.
func (s SettlementConfig) RailName() string {
	if s.Rail == "" {
		return RailCredits
	}
	return s.Rail
}

func (s SettlementConfig) validate() error {
	switch s.Rail {
	case "", RailCredits:
		if s.RPC != "" || s.Escrow != "" || s.Token != "" || s.Confirmations != 0 || s.RedeemInterval != "" || s.RedeemBatch != 0 || s.ReconcileInterval != "" || s.LineChunk != "" || s.RPCTimeout != "" {
			return errors.New(`config settlement: rpc, escrow, token and the other keys belong to rail = "evm"`)
		}
		return nil
	case RailEVM:
	default:
		return fmt.Errorf("config settlement.rail %q: want %q or %q", s.Rail, RailCredits, RailEVM)
	}
	_, err := s.settlerConfig()
	return err
}

// settlerConfig is the evm rail's configuration, every key checked.
func (s SettlementConfig) settlerConfig() (evm.SettlerConfig, error) {
	var c evm.SettlerConfig
	u, err := url.Parse(s.RPC)
	if s.RPC == "" || err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "ws" && u.Scheme != "wss") {
		return c, fmt.Errorf("config settlement.rpc %q: want the chain's JSON-RPC URL (http, https, ws or wss)", s.RPC)
	}
	for _, a := range []struct{ key, val string }{{"escrow", s.Escrow}, {"token", s.Token}} {
		if !common.IsHexAddress(a.val) || common.HexToAddress(a.val) == (common.Address{}) {
			return c, fmt.Errorf("config settlement.%s %q: want an address (0x and 40 hex digits)", a.key, a.val)
		}
	}
	if s.Confirmations < 0 || s.Confirmations > maxConfirmations {
		return c, fmt.Errorf("config settlement.confirmations %d: want 1 to %d (0: the default, %d)", s.Confirmations, maxConfirmations, DefaultConfirmations)
	}
	if s.RedeemBatch < 0 || s.RedeemBatch > 200 {
		return c, fmt.Errorf("config settlement.redeem_batch %d: want 1 to 200", s.RedeemBatch)
	}
	c.Config = evm.Config{RPC: s.RPC, Escrow: common.HexToAddress(s.Escrow), Token: common.HexToAddress(s.Token), Confirmations: uint64(s.Confirmations)}
	c.RedeemBatch = s.RedeemBatch
	for _, d := range []struct {
		key, val string
		dst      *time.Duration
	}{{"redeem_interval", s.RedeemInterval, &c.RedeemInterval}, {"reconcile_interval", s.ReconcileInterval, &c.ReconcileInterval}, {"rpc_timeout", s.RPCTimeout, &c.HireRPCTimeout}} {
		if d.val == "" {
			continue
		}
		v, err := time.ParseDuration(d.val)
		if err != nil || v <= 0 {
			return c, fmt.Errorf("config settlement.%s %q: want a positive duration such as \"1m\"", d.key, d.val)
		}
		*d.dst = v
	}
	if s.LineChunk != "" {
		v, err := escrow.ParseAmount(s.LineChunk)
		if err != nil || v <= 0 {
			return c, fmt.Errorf("config settlement.line_chunk %q: want a positive amount such as \"5\"", s.LineChunk)
		}
		c.LineChunk = v
	}
	return c, nil
}

// EVMKeyPath is the node's secp256k1 key for the evm rail in repo.
func EVMKeyPath(repo *Repo) string { return filepath.Join(repo.Dir, evm.KeyFileName) }

// NewSettler builds the evm rail of repo from its config and key
// (evm.key); nil and no error when the repo settles in credits. It does
// not reach the chain.
func NewSettler(repo *Repo, log *slog.Logger) (*evm.Settler, error) {
	st := repo.Config.Settlement
	if st.RailName() != RailEVM {
		return nil, nil
	}
	cfg, err := st.settlerConfig()
	if err != nil {
		return nil, err
	}
	key, err := evm.LoadKey(EVMKeyPath(repo))
	if err != nil {
		return nil, fmt.Errorf("the evm rail's key: %w (run 'swarmwage init --settlement evm' to create one, or copy your key there with mode 0600)", err)
	}
	cfg.Logger = log
	return evm.NewSettler(cfg, key)
}

// horizonTimeout bounds reaching the chain at start to learn the escrow's
// notice; a chain that is down must not hold the daemon's start for long.
const horizonTimeout = 5 * time.Second

// acceptHorizon is the market option that signs this seller's accept
// horizon on the evm rail into its listings, so buyers whose hires cannot
// fit never quote it or allocate it money. It warns (slog, so on the
// daemon's stderr) when the escrow's notice and [market]
// verification_window make every lock fail, or cut the deadlines it can
// accept. While the chain cannot be reached it states the horizon from the
// escrow's notice stored when this repo last reached the chain; a repo
// that never did states none, says so, and reports pending: the node then
// retries (retryAcceptHorizon) and signs its listings again once it
// learns the notice.
func acceptHorizon(ctx context.Context, s *evm.Settler, esc *escrow.Escrow, m MarketConfig, log *slog.Logger) (_ []market.Option, pending bool) {
	hctx, cancel := context.WithTimeout(ctx, horizonTimeout)
	rail, err := s.AcceptHorizon(hctx)
	cancel()
	if err != nil {
		if stored, ok := s.StoredAcceptHorizon(ctx, esc); ok {
			log.Info("the chain cannot be reached: this node's listings state the accept horizon from the escrow's notice learned when it last reached the chain",
				"accept_horizon", market.AcceptHorizonOf(stored), "notice", 2*stored, "err", err)
			return []market.Option{market.AcceptHorizon(checkHorizon(stored, m, log))}, false
		}
		log.Warn("the escrow's notice is unknown (the chain cannot be reached and never was from this repo): this node's listings state no accept horizon, so buyers learn it from a refused lock; retrying every "+
			horizonRetry.String()+", and the listings are signed again once it is learned", "err", err)
		return nil, true
	}
	return []market.Option{market.AcceptHorizon(checkHorizon(rail, m, log))}, false
}

// checkHorizon is what a seller states on a rail whose horizon is rail,
// with a warning when the market's terms cannot fit it.
func checkHorizon(rail time.Duration, m MarketConfig, log *slog.Logger) time.Duration {
	h := market.AcceptHorizonOf(rail)
	window, maxDur := m.terms()
	switch {
	case h <= window:
		log.Warn("every lock of a buyer will be refused: the escrow's notice lets this seller accept a job deadline plus verification window of at most "+h.String()+
			", and [market] verification_window is "+window.String()+"; no hire can succeed. Set a shorter [market] verification_window, or use an escrow deployed with a longer 'chain deploy --notice'",
			"notice", 2*rail, "accept_horizon", h, "verification_window", window)
	case h < window+maxDur:
		log.Warn("the escrow's notice cuts the job deadlines this seller accepts: a hire whose deadline is over "+(h-window).String()+" will not use it",
			"notice", 2*rail, "accept_horizon", h, "verification_window", window, "max_job_duration", maxDur)
	}
	return h
}

// horizonRetry is how often a seller whose chain was never reached tries
// again to learn the escrow's notice.
const horizonRetry = 15 * time.Second

// horizonLearner retries learning the accept horizon in the background
// until it does, then signs the market's listings with it.
type horizonLearner struct {
	cancel context.CancelFunc
	done   chan struct{}
}

func retryAcceptHorizon(s *evm.Settler, mk *market.Market, m MarketConfig, log *slog.Logger, every time.Duration) *horizonLearner {
	ctx, cancel := context.WithCancel(context.Background())
	hl := &horizonLearner{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(hl.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			hctx, hcancel := context.WithTimeout(ctx, horizonTimeout)
			rail, err := s.AcceptHorizon(hctx)
			hcancel()
			if err != nil {
				continue
			}
			h := checkHorizon(rail, m, log)
			if err := mk.SetAcceptHorizon(ctx, h); err != nil {
				log.Warn("sign the listings with the accept horizon", "err", err)
				continue
			}
			log.Info("the chain is reachable: this node's listings now state its accept horizon", "accept_horizon", h, "notice", 2*rail)
			return
		}
	}()
	return hl
}

func (hl *horizonLearner) stop() {
	if hl == nil {
		return
	}
	hl.cancel()
	<-hl.done
}

// terms are the section's verification window and maximum job duration,
// the market's defaults where unset (options has checked them).
func (m MarketConfig) terms() (window, maxDur time.Duration) {
	window, maxDur = market.DefaultWindow, market.DefaultMaxDuration
	if d, err := time.ParseDuration(m.VerificationWindow); err == nil && d > 0 {
		window = d
	}
	if d, err := time.ParseDuration(m.MaxJobDuration); err == nil && d > 0 {
		maxDur = d
	}
	return window, maxDur
}
