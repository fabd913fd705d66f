package market

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"

	"github.com/libp2p/go-libp2p/core/peer"
)

// server is the agent endpoint: the seller's side of the market protocol.
type server struct {
	store *Store
	self  peer.ID
	log   *slog.Logger
	// runtime returns the sandbox runtime descriptor, or nil when this node
	// has no sandbox.
	runtime func() any
	mux     *http.ServeMux
	tamper  func(*SignedListing)
}

var _ http.Handler = (*server)(nil)

func newServer(store *Store, self peer.ID, cfg config) *server {
	s := &server{store: store, self: self, log: cfg.logger, runtime: cfg.runtime, tamper: cfg.tamper, mux: http.NewServeMux()}
	s.mux.HandleFunc("GET /capabilities", s.handleListings)
	s.mux.HandleFunc("GET /capabilities/{id}", s.handleListing)
	s.mux.HandleFunc("GET /capabilities/{id}/schema", s.handleSchema)
	s.mux.HandleFunc("GET /capabilities/{id}/runtime", s.handleRuntime)
	return s
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		// A panic in a handler must not take down the daemon.
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v) // the handler ends the stream on purpose
			}
			s.log.Error("agent endpoint handler panicked", "path", r.URL.Path, "panic", v)
			writeError(w, http.StatusInternalServerError, "internal error")
		}
	}()
	s.mux.ServeHTTP(w, r)
}

// listingsResponse is the body of GET /capabilities.
type listingsResponse struct {
	Seller   peer.ID         `json:"seller"`
	Listings []SignedListing `json:"listings"`
}

func (s *server) handleListings(w http.ResponseWriter, r *http.Request) {
	offers, err := s.store.List(r.Context())
	if err != nil {
		writeError(w, http.StatusInternalServerError, "cannot read listings")
		return
	}
	resp := listingsResponse{Seller: s.self, Listings: []SignedListing{}}
	for _, o := range offers {
		resp.Listings = append(resp.Listings, s.served(o))
	}
	writeJSON(w, http.StatusOK, resp)
}

func (s *server) offer(w http.ResponseWriter, r *http.Request) (Offer, bool) {
	o, err := s.store.Get(r.Context(), r.PathValue("id"))
	if errors.Is(err, ErrNotListed) {
		writeError(w, http.StatusNotFound, "capability not sold here: "+r.PathValue("id"))
		return Offer{}, false
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, "cannot read listing")
		return Offer{}, false
	}
	return o, true
}

func (s *server) handleListing(w http.ResponseWriter, r *http.Request) {
	if o, ok := s.offer(w, r); ok {
		writeJSON(w, http.StatusOK, s.served(o))
	}
}

// served is the signed listing of o as it goes on the wire.
func (s *server) served(o Offer) SignedListing {
	l := o.Signed
	if s.tamper != nil {
		s.tamper(&l)
	}
	return l
}

// SchemaResponse is the body of GET /capabilities/{id}/schema.
type SchemaResponse struct {
	Capability   string          `json:"capability"`
	InputSchema  json.RawMessage `json:"input_schema"`
	OutputSchema json.RawMessage `json:"output_schema"`
}

func (s *server) handleSchema(w http.ResponseWriter, r *http.Request) {
	if o, ok := s.offer(w, r); ok {
		l := o.Signed.Listing
		writeJSON(w, http.StatusOK, SchemaResponse{Capability: l.Capability, InputSchema: l.InputSchema, OutputSchema: l.OutputSchema})
	}
}

func (s *server) handleRuntime(w http.ResponseWriter, r *http.Request) {
	if r.PathValue("id") != "code.execute.sandboxed" {
		writeError(w, http.StatusNotFound, "only code.execute.sandboxed has a runtime descriptor")
		return
	}
	if _, ok := s.offer(w, r); !ok {
		return
	}
	if s.runtime == nil {
		writeError(w, http.StatusNotFound, "this node has no sandbox")
		return
	}
	writeJSON(w, http.StatusOK, s.runtime())
}

// errorBody is the JSON body of every error response of the endpoint.
type errorBody struct {
	Error   string   `json:"error"`
	Reasons []string `json:"reasons,omitempty"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string, reasons ...string) {
	writeJSON(w, status, errorBody{Error: msg, Reasons: reasons})
}
