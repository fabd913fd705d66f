package faults

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
	libp2phttp "github.com/libp2p/go-libp2p/p2p/http"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/node"
)

// stranger is a peer of its own that talks to sellers' agent endpoints
// directly, with its own identity key read from a repo: it can sign locks
// and settles, replay and rewrite them.
type stranger struct {
	key  crypto.PrivKey
	id   peer.ID
	host host.Host
	http *libp2phttp.Host
}

// newStranger makes a repo with the CLI, reads its identity key and starts
// a libp2p host with it that listens nowhere.
func newStranger(t *testing.T) *stranger {
	t.Helper()
	d := &daemon{name: "stranger", repo: filepath.Join(t.TempDir(), "stranger")}
	d.cli(t, "init", "--network", "fx-stranger", "--listen", "/ip4/127.0.0.1/tcp/0", "--api", "127.0.0.1:0")
	repo, err := node.Open(d.repo)
	if err != nil {
		t.Fatal(err)
	}
	h, err := libp2p.New(libp2p.Identity(repo.Key), libp2p.NoListenAddrs)
	if err != nil {
		t.Fatal(err)
	}
	s := &stranger{key: repo.Key, id: repo.ID, host: h, http: &libp2phttp.Host{StreamHost: h}}
	t.Cleanup(func() {
		s.http.Close()
		h.Close()
	})
	return s
}

// post sends body to path on seller's agent endpoint.
func (s *stranger) post(t testing.TB, seller *daemon, path string, body []byte) *http.Response {
	t.Helper()
	addr, err := ma.NewMultiaddr(fmt.Sprintf("/ip4/127.0.0.1/tcp/%d", seller.port))
	if err != nil {
		t.Fatal(err)
	}
	id, err := peer.Decode(seller.id)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := s.http.NewConstrainedRoundTripper(peer.AddrInfo{ID: id, Addrs: []ma.Multiaddr{addr}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+seller.id+market.AgentPath+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatalf("POST %s to %s: %v", path, seller.name, err)
	}
	return resp
}

// postJSON posts and returns the status and the whole body.
func (s *stranger) postJSON(t testing.TB, seller *daemon, path string, v any) (int, []byte) {
	t.Helper()
	body, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	resp := s.post(t, seller, path, body)
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		t.Fatalf("read the answer of %s: %v", path, err)
	}
	return resp.StatusCode, data
}

// quote asks seller for a signed quote of capStddev.
func (s *stranger) quote(t testing.TB, seller *daemon) market.SignedQuote {
	t.Helper()
	status, data := s.postJSON(t, seller, "/quotes", market.QuoteRequest{Capability: capStddev})
	if status != http.StatusOK {
		t.Fatalf("quote from %s: %d %s", seller.name, status, data)
	}
	var q market.SignedQuote
	if err := json.Unmarshal(data, &q); err != nil {
		t.Fatal(err)
	}
	return q
}

// lock signs a lock for the quote and the input.
func (s *stranger) lock(t testing.TB, q market.SignedQuote, input string) *escrow.Lock {
	t.Helper()
	now := time.Now().UTC().Truncate(time.Millisecond)
	l := &escrow.Lock{
		JobID: escrow.NewJobID(), QuoteID: q.Quote.QuoteID, Capability: q.Quote.Capability,
		Buyer: s.id, Seller: q.Quote.Seller, Amount: int64(q.Quote.Price),
		Deadline: now.Add(maxDuration), Window: q.Quote.Window(), CreatedAt: now,
		InputHash: escrow.HashHex([]byte(input)),
	}
	s.sign(t, l.SigningBytes, &l.Signature)
	return l
}

// settle signs a settle of job for amount.
func (s *stranger) settle(t testing.TB, jobID, decision string, amount int64, buyer peer.ID) *escrow.Settle {
	t.Helper()
	st := &escrow.Settle{JobID: jobID, Decision: decision, Amount: amount, Reason: "forged by the test",
		Buyer: buyer, At: time.Now().UTC().Truncate(time.Millisecond)}
	s.sign(t, st.SigningBytes, &st.Signature)
	return st
}

func (s *stranger) sign(t testing.TB, body func() ([]byte, error), sig *[]byte) {
	t.Helper()
	b, err := body()
	if err != nil {
		t.Fatal(err)
	}
	if *sig, err = s.key.Sign(b); err != nil {
		t.Fatal(err)
	}
}

// jobAnswer is what POST /jobs answered: a status and, on 200, the events.
type jobAnswer struct {
	status int
	body   []byte
	events []market.Event
}

// result is the answer's result event, if any.
func (a jobAnswer) result() *market.Event {
	for i := range a.events {
		if a.events[i].Type == market.EventResult {
			return &a.events[i]
		}
	}
	return nil
}

func (a jobAnswer) String() string {
	if a.status != http.StatusOK {
		return fmt.Sprintf("%d %s", a.status, bytes.TrimSpace(a.body))
	}
	var types []string
	for _, e := range a.events {
		types = append(types, e.Type+" "+e.Message)
	}
	return fmt.Sprintf("200 with events %q", types)
}

