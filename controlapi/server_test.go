package controlapi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market"
)

// fakeBackend answers the few routes these tests call; any other route
// panics (the embedded Backend is nil).
type fakeBackend struct {
	controlapi.Backend
	events chan controlapi.Event
}

func (fakeBackend) Job(_ context.Context, jobID string) (market.JobRecord, error) {
	return market.JobRecord{}, fmt.Errorf("job %s: %w", jobID, market.ErrJobNotFound)
}

func (fakeBackend) CancelJob(context.Context, string) (escrow.Record, error) {
	return escrow.Record{}, controlapi.ErrNotRunning
}

func (fakeBackend) Address() (string, error) { return "", controlapi.ErrNoRailAddress }

func (fakeBackend) CheckListing(controlapi.AddListingRequest) (market.ListingParams, error) {
	return market.ListingParams{}, errors.New("price \"x\": not a number")
}

func (b fakeBackend) SubscribeEvents() (controlapi.EventStream, bool) {
	return controlapi.EventStream{C: b.events, Lost: func() bool { return false }, Cancel: func() {}}, true
}

func serve(t *testing.T, b controlapi.Backend) (*controlapi.Server, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dir := t.TempDir()
	srv, err := controlapi.Serve(ln, b, controlapi.ServerConfig{Dir: dir})
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Close() })
	return srv, dir
}

// TestServerAnswersAsTheDaemonDid: the guard, the token and the mapping
// of a backend's errors to statuses and codes.
func TestServerAnswersAsTheDaemonDid(t *testing.T) {
	srv, dir := serve(t, fakeBackend{})
	c, err := controlapi.Dial(dir)
	require.NoError(t, err)
	ctx := context.Background()

	get := func(host, auth string) int {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL()+"/v1/jobs/x", nil)
		require.NoError(t, err)
		if host != "" {
			req.Host = host
		}
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	require.Equal(t, http.StatusUnauthorized, get("", ""), "no token")
	require.Equal(t, http.StatusUnauthorized, get("", "Bearer wrong"), "wrong token")
	require.Equal(t, http.StatusForbidden, get("evil.example:80", ""), "another Host (DNS rebinding)")

	tests := []struct {
		name   string
		call   func() error
		status int
		code   string
		is     error
	}{
		{"job not found", func() error { _, err := c.Job(ctx, "x"); return err }, http.StatusNotFound, "job_not_found", market.ErrJobNotFound},
		{"cancel of no live hire", func() error { _, err := c.CancelJob(ctx, "x"); return err }, http.StatusNotFound, "", nil},
		{"bad listing request", func() error { _, err := c.AddListing(ctx, controlapi.AddListingRequest{}); return err }, http.StatusBadRequest, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			var ae *controlapi.APIError
			require.ErrorAs(t, err, &ae)
			require.Equal(t, tt.status, ae.Status)
			require.Equal(t, tt.code, ae.Code)
			if tt.is != nil {
				require.ErrorIs(t, err, tt.is)
			}
		})
	}
}

// TestServerEventsEndOnClose: an open event stream does not hold up Close.
func TestServerEventsEndOnClose(t *testing.T) {
	events := make(chan controlapi.Event, 1)
	srv, dir := serve(t, fakeBackend{events: events})
	tok, err := readToken(dir)
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodGet, srv.URL()+"/v1/events", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	events <- controlapi.Event{Type: controlapi.EventJobCreated, JobID: "j1"}
	sc := bufio.NewScanner(resp.Body)
	var got controlapi.Event
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			require.NoError(t, json.Unmarshal([]byte(data), &got))
			break
		}
	}
	require.Equal(t, "j1", got.JobID)
	require.NoError(t, srv.Close())
	for sc.Scan() {
	}
}

func readToken(dir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(dir, controlapi.TokenFile))
	return strings.TrimSpace(string(data)), err
}
