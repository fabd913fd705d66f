package skillcard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

const (
	// MaxCardSize is the largest SkillCard document accepted, in bytes. The
	// example card of the spec is 2.6 KB; a megabyte leaves room for large
	// schemas while bounding what a file or a peer can make us parse.
	MaxCardSize = 1 << 20

	// DefaultRiskTier is the risk tier of a card whose constraints.riskTier
	// is absent (spec: "Risk tier (1-3, default: 2)").
	DefaultRiskTier = 2

	// DefaultPublisher is the publisher of a card without
	// provenance.publisher (the spec's publisher for user-submitted cards).
	DefaultPublisher = "user"

	// emptyVersion is hashed when a card has no version (spec, Version Hashing).
	emptyVersion = "0.0.0"
)

var (
	// ErrInvalidSkillCard is returned when a document is not a valid
	// SkillCard. Every other error of this package about a card's content
	// wraps it.
	ErrInvalidSkillCard = errors.New("invalid skillcard")
	// ErrNotJSON is returned by Parse when the document is not JSON at all.
	ErrNotJSON = fmt.Errorf("%w: not JSON", ErrInvalidSkillCard)
	// ErrTooLarge is returned by Parse when the document exceeds MaxCardSize.
	ErrTooLarge = fmt.Errorf("%w: too large", ErrInvalidSkillCard)
	// ErrFileName is returned when a card file's name is not
	// {slug}.v{version}.json for the card it holds.
	ErrFileName = fmt.Errorf("%w: file name does not match its content", ErrInvalidSkillCard)
	// ErrSchemaMismatch is returned when a job input or output does not
	// match the card's inputs_schema or outputs_schema.
	ErrSchemaMismatch = errors.New("value does not match the skillcard schema")
)

// Problem is one validation failure: Path is the JSON Pointer (RFC 6901) of
// the offending value in the card ("" for the whole document), Message says
// what is wrong with it.
type Problem struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

func (p Problem) String() string {
	if p.Path == "" {
		return "(document): " + p.Message
	}
	return p.Path + ": " + p.Message
}

// ValidationError lists every problem of an invalid card. It wraps
// ErrInvalidSkillCard.
type ValidationError struct {
	Problems []Problem
}

var _ error = (*ValidationError)(nil)

func (e *ValidationError) Error() string {
	msgs := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		msgs[i] = p.String()
	}
	return ErrInvalidSkillCard.Error() + ": " + strings.Join(msgs, "; ")
}

func (e *ValidationError) Unwrap() error { return ErrInvalidSkillCard }

// Card is a parsed SkillCard. The exported fields hold the spec's fields as
// far as they have the right JSON type; the content hash covers the whole
// document as parsed, unknown fields included. A Card is read-only after
// Parse and safe for concurrent use.
type Card struct {
	Name string `json:"name"`
	// Slug is the card's slug, or the one generated from Name when the
	// document has none (SlugGenerated is then true).
	Slug          string `json:"slug"`
	SlugGenerated bool   `json:"-"`
	Version       string `json:"version"`
	Description   string `json:"description"`
	// InputsSchema and OutputsSchema are the JSON Schemas as written in the card.
	InputsSchema        json.RawMessage   `json:"inputs_schema"`
	OutputsSchema       json.RawMessage   `json:"outputs_schema"`
	Bindings            []Binding         `json:"bindings"`
	Constraints         Constraints       `json:"constraints"`
	RequiredPermissions []string          `json:"required_permissions,omitempty"`
	Examples            []Example         `json:"examples,omitempty"`
	EvalPacks           []json.RawMessage `json:"eval_packs,omitempty"`
	Provenance          Provenance        `json:"provenance"`

	canonical []byte // stable JSON of the whole document
	problems  []Problem
	inputs    *jsonschema.Schema // nil when inputs_schema does not compile
	outputs   *jsonschema.Schema
}

// Constraints is the card's constraints object.
type Constraints struct {
	// RiskTier is nil when absent; use Card.RiskTier for the effective tier.
	RiskTier *int     `json:"riskTier,omitempty"`
	Notes    []string `json:"notes,omitempty"`
}

// Provenance is the card's provenance object.
type Provenance struct {
	Publisher string `json:"publisher,omitempty"`
	Signed    bool   `json:"signed,omitempty"`
	SourceURL string `json:"sourceUrl,omitempty"`
}

// Example is one example invocation: Value is an input matching inputs_schema.
type Example struct {
	Title string          `json:"title"`
	Value json.RawMessage `json:"value"`
}

// Parse reads a SkillCard document. It fails only when data is larger than
// MaxCardSize (ErrTooLarge) or not JSON (ErrNotJSON); every other problem,
// including a document that is JSON but not an object, is reported by
// Validate. A leading UTF-8 byte order mark is ignored.
func Parse(data []byte) (*Card, error) {
	if len(data) > MaxCardSize {
		return nil, fmt.Errorf("%w: %d bytes, the limit is %d", ErrTooLarge, len(data), MaxCardSize)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	canonical, err := StableJSONBytes(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotJSON, err)
	}
	doc, err := decodeJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotJSON, err)
	}
	c := &Card{canonical: canonical}
	c.problems = c.fill(doc)
	return c, nil
}

// FileError is returned by ParseFile and Save when a card file cannot be
// read or is not JSON at all: nothing could be checked. Its message is
// the cause's, which names the file.
type FileError struct {
	Path string
	Err  error
}

var _ error = (*FileError)(nil)

func (e *FileError) Error() string { return e.Err.Error() }

func (e *FileError) Unwrap() error { return e.Err }

// ParseFile reads and parses the card at path. A file that cannot be read
// or is not JSON is a *FileError.
func ParseFile(path string) (*Card, error) {
	c, _, err := readFile(path)
	return c, err
}

