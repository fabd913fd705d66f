package gateway

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// TokenFile is the gateway's bearer token in the repo: created when the
// gateway first starts (mode 0600) and kept across restarts, so a client
// configured with it keeps working. 'swarmwage mcp --http' takes the same
// token.
const TokenFile = "gateway.token"

// maxTokenFile caps the token file: a token is 64 hex digits.
const maxTokenFile = 1 << 10

// EnsureToken returns the token of <repoDir>/gateway.token, creating the
// file with a new random token if there is none.
func EnsureToken(repoDir string) (string, error) {
	path := filepath.Join(repoDir, TokenFile)
	if tok, err := readToken(path); err == nil {
		return tok, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("make a gateway token: %w", err)
	}
	tok := hex.EncodeToString(b)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return readToken(path) // another process made it first
	}
	if err != nil {
		return "", fmt.Errorf("create %s: %w", path, err)
	}
	if _, err := f.WriteString(tok + "\n"); err != nil {
		f.Close()
		os.Remove(path)
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	if err := errors.Join(f.Sync(), f.Close()); err != nil {
		os.Remove(path)
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return tok, nil
}

// readToken reads a token file, refusing one that is too large, empty or
// readable by others.
func readToken(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("%s is readable by others (mode %v): chmod 600 it", path, st.Mode().Perm())
	}
	b, err := io.ReadAll(io.LimitReader(f, maxTokenFile+1))
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	if len(b) > maxTokenFile {
		return "", fmt.Errorf("%s is over %d bytes: not a token file", path, maxTokenFile)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", fmt.Errorf("%s is empty: delete it and a new token is made at the next start", path)
	}
	return tok, nil
}

// RequireToken lets a request through only with "Authorization: Bearer
// <token>"; others get 401 with a WWW-Authenticate challenge and a JSON
// body saying where the token is.
func RequireToken(token string, next http.Handler) http.Handler {
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="swarmwage"`)
			httpError(w, http.StatusUnauthorized, "missing or wrong bearer token: send 'Authorization: Bearer <token>' with the token of <repo>/"+TokenFile)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// BufferBody reads a request's body whole before next runs: at most max
// bytes (413 past that), within timeout (408 past that). The connection's
// read deadline is then lifted, so that a long answer (an SSE stream, a
// hire that takes minutes) is not cut by it, and next reads the body from
// memory.
func BufferBody(max int64, timeout time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		_ = rc.SetReadDeadline(time.Now().Add(timeout))
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
		if err != nil {
			var mbe *http.MaxBytesError
			switch {
			case errors.As(err, &mbe):
				httpError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body is over %d bytes", mbe.Limit))
			case errors.Is(err, os.ErrDeadlineExceeded):
				httpError(w, http.StatusRequestTimeout, fmt.Sprintf("request body did not arrive within %s", timeout))
			default:
				httpError(w, http.StatusBadRequest, "read request body: "+err.Error())
			}
			return
		}
		_ = rc.SetReadDeadline(time.Time{})
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		next.ServeHTTP(w, r)
	})
}
