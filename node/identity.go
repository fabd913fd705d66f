package node

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/verify"
)

// ErrIdentity is what every *IdentityError is (errors.Is).
var ErrIdentity = errors.New("node identity missing or corrupt")

// IdentityError is returned when a repo has its config or data but its
// identity.key is missing or unreadable. Its one message names the way
// out that keeps the ledger: restore the key from a backup, or, with no
// backup, 'init --new-identity', which keeps data/.
type IdentityError struct {
	// Repo is the repo directory.
	Repo string
	// Problem is "is missing" or "is corrupt (why)".
	Problem string
}

var _ error = (*IdentityError)(nil)

func (e *IdentityError) Error() string {
	key := filepath.Join(e.Repo, keyFile)
	return fmt.Sprintf("the node identity %s %s. Restore it from your backup of identity.key "+
		"(copy it to %s, mode 0600): the ledger, escrow and jobs in %s belong to that key and are intact. "+
		"Do not delete the repo. With no backup, 'swarmwage --repo %s init --new-identity' makes a new identity "+
		"and keeps %s; jobs still open then settle by their timers",
		key, e.Problem, key, filepath.Join(e.Repo, dataDir), e.Repo, filepath.Join(e.Repo, dataDir))
}

// Is makes errors.Is(err, ErrIdentity) true.
func (e *IdentityError) Is(target error) bool { return target == ErrIdentity }

// NewIdentityInfo is what 'init --new-identity' did, as its --json prints it.
type NewIdentityInfo struct {
	Repo   string `json:"repo"`
	PeerID string `json:"peer_id"`
	// PreviousPeerID is the old identity's peer ID when its key could be
	// read; empty when it was missing or corrupt.
	PreviousPeerID string `json:"previous_peer_id,omitempty"`
	// OldKeyKept is where the old identity.key was moved, if there was one.
	OldKeyKept string `json:"old_key_kept,omitempty"`
	Network    string `json:"network"`
	// OpenJobs counts the escrows not yet settled, signed by the old key.
	OpenJobs OpenJobsInfo `json:"open_jobs"`
	// Listings counts the listings signed again with the new key.
	Listings int `json:"listings_resigned"`
}

// OpenJobsInfo counts open escrows by role.
type OpenJobsInfo struct {
	Bought int `json:"bought"`
	Sold   int `json:"sold"`
}

// NewIdentity gives the repo at dir a new identity while keeping its data
// (ledger, escrow, jobs, listings): for a repo whose identity.key is lost
// with no backup, or deliberately, to change peer ID. An old key that can
// still be read, or a corrupt one, is kept beside it as
// identity.key.old-<time>. Listings are signed again with the new key.
// Jobs still open were signed by the old key: peers know this node by the
// old peer ID, so those jobs settle by their timers. The daemon must not
// run.
func NewIdentity(ctx context.Context, dir string) (_ *Repo, info NewIdentityInfo, err error) {
	info.Repo = dir
	if !exists(filepath.Join(dir, configFile)) {
		if !hasRepoFiles(dir) {
			return nil, info, NoRepoError{Path: dir}
		}
		return nil, info, fmt.Errorf("%s is missing too: restore it from your backup (a new 'swarmwage --repo OTHER init' writes one to copy from), then run init --new-identity again", filepath.Join(dir, configFile))
	}
	cfg, err := loadConfig(filepath.Join(dir, configFile))
	if err != nil {
		return nil, info, err
	}
	info.Network = cfg.Network
	key, err := newIdentityKey()
	if err != nil {
		return nil, info, err
	}
	id, _ := peer.IDFromPrivateKey(key)
	info.PeerID = id.String()
	if old, err := os.ReadFile(filepath.Join(dir, keyFile)); err == nil {
		if _, oldID, err := parseKey(old); err == nil {
			info.PreviousPeerID = oldID.String()
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, info, fmt.Errorf("read the old identity: %w", err)
	}
	// Count first: a running daemon or a full disk stops it here, before
	// anything changed.
	r := &Repo{Dir: dir, Config: cfg, Key: key, ID: id}
	if info.OpenJobs, err = countOpenJobs(ctx, r); err != nil {
		return nil, info, err
	}
	if info.OldKeyKept, err = keepOldKey(dir); err != nil {
		return nil, info, err
	}
	if err := writeKey(dir, key); err != nil {
		return nil, info, err
	}
	if info.Listings, err = resignListings(ctx, r); err != nil {
		return nil, info, fmt.Errorf("the new identity is in place, but %w; list them again with 'swarmwage sell add'", err)
	}
	r, err = Open(dir)
	return r, info, err
}

// countOpenJobs counts the escrows of r not yet settled.
func countOpenJobs(ctx context.Context, r *Repo) (open OpenJobsInfo, err error) {
	l, err := OpenLocal(r)
	if err != nil {
		return open, err
	}
	defer func() { err = errors.Join(err, l.Close()) }()
	esc, err := escrow.New(l.DB, r.Key, escrow.WithLogger(discardLogger()))
	if err != nil {
		return open, err
	}
	defer func() { err = errors.Join(err, esc.Close()) }()
	recs, err := esc.List(ctx, escrow.Filter{})
	if err != nil {
		return open, err
	}
	for _, rec := range recs {
		switch {
		case rec.State.Final():
		case rec.Role == escrow.RoleBuyer:
			open.Bought++
		default:
			open.Sold++
		}
	}
	return open, nil
}

// resignListings signs r's listings again with its key.
func resignListings(ctx context.Context, r *Repo) (n int, err error) {
	l, err := OpenLocal(r)
	if err != nil {
		return 0, err
	}
	defer func() { err = errors.Join(err, l.Close()) }()
	offers, err := l.Store.List(ctx)
	if err != nil {
		return 0, err
	}
	for _, o := range offers {
		if _, err := l.Store.Put(ctx, offerParams(o)); err != nil {
			return n, fmt.Errorf("listing %s could not be signed with it: %w", o.Signed.Listing.Capability, err)
		}
		n++
	}
	return n, nil
}

// offerParams are the parameters that list o again.
func offerParams(o market.Offer) market.ListingParams {
	l := o.Signed.Listing
	p := market.ListingParams{
		Capability: l.Capability, Price: int64(l.Price), Handler: o.Handler,
		SkillCardHash: l.SkillCardHash, RiskTier: l.RiskTier, RequiredPermissions: l.RequiredPermissions,
	}
	if _, err := verify.InputSchema(l.Capability); err != nil {
		p.InputSchema, p.OutputSchema = l.InputSchema, l.OutputSchema // a custom capability's own schemas
	}
	return p
}

// keepOldKey moves an existing identity.key aside and returns where to.
func keepOldKey(dir string) (string, error) {
	path := filepath.Join(dir, keyFile)
	if !exists(path) {
		return "", nil
	}
	kept := path + ".old-" + time.Now().UTC().Format("20060102T150405Z")
	if err := os.Rename(path, kept); err != nil {
		return "", fmt.Errorf("keep the old identity: %w", err)
	}
	return kept, nil
}
