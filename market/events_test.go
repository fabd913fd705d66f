package market

import (
	"bufio"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
)

// vectorJob and vectorDelivery are the job-events vector's (docs/protocol.md).
const (
	vectorJob      = "gcm2vt4bnrrb5ppzwbyduzqlgm"
	vectorDelivery = `{"type":"swarmwage/escrow/delivery/1","job_id":"gcm2vt4bnrrb5ppzwbyduzqlgm","output_hash":"376cdc5846b844a846f07b1699693a8080eab8de539939b3e5786c0aaaffae8f","seller":"12D3KooWJWoaqZhDaoEFshF7Rh1bpY9ohihFhzcW6d69Lr2NASuq","delivered_at":"2026-11-29T12:00:01.5Z","signature":"y72DltxXTR9ydWIlhDSkU2Jv0rjVk+a3au8nnPu0n2wEr1UDt14O9wuQrBi6NK/+cEuX7idyNB5uYlDBDjtkAA=="}`
)

func ev(typ, extra string) string {
	return `{"type":"` + typ + `","job_id":"` + vectorJob + `"` + extra + "}\n"
}

// earlyStub checks nothing: it keeps the early delivery.
func earlyStub(e Event, d *escrow.Delivery) *precheck {
	return &precheck{out: e.Output, d: d, event: e}
}

// TestReadJobEvents: a job's events end in a result, in an early delivery
// once durable, or in the job's error; a stream that ends first broke,
// and events out of order or of another job are malformed.
func TestReadJobEvents(t *testing.T) {
	delivery := `,"output":{"result":2.5},"delivery":` + vectorDelivery
	cases := []struct {
		name    string
		stream  string
		want    error  // errors.Is
		wantMsg string // in the error
		early   bool   // returned with its early check
		seen    []string
	}{
		{name: "result", stream: ev(EventAccepted, "") + ev(EventResult, delivery), seen: []string{EventAccepted, EventResult}},
		{name: "early delivery, durable", stream: ev(EventAccepted, "") + ev(EventDelivery, delivery) + ev(EventDurable, ""), early: true, seen: []string{EventAccepted, EventResult}},
		{name: "early delivery, then the end", stream: ev(EventAccepted, "") + ev(EventDelivery, delivery), want: errStreamBroke, seen: []string{EventAccepted}},
		{name: "durable first", stream: ev(EventDurable, ""), wantMsg: "durable before any delivery"},
		{name: "two deliveries", stream: ev(EventDelivery, delivery) + ev(EventDelivery, delivery), wantMsg: "a second delivery"},
		{name: "result after an early delivery", stream: ev(EventDelivery, delivery) + ev(EventResult, delivery), wantMsg: "a result after an early delivery"},
		{name: "timed out", stream: ev(EventError, `,"message":"no result","status":504`), want: ErrTimedOut, seen: []string{EventError}},
		{name: "another job", stream: `{"type":"accepted","job_id":"other"}` + "\n", wantMsg: "malformed"},
		{name: "not JSON", stream: "nope\n", wantMsg: "malformed"},
		{name: "a line over the limit", stream: ev(EventProgress, `,"message":"`+strings.Repeat("x", maxEventLine)+`"`), want: errStreamBroke},
		{name: "empty", stream: "", want: errStreamBroke},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var seen []string
			progress := func(e Event) { seen = append(seen, e.Type) }
			out, d, pre, err := readJobEvents(bufio.NewReader(strings.NewReader(tc.stream)), vectorJob, progress, earlyStub)
			require.Equal(t, tc.seen, seen)
			switch {
			case tc.want != nil:
				require.ErrorIs(t, err, tc.want)
			case tc.wantMsg != "":
				require.ErrorContains(t, err, tc.wantMsg)
			default:
				require.NoError(t, err)
				require.JSONEq(t, `{"result":2.5}`, string(out))
				require.Equal(t, vectorJob, d.JobID)
				require.Equal(t, tc.early, pre != nil)
			}
		})
	}
}

// FuzzJobEventsNoPanic: whatever a seller streams, the buyer reads it
// without panicking, and returns a delivery only with no error.
func FuzzJobEventsNoPanic(f *testing.F) {
	delivery := `,"output":{"result":2.5},"delivery":` + vectorDelivery
	f.Add(ev(EventAccepted, "") + ev(EventResult, delivery))
	f.Add(ev(EventAccepted, "") + ev(EventDelivery, delivery) + ev(EventDurable, ""))
	f.Add(ev(EventDelivery, delivery) + ev(EventDelivery, delivery))
	f.Add(ev(EventError, `,"message":"x","status":504,"reasons":["a"]`))
	f.Add("\n\n{}\n")
	f.Fuzz(func(t *testing.T, stream string) {
		out, d, pre, err := readJobEvents(bufio.NewReader(strings.NewReader(stream)), vectorJob, nil, earlyStub)
		if err != nil {
			if d != nil || out != nil || pre != nil {
				t.Fatalf("an error (%v) with a delivery", err)
			}
			return
		}
		if d == nil {
			t.Fatal("no error and no delivery")
		}
	})
}
