package market

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/swarmwage/swarmwage/internal/kv"
	"github.com/swarmwage/swarmwage/verify"
)

// offerVersion is the schema version of stored offers.
const offerVersion = 1

// openSchema is the schema of a non-taxonomy capability whose seller gave
// none: any JSON object.
var openSchema = json.RawMessage(`{"type":"object"}`)

// HandlerConfig says how the seller runs jobs of a listing. It never leaves
// the seller's node.
type HandlerConfig struct {
	Kind string `json:"kind"`
	// Command is the argv of an exec handler; input JSON goes to its stdin.
	Command []string `json:"command,omitempty"`
	// URL receives the input JSON of an http handler as a POST.
	URL string `json:"url,omitempty"`
	// SkillCard is the card JSON of a skillcard handler.
	SkillCard json.RawMessage `json:"skillcard,omitempty"`
	// Dir is where a skillcard's cli binding runs, so a program such as
	// ./run.sh is found next to the card, and where an exec handler runs
	// (the directory its listing was added from; see ResolveExec). Empty:
	// the daemon's working directory.
	Dir string `json:"dir,omitempty"`
	// Env names the node's environment variables an exec handler or a
	// skillcard's cli binding gets, beyond the minimal PATH, HOME, TMPDIR
	// and LANG (see handlerEnv).
	Env []string `json:"env,omitempty"`

	// Model is the model an openai handler asks its server for.
	Model string `json:"model,omitempty"`
	// BaseURL is an openai handler's OpenAI-compatible server, up to and
	// including /v1 (http://localhost:11434/v1).
	BaseURL string `json:"base_url,omitempty"`
	// APIKeyEnv names the daemon's environment variable the API key of an
	// openai handler is read from at each job (empty: OPENAI_API_KEY). The
	// key itself is never stored.
	APIKeyEnv string `json:"api_key_env,omitempty"`
	// Prompt is the listing's own prompt template ('sell add --prompt
	// FILE'), in place of the embedded one of its family.
	Prompt string `json:"prompt,omitempty"`
	// Retries is how many times an output of an openai or mcp handler that
	// fails the buyer's checks is asked for again; nil: DefaultRetries.
	Retries *int `json:"retries,omitempty"`
	// Tool is the tool of an mcp or mcp+http handler's server.
	Tool string `json:"tool,omitempty"`
}

// String is the handler as the CLI writes it: builtin, exec:CMD, http:URL,
// openai:MODEL, mcp:CMD, mcp+http:URL.
// ParseHandler of an exec handler's String gives its argv back.
func (h HandlerConfig) String() string {
	switch h.Kind {
	case HandlerExec:
		return HandlerExec + ":" + quoteCommand(h.Command)
	case HandlerHTTP:
		return HandlerHTTP + ":" + h.URL
	case HandlerSkillCard:
		return HandlerSkillCard
	case HandlerOpenAI:
		return HandlerOpenAI + ":" + h.Model
	case HandlerMCP:
		return HandlerMCP + ":" + quoteCommand(h.Command)
	case HandlerMCPHTTP:
		return HandlerMCPHTTP + ":" + h.URL
	default:
		return h.Kind
	}
}

// ParseHandler parses a handler flag: "builtin", "exec:CMD ARGS..." (split
// into argv like a shell would split words, but never run by a shell),
// "http:URL", "openai:MODEL" (the server is HandlerConfig.BaseURL, set
// apart), "mcp:CMD ARGS..." (split like exec) or "mcp+http:URL" (the tool
// is HandlerConfig.Tool, set apart).
func ParseHandler(spec string) (HandlerConfig, error) {
	kind, arg, _ := strings.Cut(spec, ":")
	switch kind {
	case HandlerBuiltin:
		if arg != "" {
			return HandlerConfig{}, fmt.Errorf("handler %q: builtin takes no argument", spec)
		}
		return HandlerConfig{Kind: HandlerBuiltin}, nil
	case HandlerExec:
		argv, err := SplitCommand(arg)
		if err != nil {
			return HandlerConfig{}, fmt.Errorf("handler %q: %w", spec, err)
		}
		if len(argv) == 0 {
			return HandlerConfig{}, fmt.Errorf("handler %q: exec needs a command, as exec:CMD", spec)
		}
		return HandlerConfig{Kind: HandlerExec, Command: argv}, nil
	case HandlerHTTP:
		u, err := url.Parse(arg)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return HandlerConfig{}, fmt.Errorf("handler %q: http needs an http:// or https:// URL, as http:URL", spec)
		}
		return HandlerConfig{Kind: HandlerHTTP, URL: arg}, nil
	case HandlerOpenAI:
		if strings.TrimSpace(arg) == "" || strings.ContainsAny(arg, " \t\n") {
			return HandlerConfig{}, fmt.Errorf("handler %q: openai needs the server's model name, as openai:llama3.2", spec)
		}
		return HandlerConfig{Kind: HandlerOpenAI, Model: arg}, nil
	case HandlerMCP:
		argv, err := SplitCommand(arg)
		if err != nil {
			return HandlerConfig{}, fmt.Errorf("handler %q: %w", spec, err)
		}
		if len(argv) == 0 {
			return HandlerConfig{}, fmt.Errorf("handler %q: mcp needs the server's command, as mcp:CMD", spec)
		}
		return HandlerConfig{Kind: HandlerMCP, Command: argv}, nil
	case HandlerMCPHTTP:
		u, err := url.Parse(arg)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return HandlerConfig{}, fmt.Errorf("handler %q: mcp+http needs the server's http:// or https:// URL, as mcp+http:http://127.0.0.1:3001/mcp", spec)
		}
		return HandlerConfig{Kind: HandlerMCPHTTP, URL: arg}, nil
	default:
		return HandlerConfig{}, fmt.Errorf("handler %q: unknown kind %q (want builtin, exec:CMD, http:URL, openai:MODEL, mcp:CMD or mcp+http:URL)", spec, kind)
	}
}

