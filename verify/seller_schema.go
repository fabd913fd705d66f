package verify

import (
	"encoding/json"
	"fmt"
)

// ValidateWithSchema validates the input document of a capability outside
// the taxonomy (custom.*, WCP IDs) against the schema its seller published.
// A mismatch is a *SchemaError listing every reason with its path; an
// unusable schema or a document that is not JSON is an error that says so.
func ValidateWithSchema(id string, schema json.RawMessage, input []byte) error {
	if err := CheckID(id); err != nil {
		return err
	}
	sch, err := compileSellerSchema(schema)
	if err != nil {
		return fmt.Errorf("input schema of %s: %w", id, err)
	}
	doc, err := decodeJSON(input, "input", MaxInputSize)
	if err != nil {
		return err
	}
	return sch.validate(id, "input", doc)
}
