package market

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/libp2p/go-libp2p"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/internal/kv"
)

// The market's steps of a hire, timed one at a time between a real seller
// and a real buyer host on loopback (issue 25):
//
//	go test -run X -bench 'AgentRequest|Quote|JobRecord' -benchtime 2s ./market

// agentBench is a seller and a bare buyer host connected to it.
func agentBench(b *testing.B) (*testPeer, *agentClient, peer.AddrInfo) {
	b.Helper()
	seller := setupPeerTB(b, nil)
	addListingTB(b, seller, "compute.statistics.mean", 10_000)
	h, err := libp2p.New(libp2p.ListenAddrStrings("/ip4/127.0.0.1/tcp/0"))
	require.NoError(b, err)
	b.Cleanup(func() { h.Close() })
	c := &agentClient{host: h, holePunchWait: HolePunchWait}
	b.Cleanup(c.closeIdle)
	info := peer.AddrInfo{ID: seller.host.ID(), Addrs: seller.host.Addrs()}
	require.NoError(b, h.Connect(context.Background(), info))
	return seller, c, info
}

// BenchmarkAgentRequest is one agent request (GET a listing) over a new
// stream per request, as every request was before issue 25 ("Connection:
// close"), and over a stream kept alive.
func BenchmarkAgentRequest(b *testing.B) {
	for _, keep := range []bool{false, true} {
		b.Run(map[bool]string{false: "new-stream", true: "kept-alive"}[keep], func(b *testing.B) {
			_, c, info := agentBench(b)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+info.ID.String()+AgentPath+"/capabilities/compute.statistics.mean", nil)
				if err != nil {
					b.Fatal(err)
				}
				if !keep {
					req.Close = true
				}
				resp, err := c.roundTrip(req, info, false)
				if err != nil {
					b.Fatal(err)
				}
				var buf bytes.Buffer
				_, _ = buf.ReadFrom(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Fatalf("status %d", resp.StatusCode)
				}
			}
		})
	}
}

// BenchmarkQuote is the buyer's quote step when its cached quote has run
// out: POST /quotes (the seller signs one) and the buyer's check of the
// seller's signature. A seller answers one buyer quoteBurst quotes at once
// and quoteRate a second after: past the burst, the wait for the seller's
// limiter is left out of the time.
func BenchmarkQuote(b *testing.B) {
	_, c, info := agentBench(b)
	body, _ := json.Marshal(QuoteRequest{Capability: "compute.statistics.mean"})
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if i > 0 && i%(quoteBurst/2) == 0 {
			b.StopTimer()
			time.Sleep(time.Second * quoteBurst / 2 / quoteRate)
			b.StartTimer()
		}
		var q SignedQuote
		if _, _, err := c.do(ctx, info, http.MethodPost, "/quotes", bytes.NewReader(body), maxListingSize, &q); err != nil {
			b.Fatal(err)
		}
		if err := q.Verify(info.ID, c.host.ID(), "compute.statistics.mean", time.Now()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJobRecordWrite is a hire's job-record writes on one node: the
// record when the job starts and the update when it is decided, on a
// Badger with SyncWrites as a node opens it.
func BenchmarkJobRecordWrite(b *testing.B) {
	db, err := badger.Open(badger.DefaultOptions(b.TempDir()).WithLogger(nil).WithSyncWrites(true))
	require.NoError(b, err)
	b.Cleanup(func() { db.Close() })
	j := &jobs{db: kv.Open(db)}
	seller, buyer := benchPeer(b), benchPeer(b)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		id := fmt.Sprintf("job-%d", i)
		if err := j.put(JobRecord{JobID: id, Role: RoleBuyer, Capability: "compute.statistics.mean", Seller: seller, Buyer: buyer, Status: StatusRunning, CreatedAt: time.Now()}); err != nil {
			b.Fatal(err)
		}
		if err := j.update(RoleBuyer, id, func(r *JobRecord) { r.Status = StatusVerified }); err != nil {
			b.Fatal(err)
		}
	}
}

func benchPeer(b *testing.B) peer.ID {
	h, err := libp2p.New(libp2p.NoListenAddrs)
	require.NoError(b, err)
	defer h.Close()
	return h.ID()
}

// BenchmarkFollowDecidedJob is what the settle hook (followEscrow) does
// for a job whose hire has written its record already: read-modify-write
// of the record (before issue 25's index read) against a read of its one
// running-index key.
func BenchmarkFollowDecidedJob(b *testing.B) {
	db, err := badger.Open(badger.DefaultOptions(b.TempDir()).WithLogger(nil).WithSyncWrites(true))
	require.NoError(b, err)
	b.Cleanup(func() { db.Close() })
	j := &jobs{db: kv.Open(db)}
	require.NoError(b, buildJobIndex(j.db))
	seller, buyer := benchPeer(b), benchPeer(b)
	require.NoError(b, j.put(JobRecord{JobID: "job", Role: RoleBuyer, Capability: "compute.statistics.mean", Seller: seller, Buyer: buyer, Status: StatusVerified, CreatedAt: time.Now()}))
	follow := func(r *JobRecord) {
		if r.Status == StatusRunning {
			r.Status = StatusFailed
		}
	}
	b.Run("record-update", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := j.update(RoleBuyer, "job", follow); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("index-read", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if j.mayRun(RoleBuyer, "job") {
				b.Fatal("a decided job is not running")
			}
		}
	})
}