// readFile reads the card at path and parses it; data is the file's bytes
// as they are.
func readFile(path string) (_ *Card, data []byte, err error) {
	defer func() {
		if err != nil {
			err = &FileError{Path: path, Err: err}
		}
	}()
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	data, err = io.ReadAll(io.LimitReader(f, MaxCardSize+1))
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	c, err := Parse(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, data, nil
}

// decodeJSON decodes one JSON value keeping numbers as json.Number, the form
// the JSON Schema compiler and validator expect.
func decodeJSON(data []byte) (any, error) {
	return jsonschema.UnmarshalJSON(bytes.NewReader(data))
}

// Validate returns every problem of the card, field by field in the spec's
// order; an empty result means the card is valid.
func (c *Card) Validate() []Problem {
	return append([]Problem(nil), c.problems...)
}

// Err returns nil for a valid card, else a *ValidationError listing every
// problem (it wraps ErrInvalidSkillCard).
func (c *Card) Err() error {
	if len(c.problems) == 0 {
		return nil
	}
	return &ValidationError{Problems: c.Validate()}
}

// Canonical returns the stable JSON of the whole document, the bytes that
// ContentHash hashes.
func (c *Card) Canonical() []byte { return bytes.Clone(c.canonical) }

// ContentHash is keccak256 of the stable JSON of the document as written
// (unknown fields included, a generated slug not added), "0x" + 64 lowercase
// hex digits, as the spec's v2-skillcard.mjs computes it.
func (c *Card) ContentHash() string { return Keccak256Hex(c.canonical) }

// VersionHash is VersionHash(c.Version).
func (c *Card) VersionHash() string { return VersionHash(c.Version) }

// VersionHash is keccak256 of the trimmed version, or of "0.0.0" when it is
// empty (spec, Version Hashing).
func VersionHash(version string) string {
	v := jsTrim(version)
	if v == "" {
		v = emptyVersion
	}
	return Keccak256Hex([]byte(v))
}

// Publisher is provenance.publisher, or DefaultPublisher when absent.
func (c *Card) Publisher() string {
	if p := strings.TrimSpace(c.Provenance.Publisher); p != "" {
		return p
	}
	return DefaultPublisher
}

// RiskTier is constraints.riskTier, or DefaultRiskTier when absent.
func (c *Card) RiskTier() int {
	if c.Constraints.RiskTier != nil {
		return *c.Constraints.RiskTier
	}
	return DefaultRiskTier
}

// FileName is the spec's file name for the card: {slug}.v{version}.json.
// It is only safe to use as a path element for a valid card.
func (c *Card) FileName() string {
	return FileName(c.Slug, c.Version)
}

// FileName builds {slug}.v{version}.json.
func FileName(slug, version string) string {
	return slug + ".v" + version + ".json"
}

// CheckFileName reports (ErrFileName) when the base name of path is not
// c.FileName().
func (c *Card) CheckFileName(path string) error {
	got, want := filepath.Base(path), c.FileName()
	if got != want {
		return fmt.Errorf("%w: %q holds %s version %s, so it should be named %q", ErrFileName, got, c.Slug, c.Version, want)
	}
	return nil
}

// ValidateInput checks a job input against inputs_schema. The error wraps
// ErrSchemaMismatch and names every failing location.
func (c *Card) ValidateInput(input json.RawMessage) error {
	return checkAgainst(c.inputs, "inputs_schema", input)
}

// ValidateOutput checks a binding's output against outputs_schema. The error
// wraps ErrSchemaMismatch and names every failing location.
func (c *Card) ValidateOutput(output json.RawMessage) error {
	return checkAgainst(c.outputs, "outputs_schema", output)
}

func checkAgainst(sch *jsonschema.Schema, name string, raw json.RawMessage) error {
	if sch == nil {
		return fmt.Errorf("%w: %s does not compile", ErrInvalidSkillCard, name)
	}
	v, err := decodeJSON(raw)
	if err != nil {
		return fmt.Errorf("%w: not JSON: %w", ErrSchemaMismatch, err)
	}
	if err := sch.Validate(v); err != nil {
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			return fmt.Errorf("%w: %w", ErrSchemaMismatch, err)
		}
		msgs := []string{}
		for _, p := range schemaProblems("", ve) {
			msgs = append(msgs, p.String())
		}
		return fmt.Errorf("%w (%s): %s", ErrSchemaMismatch, name, strings.Join(msgs, "; "))
	}
	return nil
}

// Slugify generates a slug from a name as the spec describes: lowercase,
// trim, then every run of characters other than a-z and 0-9 becomes one
// hyphen. Lowercasing and trimming follow JavaScript's toLowerCase and trim.
func Slugify(name string) string {
	lower := jsTrim(jsLower(name))
	var b strings.Builder
	hyphen := false
	for _, r := range lower {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			hyphen = false
			continue
		}
		if !hyphen {
			b.WriteByte('-')
			hyphen = true
		}
	}
	return b.String()
}

// jsLower is String.prototype.toLowerCase for the characters that matter
// to a slug: Go's ToLower agrees with it except U+0130, which JavaScript
// lowers to "i" plus a combining dot (so it yields "i-" in a slug).
func jsLower(s string) string {
	return strings.ToLower(strings.ReplaceAll(s, "\u0130", "i\u0307"))
}

// jsTrim is String.prototype.trim: it strips WhiteSpace and LineTerminator
// code points (ECMA-262), which differ from unicode.IsSpace in U+0085 (not
// stripped) and U+FEFF (stripped).
func jsTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		switch r {
		case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0xfeff, 0x2028, 0x2029:
			return true
		}
		return unicode.Is(unicode.Zs, r)
	})
}
