// Package sellerfile reads seller files (examples/seller.toml): a node's
// config.toml keys plus the [[listing]] tables it sells, in one TOML file,
// and applies them to a repo ('swarmwage sell apply'): PlanApply compares
// the file with the repo's config and listings (what --diff shows),
// Plan.Apply writes the listings and config.toml.
//
// It sits below node because a seller file is a node config (node.Config,
// node.DiffConfig, Repo.WriteConfig) as much as a set of market listings;
// market, which owns listings, may not import node.
package sellerfile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market"
	mcphandler "github.com/swarmwage/swarmwage/market/handler/mcp"
	"github.com/swarmwage/swarmwage/market/handler/openai"
	"github.com/swarmwage/swarmwage/node"
	"github.com/swarmwage/swarmwage/skillcard"
	"github.com/swarmwage/swarmwage/verify"
)

// maxSellerFile caps a seller file; a real one is a few KB.
const maxSellerFile = 1 << 20

// ErrBadFile wraps every problem of a seller file.
var ErrBadFile = errors.New("bad seller file")

// File is a seller's whole setup in one TOML file
// (examples/seller.toml): the node's config, with the same keys as
// <repo>/config.toml, plus the listings to sell as [[listing]] tables.
//
//	[[listing]]
//	capability = "text.rewrite.casual"
//	price      = "0.02"
//	handler    = "exec:python3 examples/workers/rewrite_casual.py"
//
// handler is builtin (the default), exec:CMD, http:URL, openai:MODEL (with
// base_url, api_key_env, prompt and retries), mcp:CMD or mcp+http:URL (with
// tool and retries), as 'sell add --handler' takes it; skillcard = "FILE" sells a SkillCard through its
// first binding instead. env = ["NAME", ...] passes those variables of the
// daemon's environment to an exec handler or a SkillCard's cli binding,
// which otherwise get only PATH, HOME, TMPDIR and LANG ('sell add --env'). input_schema and output_schema name JSON Schema
// files for capabilities outside the taxonomy. Relative file names are
// resolved against the working directory; an exec handler's program must
// exist (in PATH, or as a file) and is stored as an absolute path, and the
// handler runs in the working directory of 'sell apply', whatever the
// daemon's; a SkillCard's cli binding runs in the card's directory.
type File struct {
	node.Config
	Listings []ListingSpec `toml:"listing"`

	// raw is the file's bytes, for ConfigOver.
	raw []byte
}

// ConfigOver is base (a repo's config.toml) with the node keys this file
// sets: keys the file leaves out keep base's values, a [market] key the
// file sets replaces only that key, and a list (listen, [[policy]])
// replaces the whole list.
func (sf File) ConfigOver(base node.Config) (node.Config, error) {
	// Decode into a copy whose slices are its own: decoding may write into
	// a slice's backing array.
	merged := base
	merged.Listen = slices.Clone(base.Listen)
	merged.Bootstrap = slices.Clone(base.Bootstrap)
	merged.Policy = slices.Clone(base.Policy)
	over := File{Config: merged}
	if _, err := toml.NewDecoder(bytes.NewReader(sf.raw)).Decode(&over); err != nil {
		return node.Config{}, fmt.Errorf("%w: %w", ErrBadFile, err)
	}
	merged = over.Config
	if err := merged.Validate(); err != nil {
		return node.Config{}, fmt.Errorf("%w: %w", ErrBadFile, err)
	}
	return merged, nil
}

// ListingSpec is one [[listing]] table.
type ListingSpec struct {
	Capability   string `toml:"capability"`
	Price        string `toml:"price"`
	Handler      string `toml:"handler"`
	SkillCard    string `toml:"skillcard"`
	InputSchema  string `toml:"input_schema"`
	OutputSchema string `toml:"output_schema"`
	// Env names the daemon's environment variables an exec handler or a
	// SkillCard's cli binding gets, beyond PATH, HOME, TMPDIR and LANG.
	Env []string `toml:"env"`
	// BaseURL, APIKeyEnv and Prompt (a template file) go with handler =
	// "openai:MODEL"; Tool with "mcp:CMD" and "mcp+http:URL"; Retries with
	// both ('sell add --base-url, --api-key-env, --prompt, --tool,
	// --retries').
	BaseURL   string `toml:"base_url"`
	APIKeyEnv string `toml:"api_key_env"`
	Prompt    string `toml:"prompt"`
	Tool      string `toml:"tool"`
	Retries   *int   `toml:"retries"`
}