// SplitCommand splits a command line into argv: words separated by spaces,
// single or double quotes group words, backslash escapes the next character.
func SplitCommand(s string) ([]string, error) {
	var (
		argv  []string
		cur   strings.Builder
		inArg bool
		quote rune
	)
	runes := []rune(s)
	for i := 0; i < len(runes); i++ {
		r := runes[i]
		switch {
		case r == '\\' && quote != '\'':
			if i+1 == len(runes) {
				return nil, errors.New("command ends with a backslash")
			}
			i++
			cur.WriteRune(runes[i])
			inArg = true
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '"' || r == '\'':
			quote = r
			inArg = true
		case r == ' ' || r == '\t' || r == '\n':
			if inArg {
				argv = append(argv, cur.String())
				cur.Reset()
				inArg = false
			}
		default:
			cur.WriteRune(r)
			inArg = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated %c quote in command", quote)
	}
	if inArg {
		argv = append(argv, cur.String())
	}
	return argv, nil
}

// Offer is a listing as the seller stores it: the signed listing buyers see
// and the handler that runs its jobs.
type Offer struct {
	Version int           `json:"v"`
	Signed  SignedListing `json:"signed"`
	Handler HandlerConfig `json:"handler"`
}

// ListingParams is what a seller gives to list a capability.
type ListingParams struct {
	Capability string
	Price      int64
	Handler    HandlerConfig
	// InputSchema and OutputSchema are used for capabilities outside the
	// taxonomy; standard capabilities always use the taxonomy's schemas.
	InputSchema, OutputSchema json.RawMessage
	SkillCardHash             string
	RiskTier                  int
	RequiredPermissions       []string
}

// Store keeps a seller's offers in Badger. It works without the network, so
// the CLI can edit listings while no daemon runs. Safe for concurrent use.
type Store struct {
	db   *kv.DB
	key  crypto.PrivKey
	self peer.ID
	now  func() time.Time
	// settlement is signed into every listing (ListingSettlement); nil:
	// credits. A Store opened offline has none; the daemon signs its
	// listings again with its own at start (resignListings).
	settlement *Settlement
	// terms are signed into every listing (ListingTerms); the market signs
	// older listings again with its own at start (resignListings), and
	// when it learns its accept horizon later (SetAcceptHorizon).
	terms atomic.Pointer[ListingTerms]

	// offers are Get's offers by capability, read once: the seller reads
	// its offer on every quote and job. Every write of a listing goes
	// through putSigned or Delete, which drop the capability's entry
	// (the only writers: this Store owns the listing keys, and a node
	// opens one Store on its database). A read-only store, which another
	// process may be writing under, caches nothing.
	offersMu sync.Mutex
	offers   map[string]Offer
	written  uint64 // listings written: a Get that read before one caches nothing
}

// NewStore returns the offer store of the node with key, in db.
func NewStore(db *badger.DB, key crypto.PrivKey) (*Store, error) { return newStore(kv.Open(db), key) }

func newStore(db *kv.DB, key crypto.PrivKey) (*Store, error) {
	id, err := peer.IDFromPrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("listing store: %w", err)
	}
	return &Store{db: db, key: key, self: id, now: time.Now, offers: map[string]Offer{}}, nil
}

// cached returns the offer for capID that Get read before, if any, and
// the count of listings written so far.
func (s *Store) cached(capID string) (Offer, bool, uint64) {
	s.offersMu.Lock()
	defer s.offersMu.Unlock()
	o, ok := s.offers[capID]
	return o, ok, s.written
}

// keep caches o for capID if no listing was written since written.
func (s *Store) keep(capID string, o Offer, written uint64) {
	if s.db.ReadOnly() {
		return
	}
	s.offersMu.Lock()
	defer s.offersMu.Unlock()
	if s.written == written {
		s.offers[capID] = o
	}
}

// forget drops capID's cached offer once its listing was written.
func (s *Store) forget(capID string) {
	s.offersMu.Lock()
	defer s.offersMu.Unlock()
	delete(s.offers, capID)
	s.written++
}