// job posts a job with lock and input and reads the answer to its end.
func (s *stranger) job(t testing.TB, seller *daemon, q market.SignedQuote, l *escrow.Lock, input string) jobAnswer {
	t.Helper()
	lj, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	body, err := json.Marshal(market.JobRequest{Quote: q, Lock: lj, Input: json.RawMessage(input)})
	if err != nil {
		t.Fatal(err)
	}
	resp := s.post(t, seller, "/jobs", body)
	defer resp.Body.Close()
	a := jobAnswer{status: resp.StatusCode}
	if resp.StatusCode != http.StatusOK {
		a.body, _ = io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		return a
	}
	r := bufio.NewReader(resp.Body)
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var ev market.Event
			if err := json.Unmarshal(line, &ev); err != nil {
				t.Fatalf("seller sent a malformed event: %v", err)
			}
			a.events = append(a.events, ev)
		}
		if err != nil {
			return a
		}
	}
}

// sellerJob is the part of 'jobs show --json' the test reads.
type sellerJob struct {
	Status string          `json:"status"`
	Input  json.RawMessage `json:"input"`
	Output json.RawMessage `json:"output"`
}

func showJob(t testing.TB, d *daemon, id string) sellerJob {
	t.Helper()
	var j sellerJob
	if err := json.Unmarshal(d.cli(t, "jobs", "show", "--json", id), &j); err != nil {
		t.Fatal(err)
	}
	return j
}