// Load reads and checks a seller file. Every listing is checked
// (price, handler, files) so a mistake is reported before anything is sold.
func Load(path string) (File, []market.ListingParams, error) {
	f, err := os.Open(path)
	if err != nil {
		return File{}, nil, fmt.Errorf("%w: %w", ErrBadFile, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSellerFile+1))
	if err != nil {
		return File{}, nil, fmt.Errorf("%w: read %s: %w", ErrBadFile, path, err)
	}
	return Parse(path, data)
}

// readFileLimited reads a file a seller file names (a schema, a SkillCard)
// of at most maxSellerFile bytes: a name such as /dev/zero must not hang.
func readFileLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxSellerFile+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(data) > maxSellerFile {
		return nil, fmt.Errorf("%s is over %d bytes", path, maxSellerFile)
	}
	return data, nil
}

// Parse parses a seller file's bytes; name is used in errors.
func Parse(name string, data []byte) (File, []market.ListingParams, error) {
	if len(data) > maxSellerFile {
		return File{}, nil, fmt.Errorf("%w: %s is over %d bytes", ErrBadFile, name, maxSellerFile)
	}
	// Unset node keys keep the defaults of a new repo.
	sf := File{Config: node.DefaultConfig("")}
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&sf)
	if err != nil {
		return File{}, nil, fmt.Errorf("%w: %s: %w", ErrBadFile, name, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return File{}, nil, fmt.Errorf("%w: %s: unknown key %q (see the comments in examples/seller.toml)", ErrBadFile, name, und[0].String())
	}
	if err := sf.Config.Validate(); err != nil {
		return File{}, nil, fmt.Errorf("%w: %s: %w", ErrBadFile, name, err)
	}
	sf.raw = data
	if len(sf.Listings) == 0 {
		return File{}, nil, fmt.Errorf("%w: %s has no [[listing]]; add one, as: [[listing]] capability = \"compute.statistics.mean\" price = \"0.01\"", ErrBadFile, name)
	}
	var params []market.ListingParams
	for i, l := range sf.Listings {
		p, err := l.params()
		if err != nil {
			return File{}, nil, fmt.Errorf("%w: %s: listing %d (%s): %w", ErrBadFile, name, i+1, l.Capability, err)
		}
		params = append(params, p)
	}
	return sf, params, nil
}

// params turns a listing table into what the market stores.
func (l ListingSpec) params() (market.ListingParams, error) {
	if l.Capability == "" {
		return market.ListingParams{}, errors.New("capability is missing")
	}
	price, err := escrow.ParseAmount(l.Price)
	if err != nil || price <= 0 {
		return market.ListingParams{}, fmt.Errorf("price %q: want a positive amount of credits such as \"0.05\"", l.Price)
	}
	p := market.ListingParams{Capability: l.Capability, Price: price}
	switch {
	case l.SkillCard != "" && l.Handler != "":
		return p, errors.New("give handler or skillcard, not both")
	case l.SkillCard != "":
		if err := l.skillCard(&p); err != nil {
			return p, err
		}
	default:
		spec := l.Handler
		if spec == "" {
			spec = market.HandlerBuiltin
		}
		if p.Handler, err = market.ParseHandler(spec); err != nil {
			return p, err
		}
		// The program must exist now, and the daemon may start elsewhere.
		if p.Handler, err = market.ResolveExec(p.Handler, ""); err != nil {
			return p, err
		}
	}
	p.Handler.Env = l.Env
	if err := market.CheckHandlerEnv(p.Handler); err != nil {
		return p, err
	}
	if err := l.runnerFields(&p); err != nil {
		return p, err
	}
	for _, s := range []struct {
		key, path string
		dst       *[]byte
	}{{"input_schema", l.InputSchema, (*[]byte)(&p.InputSchema)}, {"output_schema", l.OutputSchema, (*[]byte)(&p.OutputSchema)}} {
		if s.path == "" {
			continue
		}
		data, err := readFileLimited(s.path)
		if err != nil {
			return p, fmt.Errorf("%s: %w", s.key, err)
		}
		*s.dst = data
	}
	return p, nil
}

