package verify

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Document size limits. Outputs carry base64 images and audio: a 10 MB PNG
// is 13.4 MB of base64, so outputs get room above that and inputs less.
const (
	// MaxOutputSize is the largest output document Verify reads.
	MaxOutputSize = 32 << 20
	// MaxInputSize is the largest input document Verify reads.
	MaxInputSize = 16 << 20
	// maxSellerSchemaSize caps a seller-provided schema (VerifyWithSchema).
	maxSellerSchemaSize = 1 << 20
	// maxReasons caps the reasons listed in one SchemaError, so a hostile
	// document with a million bad items does not produce a million lines.
	maxReasons = 20
)

const schemaBaseURL = "https://schemas.swarmwage.invalid/v0.1/"

// SchemaError lists why a document failed a capability's schema. Each
// reason starts with the JSON pointer of the offending value. It wraps
// ErrSchema.
type SchemaError struct {
	Capability string
	// Document is "input" or "output".
	Document string
	Reasons  []string
}

var _ error = (*SchemaError)(nil)

func (e *SchemaError) Error() string {
	return fmt.Sprintf("%s of %s does not match its schema: %s", e.Document, e.Capability, strings.Join(e.Reasons, "; "))
}

func (e *SchemaError) Unwrap() error { return ErrSchema }

// compiledSchema is one schema, with its source text for InputSchema/OutputSchema.
type compiledSchema struct {
	raw    json.RawMessage
	schema *jsonschema.Schema
}

func inKey(template string) string           { return template + "#input" }
func outKey(template, variant string) string { return template + "#output/" + variant }
func variantOf(s *capSpec, p map[string]string) string {
	if s.variant == "" {
		return ""
	}
	return p[s.variant]
}

// compile compiles every schema of the taxonomy once.
func (r *registry) compile() error {
	c := newCompiler()
	r.schemas = map[string]*compiledSchema{}
	n := 0
	add := func(key, text string) error {
		n++
		url := fmt.Sprintf("%s%d.json", schemaBaseURL, n)
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
		if err != nil {
			return fmt.Errorf("schema %s: %w", key, err)
		}
		if err := c.AddResource(url, doc); err != nil {
			return fmt.Errorf("schema %s: %w", key, err)
		}
		sch, err := c.Compile(url)
		if err != nil {
			return fmt.Errorf("schema %s: %w", key, err)
		}
		var buf bytes.Buffer
		if err := json.Indent(&buf, []byte(text), "", "  "); err != nil {
			return fmt.Errorf("schema %s: %w", key, err)
		}
		r.schemas[key] = &compiledSchema{raw: buf.Bytes(), schema: sch}
		return nil
	}
	for _, s := range r.specs {
		if err := add(inKey(s.template), s.input); err != nil {
			return err
		}
		if err := add(outKey(s.template, ""), s.output); err != nil {
			return err
		}
		for v, text := range s.outputBy {
			if err := add(outKey(s.template, v), text); err != nil {
				return err
			}
		}
	}
	return nil
}

func newCompiler() *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	// Schemas never load anything: taxonomy schemas are self-contained and
	// a seller's schema must not make the buyer fetch URLs or read files.
	c.UseLoader(noLoader{})
	return c
}

type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("schema references %s: external references are not allowed", url)
}

// schemaFor returns the compiled input or output schema of a resolved
// standard capability.
func schemaFor(c Capability, output bool) (*compiledSchema, error) {
	if c.Custom {
		return nil, fmt.Errorf("%s: %w", c.ID, ErrNoStandardSchema)
	}
	r := mustRegistry()
	s := r.spec(c.Template)
	if s == nil {
		return nil, fmt.Errorf("%w: %q", ErrUnknownCapability, c.ID)
	}
	key := inKey(s.template)
	if output {
		key = outKey(s.template, variantOf(s, c.Params))
	}
	return r.schemas[key], nil
}

func (r *registry) spec(template string) *capSpec {
	for _, s := range r.specs {
		if s.template == template {
			return s
		}
	}
	return nil
}

// InputSchema returns the JSON Schema (draft 2020-12) of id's input. id may
// also be a family in placeholder form. Custom IDs: ErrNoStandardSchema.
func InputSchema(id string) (json.RawMessage, error) {
	c, err := Lookup(id)
	if err != nil {
		return nil, err
	}
	s, err := schemaFor(c, false)
	if err != nil {
		return nil, err
	}
	return bytes.Clone(s.raw), nil
}

// OutputSchema returns the JSON Schema (draft 2020-12) of id's output. For
// a family in placeholder form whose output depends on a placeholder
// (data.lookup.weather.{format}) it is the union of the variants.
func OutputSchema(id string) (json.RawMessage, error) {
	c, err := Lookup(id)
	if err != nil {
		return nil, err
	}
	s, err := schemaFor(c, true)
	if err != nil {
		return nil, err
	}
	return bytes.Clone(s.raw), nil
}

