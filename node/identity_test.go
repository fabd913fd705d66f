package node_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/node"
)

// offlineEscrow opens repo's escrow without the network; close it with the
// returned func.
func offlineEscrow(t *testing.T, repo *node.Repo) (*node.Local, *escrow.Escrow, func()) {
	t.Helper()
	l, err := node.OpenLocal(repo)
	require.NoError(t, err)
	esc, err := escrow.New(l.DB, repo.Key, escrow.WithLogger(discardLog()))
	require.NoError(t, err)
	return l, esc, func() {
		require.NoError(t, esc.Close())
		require.NoError(t, l.Close())
	}
}

// TestLostIdentityGetsOneMessageThatKeepsTheLedger: before, commands said
// "run swarmwage init" and init said "remove it first", and following both
// deleted the ledger. Now every command and init give one message: restore
// the backup of identity.key, or init --new-identity, which keeps data/.
func TestLostIdentityGetsOneMessageThatKeepsTheLedger(t *testing.T) {
	dir := t.TempDir()
	repo := newRepo(t, dir)
	_, esc, done := offlineEscrow(t, repo)
	require.NoError(t, esc.Deposit(context.Background(), mustAmount(t, "7"), "test"))
	done()
	key := filepath.Join(dir, "identity.key")

	for name, breakIt := range map[string]func(){
		"missing": func() { require.NoError(t, os.Remove(key)) },
		"corrupt": func() { require.NoError(t, os.WriteFile(key, []byte("not a key"), 0o600)) },
		"empty":   func() { require.NoError(t, os.WriteFile(key, nil, 0o600)) },
	} {
		t.Run(name, func(t *testing.T) {
			breakIt()
			_, openErr := node.Open(dir)
			_, initErr := node.Init(dir, node.DefaultConfig(testNetwork))
			for _, err := range []error{openErr, initErr} {
				require.ErrorIs(t, err, node.ErrIdentity)
				msg := err.Error()
				require.Contains(t, msg, "Restore it from your backup of identity.key")
				require.Contains(t, msg, "init --new-identity")
				require.Contains(t, msg, "Do not delete the repo")
				require.NotContains(t, msg, "remove it first")
				require.NotContains(t, msg, "run 'swarmwage init'")
			}
			require.Equal(t, openErr.Error(), initErr.Error(), "one message")
			require.DirExists(t, filepath.Join(dir, "data"), "the ledger is untouched")
		})
	}
}

func TestInitOnAReadyRepoRefusesWithoutAdvisingRemoval(t *testing.T) {
	dir := t.TempDir()
	repo := newRepo(t, dir)
	_, err := node.Init(dir, node.DefaultConfig(testNetwork))
	require.ErrorIs(t, err, node.ErrRepoExists)
	require.Contains(t, err.Error(), repo.ID.String())
	require.NotContains(t, err.Error(), "remove")
}

// TestNewIdentityKeepsDataAndSaysWhatIsOpen: a buyer that lost its key
// and a seller that changes it deliberately, with a job open between
// them, keep their ledgers and listings; the old key is kept aside.
func TestNewIdentityKeepsDataAndSaysWhatIsOpen(t *testing.T) {
	ctx := context.Background()
	buyerDir, sellerDir := t.TempDir(), t.TempDir()
	buyerRepo, sellerRepo := newRepo(t, buyerDir), newRepo(t, sellerDir)

	l, besc, done := offlineEscrow(t, buyerRepo)
	require.NoError(t, besc.Deposit(ctx, mustAmount(t, "5"), "test"))
	_, err := l.Store.Put(ctx, market.ListingParams{Capability: "custom.acme.ocr", Price: mustAmount(t, "1"),
		Handler: market.HandlerConfig{Kind: market.HandlerBuiltin}, InputSchema: []byte(`{"type":"object"}`)})
	require.NoError(t, err)
	lock, err := besc.Lock(ctx, escrow.LockParams{Capability: "compute.statistics.mean", Seller: sellerRepo.ID,
		Amount: mustAmount(t, "0.5"), Deadline: time.Now().Add(time.Hour), Window: time.Minute, Input: []byte(`{"data":[1]}`)})
	require.NoError(t, err)
	done()
	_, sesc, done := offlineEscrow(t, sellerRepo)
	fresh, err := sesc.AcceptLock(ctx, lock, []byte(`{"data":[1]}`))
	require.NoError(t, err)
	require.True(t, fresh)
	done()

	// The buyer lost identity.key, with no backup.
	require.NoError(t, os.Remove(filepath.Join(buyerDir, "identity.key")))
	repo, info, err := node.NewIdentity(ctx, buyerDir)
	require.NoError(t, err)
	require.NotEqual(t, buyerRepo.ID, repo.ID)
	require.Equal(t, repo.ID.String(), info.PeerID)
	require.Empty(t, info.PreviousPeerID, "the old key was gone")
	require.Empty(t, info.OldKeyKept)
	require.Equal(t, node.OpenJobsInfo{Bought: 1}, info.OpenJobs)
	require.Equal(t, 1, info.Listings)

	l, err = node.OpenLocalReadOnly(repo)
	require.NoError(t, err)
	esc, err := escrow.New(l.DB, repo.Key, escrow.WithLogger(discardLog()))
	require.NoError(t, err)
	b, err := esc.Balance(ctx)
	require.NoError(t, err)
	require.Equal(t, mustAmount(t, "4.5"), b.Available, "the ledger is kept")
	require.Equal(t, mustAmount(t, "0.5"), b.Held)
	rec, err := esc.Get(ctx, lock.JobID)
	require.NoError(t, err)
	require.Equal(t, escrow.StateLocked, rec.State, "the open job is still there, for its timer")
	o, err := l.Store.Get(ctx, "custom.acme.ocr")
	require.NoError(t, err)
	require.NoError(t, o.Signed.Verify(repo.ID, "custom.acme.ocr"), "the listing is signed with the new key")
	require.JSONEq(t, `{"type":"object"}`, string(o.Signed.Listing.InputSchema), "and keeps its own schema")
	require.NoError(t, esc.Close())
	require.NoError(t, l.Close())

	// The seller changes identity on purpose: the old key is kept aside.
	oldKey, err := os.ReadFile(filepath.Join(sellerDir, "identity.key"))
	require.NoError(t, err)
	repo, info, err = node.NewIdentity(ctx, sellerDir)
	require.NoError(t, err)
	require.Equal(t, sellerRepo.ID.String(), info.PreviousPeerID)
	require.Equal(t, node.OpenJobsInfo{Sold: 1}, info.OpenJobs)
	kept, err := os.ReadFile(info.OldKeyKept)
	require.NoError(t, err)
	require.Equal(t, oldKey, kept)
	fi, err := os.Stat(info.OldKeyKept)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	require.NotEqual(t, sellerRepo.ID, repo.ID)

	_, _, err = node.NewIdentity(ctx, t.TempDir())
	var nr node.NoRepoError
	require.ErrorAs(t, err, &nr, "no repo: nothing to give an identity to")
}
