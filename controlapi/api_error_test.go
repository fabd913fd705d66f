package controlapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAPIErrorsKeepTheirKind: an error the daemon answers with comes back
// out of the client as the same kind of error (errors.Is), by its code,
// not by its message.
func TestAPIErrorsKeepTheirKind(t *testing.T) {
	for _, c := range errorCodes() {
		t.Run(c.code, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				fail(w, fmt.Errorf("job x: %w", c.err))
			}))
			defer srv.Close()
			cl := &Client{base: srv.URL, http: srv.Client()}
			err := cl.do(context.Background(), http.MethodGet, "/", nil, nil)
			var ae *APIError
			require.ErrorAs(t, err, &ae)
			require.Equal(t, c.code, ae.Code)
			require.ErrorIs(t, err, c.err)
			for _, other := range errorCodes() {
				if other.code != c.code {
					require.NotErrorIs(t, err, other.err, "a %s answer is not %s", c.code, other.code)
				}
			}
		})
	}
	t.Run("no code", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			fail(w, errors.New("something else"))
		}))
		defer srv.Close()
		err := (&Client{base: srv.URL, http: srv.Client()}).do(context.Background(), http.MethodGet, "/", nil, nil)
		var ae *APIError
		require.ErrorAs(t, err, &ae)
		require.Empty(t, ae.Code)
		require.Equal(t, http.StatusInternalServerError, ae.Status)
	})
}

// fail answers err as the daemon does: its message and its code.
func fail(w http.ResponseWriter, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusInternalServerError)
	_ = json.NewEncoder(w).Encode(ErrorBody{Error: err.Error(), Code: ErrorCode(err)})
}
