package node

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/market/builtin"
	"github.com/swarmwage/swarmwage/market/handler/openai"
	"github.com/swarmwage/swarmwage/verify"
)

// This node's listings: the offers in its store, and a listing request
// checked and turned into market parameters.

// listingParams turns the request into market listing parameters.
func listingParams(req controlapi.AddListingRequest) (market.ListingParams, error) {
	if req.Capability != "" || len(req.SkillCard) == 0 {
		if err := verify.CheckKnown(req.Capability); err != nil {
			return market.ListingParams{}, err
		}
	}
	price, err := escrow.ParseAmount(req.Price)
	if err != nil {
		return market.ListingParams{}, fmt.Errorf("%w: price %q: %v", controlapi.ErrBadRequest, req.Price, err)
	}
	if len(req.SkillCard) > 0 {
		p, err := market.SkillCardListing(req.SkillCard, req.Capability, req.SkillCardDir, price)
		if err != nil {
			return market.ListingParams{}, fmt.Errorf("%w: %v", controlapi.ErrBadRequest, err)
		}
		p.Handler.Env = req.Env
		if err := market.CheckHandlerEnv(p.Handler); err != nil {
			return market.ListingParams{}, fmt.Errorf("%w: %v", controlapi.ErrBadRequest, err)
		}
		return p, nil
	}
	spec := req.Handler
	if spec == "" {
		spec = market.HandlerBuiltin
	}
	h, err := market.ParseHandler(spec)
	if err != nil {
		return market.ListingParams{}, fmt.Errorf("%w: %v", controlapi.ErrBadRequest, err)
	}
	h.Env = req.Env
	if err := market.CheckHandlerEnv(h); err != nil {
		return market.ListingParams{}, fmt.Errorf("%w: %v", controlapi.ErrBadRequest, err)
	}
	if err := setRunnerFields(&h, req); err != nil {
		return market.ListingParams{}, fmt.Errorf("%w: %v", controlapi.ErrBadRequest, err)
	}
	if h, err = market.ResolveExec(h, req.Dir); err != nil {
		return market.ListingParams{}, fmt.Errorf("%w: %v", controlapi.ErrBadRequest, err)
	}
	if h.Kind == market.HandlerBuiltin && !slices.Contains(builtin.AllCapabilities(), req.Capability) {
		return market.ListingParams{}, fmt.Errorf("%w: this binary has no built-in handler for %s ('swarmwage caps list --builtin' lists them); give one with --handler exec:CMD or --handler http:URL", controlapi.ErrBadRequest, req.Capability)
	}
	return market.ListingParams{
		Capability: req.Capability, Price: price, Handler: h,
		InputSchema: req.InputSchema, OutputSchema: req.OutputSchema,
	}, nil
}

// setRunnerFields puts the request's openai and mcp settings on h and
// checks them: each belongs to its kind only.
func setRunnerFields(h *market.HandlerConfig, req controlapi.AddListingRequest) error {
	isOpenAI, isMCP := h.Kind == market.HandlerOpenAI, h.Kind == market.HandlerMCP || h.Kind == market.HandlerMCPHTTP
	switch {
	case !isOpenAI && (req.BaseURL != "" || req.APIKeyEnv != "" || req.Prompt != ""):
		return errors.New("base_url, api_key_env and prompt go with an openai:MODEL handler")
	case !isMCP && req.Tool != "":
		return errors.New("tool goes with an mcp:CMD or mcp+http:URL handler")
	case !isOpenAI && !isMCP && req.Retries != nil:
		return errors.New("retries go with openai:MODEL and mcp handlers (the others' output is delivered as it is)")
	case isMCP && req.Tool == "":
		return errors.New("an mcp handler needs the tool to call, as --tool NAME")
	}
	if req.Retries != nil {
		if err := market.CheckRetries(*req.Retries); err != nil {
			return err
		}
	}
	h.BaseURL, h.APIKeyEnv, h.Prompt, h.Retries, h.Tool = req.BaseURL, req.APIKeyEnv, req.Prompt, req.Retries, req.Tool
	if isOpenAI {
		return openai.CheckListing(*h, req.Capability)
	}
	return nil
}

// Listings lists the offers in store.
func Listings(ctx context.Context, store *market.Store) (controlapi.ListingsInfo, error) {
	offers, err := store.List(ctx)
	if err != nil {
		return controlapi.ListingsInfo{}, err
	}
	out := controlapi.ListingsInfo{Listings: []controlapi.ListingInfo{}}
	for _, o := range offers {
		out.Listings = append(out.Listings, controlapi.NewListingInfo(o))
	}
	return out, nil
}

// AddListingLocal stores a listing without a daemon; the daemon announces it
// when it starts.
func AddListingLocal(ctx context.Context, store *market.Store, req controlapi.AddListingRequest) (controlapi.ListingInfo, error) {
	p, err := listingParams(req)
	if err != nil {
		return controlapi.ListingInfo{}, err
	}
	o, err := store.Put(ctx, p)
	if err != nil {
		return controlapi.ListingInfo{}, err
	}
	return controlapi.NewListingInfo(o), nil
}
