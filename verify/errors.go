package verify

import "errors"

// Sentinel errors of the package. Every error about an ID wraps ErrInvalidID
// or ErrUnknownCapability; schema failures wrap ErrSchema.
var (
	// ErrInvalidID is returned when a capability ID breaks a naming rule of
	// the taxonomy or of WCP. The error names the rule (see IDError).
	ErrInvalidID = errors.New("invalid capability ID")
	// ErrUnknownCapability is returned when a well-formed ID is not in the
	// v0.1 standard taxonomy (and is not custom.*).
	ErrUnknownCapability = errors.New("unknown capability")
	// ErrNoStandardSchema is returned for custom.* capabilities, which have
	// no standard schema: the seller's schema is the only one.
	ErrNoStandardSchema = errors.New("no standard schema for custom capability")
	// ErrSchema is returned (inside a *SchemaError) when a document does not
	// validate against a capability's input or output schema.
	ErrSchema = errors.New("schema validation failed")
	// ErrInvalidTombstone is returned when a WCP tombstone record is malformed.
	ErrInvalidTombstone = errors.New("invalid tombstone")
	// ErrNotJSON is returned when an input or output document is not one
	// JSON value.
	ErrNotJSON = errors.New("not a JSON document")
	// ErrTooLarge is returned when a document exceeds its size limit.
	ErrTooLarge = errors.New("document too large")
)