// ValidateInput validates input against id's input schema. A mismatch is a
// *SchemaError (wrapping ErrSchema) listing every reason with its path.
func ValidateInput(id string, input []byte) error {
	return validateDoc(id, input, false)
}

// ValidateOutput validates output against id's output schema.
func ValidateOutput(id string, output []byte) error {
	return validateDoc(id, output, true)
}

func validateDoc(id string, doc []byte, output bool) error {
	c, err := Parse(id)
	if err != nil {
		return err
	}
	s, err := schemaFor(c, output)
	if err != nil {
		return err
	}
	v, err := decodeJSON(doc, docName(output), maxDocSize(output))
	if err != nil {
		return err
	}
	return s.validate(id, docName(output), v)
}

func docName(output bool) string {
	if output {
		return "output"
	}
	return "input"
}

func maxDocSize(output bool) int {
	if output {
		return MaxOutputSize
	}
	return MaxInputSize
}

// decodeJSON decodes one JSON document as jsonschema wants it (numbers as
// json.Number, so 1 and 1.5 keep their literal form).
func decodeJSON(doc []byte, name string, limit int) (any, error) {
	if len(doc) > limit {
		return nil, fmt.Errorf("%w: %s is %d bytes, the limit is %d", ErrTooLarge, name, len(doc), limit)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrNotJSON, name, err)
	}
	return v, nil
}

func (s *compiledSchema) validate(id, name string, v any) error {
	err := s.schema.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return &SchemaError{Capability: id, Document: name, Reasons: []string{err.Error()}}
	}
	return &SchemaError{Capability: id, Document: name, Reasons: schemaReasons(ve)}
}

var englishPrinter = message.NewPrinter(language.English)

// schemaReasons flattens a validation error tree into its leaves, each as
// "at /json/pointer: message".
func schemaReasons(ve *jsonschema.ValidationError) []string {
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(out) >= maxReasons {
			return
		}
		if len(e.Causes) == 0 {
			out = append(out, fmt.Sprintf("at %s: %s", pointer(e.InstanceLocation), e.ErrorKind.LocalizedString(englishPrinter)))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return out
}

func pointer(path []string) string {
	if len(path) == 0 {
		return "/"
	}
	var b strings.Builder
	for _, p := range path {
		b.WriteByte('/')
		p = strings.ReplaceAll(p, "~", "~0")
		b.WriteString(strings.ReplaceAll(p, "/", "~1"))
	}
	return b.String()
}

// compileSellerSchema compiles an untrusted schema a seller serves for a
// custom capability: size-capped, no external references, formats asserted.
func compileSellerSchema(raw json.RawMessage) (*compiledSchema, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, errors.New("no schema given")
	}
	if len(raw) > maxSellerSchemaSize {
		return nil, fmt.Errorf("seller schema is %d bytes, the limit is %d", len(raw), maxSellerSchemaSize)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("seller schema is not JSON: %w", err)
	}
	c := newCompiler()
	c.AssertFormat()
	url := schemaBaseURL + "seller.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("seller schema: %w", err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("seller schema does not compile: %w", err)
	}
	return &compiledSchema{raw: raw, schema: sch}, nil
}

// Schemas are the JSON Schemas (draft 2020-12) of one family of the
// taxonomy, as the node validates with them: what docs/specs/schemas/
// publishes, one file per family.
type Schemas struct {
	// Input is the input schema.
	Input json.RawMessage
	// Output is the output schema; for a family whose output depends on a
	// placeholder, the union of the variants (for browsing).
	Output json.RawMessage
	// Variant names that placeholder ("" when the output has one schema),
	// and OutputBy gives the output schema of each of its values: what a
	// concrete ID's output is validated with.
	Variant  string
	OutputBy map[string]json.RawMessage
}

// FamilySchemas returns the schemas of the standard family template (a
// concrete capability's ID, or a family's placeholder form as List names
// it). Custom IDs: ErrNoStandardSchema.
func FamilySchemas(template string) (Schemas, error) {
	c, err := Lookup(template)
	if err != nil {
		return Schemas{}, err
	}
	if c.Custom {
		return Schemas{}, fmt.Errorf("%s: %w", c.ID, ErrNoStandardSchema)
	}
	r := mustRegistry()
	s := r.spec(c.Template)
	if s == nil {
		return Schemas{}, fmt.Errorf("%w: %q", ErrUnknownCapability, template)
	}
	out := Schemas{
		Input:   bytes.Clone(r.schemas[inKey(s.template)].raw),
		Output:  bytes.Clone(r.schemas[outKey(s.template, "")].raw),
		Variant: s.variant,
	}
	for v := range s.outputBy {
		if out.OutputBy == nil {
			out.OutputBy = map[string]json.RawMessage{}
		}
		out.OutputBy[v] = bytes.Clone(r.schemas[outKey(s.template, v)].raw)
	}
	return out, nil
}