// Put validates, signs and stores an offer, replacing one for the same
// capability.
func (s *Store) Put(ctx context.Context, p ListingParams) (Offer, error) {
	if err := verify.CheckID(p.Capability); err != nil {
		return Offer{}, err
	}
	if p.Price <= 0 {
		return Offer{}, fmt.Errorf("list %s: price must be greater than 0", p.Capability)
	}
	if err := CheckHandlerEnv(p.Handler); err != nil {
		return Offer{}, fmt.Errorf("list %s: %w", p.Capability, err)
	}
	in, out, err := schemasFor(p)
	if err != nil {
		return Offer{}, fmt.Errorf("list %s: %w", p.Capability, err)
	}
	l := Listing{
		Version:             listingVersion,
		Capability:          p.Capability,
		Price:               Credits(p.Price),
		Handler:             p.Handler.Kind,
		InputSchema:         in,
		OutputSchema:        out,
		Seller:              s.self,
		CreatedAt:           s.now().UTC().Truncate(time.Second),
		SkillCardHash:       p.SkillCardHash,
		RiskTier:            p.RiskTier,
		RequiredPermissions: p.RequiredPermissions,
		Settlement:          s.settlement,
		Terms:               s.terms.Load(),
	}
	if err := s.putSigned(l, p.Handler); err != nil {
		return Offer{}, err
	}
	return s.Get(ctx, p.Capability)
}

// putSigned signs l and stores it with its handler.
func (s *Store) putSigned(l Listing, h HandlerConfig) error {
	signed, err := SignListing(s.key, l)
	if err != nil {
		return err
	}
	o := Offer{Version: offerVersion, Signed: signed, Handler: h}
	val, err := json.Marshal(o)
	if err != nil {
		return fmt.Errorf("encode listing %s: %w", l.Capability, err)
	}
	err = s.db.Update(func(txn kv.Txn) error { return txn.Set(listingKey(l.Capability), val) })
	s.forget(l.Capability)
	if err != nil {
		return fmt.Errorf("store listing %s: %w", l.Capability, err)
	}
	return nil
}

// schemasFor picks the schemas of a listing: the taxonomy's for standard
// capabilities, the seller's (or an open object schema) for the others.
func schemasFor(p ListingParams) (in, out json.RawMessage, err error) {
	in, inErr := verify.InputSchema(p.Capability)
	out, outErr := verify.OutputSchema(p.Capability)
	if inErr == nil && outErr == nil {
		if p.InputSchema != nil || p.OutputSchema != nil {
			return nil, nil, errors.New("standard capabilities use the taxonomy's schemas; drop the schema options")
		}
		return in, out, nil
	}
	in, out = p.InputSchema, p.OutputSchema
	for _, s := range []*json.RawMessage{&in, &out} {
		if len(*s) == 0 {
			*s = openSchema
		} else if !json.Valid(*s) {
			return nil, nil, errors.New("schema is not valid JSON")
		}
	}
	return in, out, nil
}

// Get returns the offer for capID, or ErrNotListed.
//
// The offer's slices and maps are shared with later calls: read them,
// do not change them.
func (s *Store) Get(ctx context.Context, capID string) (Offer, error) {
	o, ok, written := s.cached(capID)
	if ok {
		return o, nil
	}
	err := s.db.View(func(txn kv.Reader) error {
		v, err := txn.Get(listingKey(capID))
		if err != nil {
			return err
		}
		return json.Unmarshal(v, &o)
	})
	if errors.Is(err, kv.ErrNotFound) {
		return Offer{}, fmt.Errorf("%w: %s", ErrNotListed, capID)
	}
	if err != nil {
		return Offer{}, fmt.Errorf("read listing %s: %w", capID, err)
	}
	s.keep(capID, o, written)
	return o, nil
}

// Delete removes the offer for capID, or returns ErrNotListed.
func (s *Store) Delete(ctx context.Context, capID string) error {
	err := s.db.Update(func(txn kv.Txn) error {
		if _, err := txn.Get(listingKey(capID)); err != nil {
			return err
		}
		return txn.Delete(listingKey(capID))
	})
	s.forget(capID)
	if errors.Is(err, kv.ErrNotFound) {
		return fmt.Errorf("%w: %s", ErrNotListed, capID)
	}
	if err != nil {
		return fmt.Errorf("remove listing %s: %w", capID, err)
	}
	return nil
}

// List returns every offer, ordered by capability. Corrupt records are
// skipped, not fatal: one bad value must not hide the others.
func (s *Store) List(ctx context.Context) ([]Offer, error) {
	var out []Offer
	err := s.db.View(func(txn kv.Reader) error {
		return txn.Scan([]byte(listingPrefix), func(_, v []byte) error {
			var o Offer
			if err := json.Unmarshal(v, &o); err == nil && o.Version == offerVersion {
				out = append(out, o)
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list listings: %w", err)
	}
	return out, nil
}