func showEscrow(t testing.TB, d *daemon, id string) escrow.Record {
	t.Helper()
	var r escrow.Record
	if err := json.Unmarshal(d.cli(t, "escrow", "show", "--json", id), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// sameJSON reports whether a and b are the same JSON up to whitespace.
func sameJSON(a, b []byte) bool {
	return bytes.Equal(compact(a), compact(b))
}

func compact(b []byte) []byte {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return append([]byte("invalid JSON: "), b...)
	}
	return buf.Bytes()
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestReplayedAndForgedMessages sends a seller locks and settles it must
// not act on: the same signed lock again (with another input and with the
// same), settles signed by someone who is not the job's buyer, a buyer's
// settle replayed for another job or rewritten, and a settle for another
// amount.
func TestReplayedAndForgedMessages(t *testing.T) {
	t.Parallel()
	var sum tally
	// The buyer holds each delivered job open for a while before it
	// decides, so that forged settles meet an open job.
	const decideAfter = 12 * time.Second
	c := newCluster(t, clusterConfig{honest: true, liar: true, window: 30 * time.Second, sum: &sum,
		failpoints: map[string]string{"buyer": fmt.Sprintf("buyer/after-record-delivery=sleep(%d)", decideAfter.Milliseconds())}})
	mal := newStranger(t)

	// A job of the real buyer refunded on the dishonest seller: its
	// genuine signed refund is what a replay reuses.
	old := c.hire(c.liar, hireTimeout+decideAfter)
	if old.info.Escrow.State != string(escrow.StateRefunded) {
		t.Fatalf("setup: %s", old)
	}
	oldRefund := showEscrow(t, c.buyer, old.info.JobID).Settle
	if oldRefund == nil {
		t.Fatalf("setup: the buyer keeps no signed settle of job %s", old.info.JobID)
	}
	buyerID, err := peer.Decode(c.buyer.id)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("forged settles of the buyer's open job", func(t *testing.T) {
		m := c.watchFor(t, c.honest, "delivery")
		// The job's deadline is far off: the forged settles below must
		// meet a job that is open for them, not one past its deadline on a
		// slow machine (the buyer still decides decideAfter after the
		// delivery, so this takes no longer).
		hire := c.hireAsync(c.honest, hireTimeout+decideAfter+time.Minute)
		m.wait(t)
		var open string
		for id, r := range readLedger(c.honest, "seller", false).escrows {
			if r.State == "delivered" {
				open = id
			}
		}
		amount := showEscrow(t, c.honest, open).Amount
		rewritten := *oldRefund
		rewritten.JobID = open
		for _, tc := range []struct {
			name string
			path string
			st   any
			want int
		}{
			{"refund signed by a stranger in its own name", open, mal.settle(t, open, escrow.DecisionRefund, amount, mal.id), http.StatusForbidden},
			{"refund in the buyer's name signed by a stranger", open, mal.settle(t, open, escrow.DecisionRefund, amount, buyerID), http.StatusForbidden},
			{"release in the buyer's name signed by a stranger", open, mal.settle(t, open, escrow.DecisionRelease, amount, buyerID), http.StatusForbidden},
			{"the buyer's refund of another job, replayed", open, oldRefund, http.StatusBadRequest},
			{"the buyer's refund of another job, its job ID rewritten", open, &rewritten, http.StatusForbidden},
		} {
			status, body := mal.postJSON(t, c.honest, "/jobs/"+tc.path+"/settle", tc.st)
			c.injected(1)
			if status != tc.want {
				t.Errorf("%s: answered %d %s, want %d", tc.name, status, bytes.TrimSpace(body), tc.want)
			}
			if r := showEscrow(t, c.honest, open); r.State != escrow.StateDelivered {
				t.Errorf("%s: the seller's job %s is now %s (%s), want it still delivered", tc.name, open, r.State, r.Reason)
			}
		}
		if h := <-hire; h.info.Outcome != "released" {
			t.Errorf("the buyer's own decision must still count: %s", h)
		}
	})

	t.Run("lock replayed", func(t *testing.T) {
		q := mal.quote(t, c.liar)
		l := mal.lock(t, q, stddevInput)
		first := mal.job(t, c.liar, q, l, stddevInput)
		res := first.result()
		if res == nil {
			t.Fatalf("the first job: %s", first)
		}
		runs := c.liarRunCount(t)
		for _, input := range []string{`{"data":[1,1,1]}`, stddevInput} {
			again := mal.job(t, c.liar, q, l, input)
			c.injected(1)
			t.Logf("the same lock again with input %s: %s", input, again)
			switch r := again.result(); {
			case again.status == http.StatusConflict:
			case r != nil && bytes.Equal(r.Output, res.Output) && bytes.Equal(r.Delivery, res.Delivery):
			default:
				t.Errorf("the same lock again with input %s: got %s, want the first result or 409", input, again)
			}
			if n := c.liarRunCount(t); n != runs {
				t.Errorf("the same lock again with input %s ran the handler again (%d runs, want %d)", input, n, runs)
			}
			j := showJob(t, c.liar, l.JobID)
			if !sameJSON(j.Input, []byte(stddevInput)) || j.Status != "delivered" || !sameJSON(j.Output, res.Output) {
				t.Errorf("the same lock again with input %s changed the seller's job record: status %q, input %s, output of %d bytes (want delivered, %s, %d bytes)",
					input, j.Status, compact(j.Input), len(compact(j.Output)), stddevInput, len(res.Output))
			}
			if r := showEscrow(t, c.liar, l.JobID); r.State != escrow.StateDelivered || r.OutputHash != sha(res.Output) {
				t.Errorf("the same lock again changed the seller's escrow: %s, output hash %s", r.State, r.OutputHash)
			}
		}
		// The stranger refunds, as a buyer would for this output.
		if status, body := mal.postJSON(t, c.liar, "/jobs/"+l.JobID+"/settle", mal.settle(t, l.JobID, escrow.DecisionRefund, l.Amount, mal.id)); status != http.StatusOK {
			t.Errorf("the stranger's own refund: %d %s", status, body)
		}
	})

	t.Run("settles replayed for another job of the same buyer", func(t *testing.T) {
		q := mal.quote(t, c.liar)
		a, b := mal.lock(t, q, stddevInput), mal.lock(t, q, stddevInput)
		for _, l := range []*escrow.Lock{a, b} {
			if ans := mal.job(t, c.liar, q, l, stddevInput); ans.result() == nil {
				t.Fatalf("job %s: %s", l.JobID, ans)
			}
		}
		refundA := mal.settle(t, a.JobID, escrow.DecisionRefund, a.Amount, mal.id)
		if status, body := mal.postJSON(t, c.liar, "/jobs/"+a.JobID+"/settle", refundA); status != http.StatusOK {
			t.Fatalf("refund of %s: %d %s", a.JobID, status, body)
		}
		rewritten := *refundA
		rewritten.JobID = b.JobID
		for _, tc := range []struct {
			name string
			st   any
			want int
		}{
			{"refund of job A posted to job B", refundA, http.StatusBadRequest},
			{"refund of job A with job B's ID written in", &rewritten, http.StatusForbidden},
			{"release of job B for another amount", mal.settle(t, b.JobID, escrow.DecisionRelease, b.Amount*2, mal.id), http.StatusConflict},
		} {
			status, body := mal.postJSON(t, c.liar, "/jobs/"+b.JobID+"/settle", tc.st)
			c.injected(1)
			if status != tc.want {
				t.Errorf("%s: answered %d %s, want %d", tc.name, status, bytes.TrimSpace(body), tc.want)
			}
			if r := showEscrow(t, c.liar, b.JobID); r.State != escrow.StateDelivered {
				t.Errorf("%s: job B is now %s, want it still delivered", tc.name, r.State)
			}
		}
		if status, body := mal.postJSON(t, c.liar, "/jobs/"+b.JobID+"/settle", mal.settle(t, b.JobID, escrow.DecisionRefund, b.Amount, mal.id)); status != http.StatusOK {
			t.Errorf("refund of %s: %d %s", b.JobID, status, body)
		}
	})

	c.check(t, c.converge(time.Now(), mal.id.String()))
	t.Logf("summary: %s", &sum)
}