// runnerFields puts the openai and mcp keys on the listing's handler and
// checks them; an mcp listing of a capability outside the taxonomy takes
// its schemas from the tool (the server is started to read them).
func (l ListingSpec) runnerFields(p *market.ListingParams) error {
	h := &p.Handler
	isOpenAI, isMCP := h.Kind == market.HandlerOpenAI, h.Kind == market.HandlerMCP || h.Kind == market.HandlerMCPHTTP
	switch {
	case !isOpenAI && (l.BaseURL != "" || l.APIKeyEnv != "" || l.Prompt != ""):
		return errors.New("base_url, api_key_env and prompt go with handler = \"openai:MODEL\"")
	case !isMCP && l.Tool != "":
		return errors.New("tool goes with handler = \"mcp:CMD\" or \"mcp+http:URL\"")
	case !isOpenAI && !isMCP && l.Retries != nil:
		return errors.New("retries go with openai and mcp handlers")
	case isMCP && l.Tool == "":
		return errors.New("an mcp handler needs tool = \"NAME\"")
	}
	if l.Retries != nil {
		if err := market.CheckRetries(*l.Retries); err != nil {
			return err
		}
	}
	h.BaseURL, h.APIKeyEnv, h.Tool, h.Retries = l.BaseURL, l.APIKeyEnv, l.Tool, l.Retries
	if l.Prompt != "" {
		data, err := readFileLimited(l.Prompt)
		if err != nil {
			return fmt.Errorf("prompt: %w", err)
		}
		h.Prompt = string(data)
	}
	if isOpenAI {
		return openai.CheckListing(*h, p.Capability)
	}
	if !isMCP || l.InputSchema != "" || l.OutputSchema != "" {
		return nil
	}
	if _, err := verify.InputSchema(p.Capability); err == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), describeTimeout)
	defer cancel()
	tools, err := mcphandler.Describe(ctx, *h, nil)
	if err != nil {
		return fmt.Errorf("read the tools of %s: %w", h.String(), err)
	}
	for _, t := range tools {
		if t.Name == l.Tool {
			p.InputSchema, p.OutputSchema = t.InputSchema, t.OutputSchema
			return nil
		}
	}
	return fmt.Errorf("the MCP server %s has no tool %q", h.String(), l.Tool)
}

// describeTimeout bounds starting an MCP server to read its tools.
const describeTimeout = 90 * time.Second

// skillCard reads and validates the card and binds the listing to it: its
// schemas become the listing's, its hash, risk tier and permissions are
// published with it.
func (l ListingSpec) skillCard(p *market.ListingParams) error {
	data, err := readFileLimited(l.SkillCard)
	if err != nil {
		return fmt.Errorf("skillcard: %w", err)
	}
	card, err := skillcard.Parse(data)
	if err != nil {
		return fmt.Errorf("skillcard %s: %w", l.SkillCard, err)
	}
	if err := card.Err(); err != nil {
		return fmt.Errorf("skillcard %s: %w (run 'swarmwage skillcard validate %s')", l.SkillCard, err, l.SkillCard)
	}
	if l.InputSchema != "" || l.OutputSchema != "" {
		return errors.New("a skillcard listing takes its schemas from the card; drop input_schema and output_schema")
	}
	// The card's cli binding runs in the card's directory, as with 'sell
	// add --skillcard', so a program next to the card is found.
	dir, err := filepath.Abs(filepath.Dir(l.SkillCard))
	if err != nil {
		return fmt.Errorf("skillcard %s: %w", l.SkillCard, err)
	}
	p.Handler = market.HandlerConfig{Kind: market.HandlerSkillCard, SkillCard: data, Dir: dir}
	p.InputSchema, p.OutputSchema = card.InputsSchema, card.OutputsSchema
	p.SkillCardHash = card.ContentHash()
	p.RiskTier = card.RiskTier()
	p.RequiredPermissions = card.RequiredPermissions
	return nil
}

// ApplyListings stores every listing in store (replacing earlier listings
// of the same capabilities). The node announces them when it starts.
func ApplyListings(ctx context.Context, store *market.Store, params []market.ListingParams) ([]market.Offer, error) {
	var out []market.Offer
	for _, p := range params {
		o, err := store.Put(ctx, p)
		if err != nil {
			return out, fmt.Errorf("list %s: %w", p.Capability, err)
		}
		out = append(out, o)
	}
	return out, nil
}
