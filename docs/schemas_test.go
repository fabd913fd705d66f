package docs_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/verify"
)

// schemaDir holds one JSON Schema document per capability family of the
// taxonomy, the schemas package verify validates with.
const schemaDir = "specs/schemas"

// schemaFile is the document of one family: a JSON Schema (draft 2020-12)
// whose $defs are the family's input and output schemas, so any
// validator can use "<file>#/$defs/input".
type schemaFile struct {
	Schema      string                     `json:"$schema"`
	Title       string                     `json:"title"`
	Description string                     `json:"description"`
	Comment     string                     `json:"$comment"`
	Checks      []string                   `json:"x-swarmwage-checks"`
	Variant     string                     `json:"x-swarmwage-output-by,omitempty"`
	Defs        map[string]json.RawMessage `json:"$defs"`
}

// schemaFiles builds every family's file from package verify.
func schemaFiles(t *testing.T) map[string][]byte {
	out := map[string][]byte{}
	for _, c := range verify.List() {
		if c.Custom {
			continue // the seller's schemas, in its listing
		}
		s, err := verify.FamilySchemas(c.Template)
		require.NoError(t, err, c.Template)
		f := schemaFile{
			Schema: "https://json-schema.org/draft/2020-12/schema", Title: c.Template, Description: c.Description,
			Comment: "swarmwage/v0.1: validate a job's input with #/$defs/input and its output with #/$defs/output" +
				"; written from package verify by 'go test ./docs -update', which checks it",
			Checks: c.Checks, Variant: s.Variant,
			Defs: map[string]json.RawMessage{"input": s.Input, "output": s.Output},
		}
		if s.Variant != "" {
			f.Comment = "swarmwage/v0.1: validate a job's input with #/$defs/input and its output with #/$defs/output-<" + s.Variant +
				"> for the ID's {" + s.Variant + "} (#/$defs/output is their union)" +
				"; written from package verify by 'go test ./docs -update', which checks it"
			for v, sch := range s.OutputBy {
				f.Defs["output-"+v] = sch
			}
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		require.NoError(t, enc.Encode(f))
		out[c.Template+".json"] = buf.Bytes()
	}
	return out
}

// TestCapabilitySchemaFiles: docs/specs/schemas has one file per family of
// the taxonomy, each holding exactly the schemas the node validates with
// (go test ./docs -update rewrites them from package verify).
func TestCapabilitySchemaFiles(t *testing.T) {
	want := schemaFiles(t)
	if *update {
		require.NoError(t, os.MkdirAll(schemaDir, 0o755))
		old, _ := filepath.Glob(filepath.Join(schemaDir, "*.json"))
		for _, p := range old {
			require.NoError(t, os.Remove(p))
		}
		for name, b := range want {
			require.NoError(t, os.WriteFile(filepath.Join(schemaDir, name), b, 0o644))
		}
	}
	have, err := filepath.Glob(filepath.Join(schemaDir, "*.json"))
	require.NoError(t, err)
	var names []string
	for _, p := range have {
		names = append(names, filepath.Base(p))
	}
	var wantNames []string
	for n := range want {
		wantNames = append(wantNames, n)
	}
	slices.Sort(wantNames)
	require.Equal(t, wantNames, names, "one file per family of the taxonomy, no other")
	for name, b := range want {
		got, err := os.ReadFile(filepath.Join(schemaDir, name))
		require.NoError(t, err)
		require.Equal(t, string(b), string(got), "%s is not what package verify validates with: run go test ./docs -update", name)
	}
}

// Each file is a JSON Schema a validator other than the node's compiles,
// and its $defs accept and refuse what the node accepts and refuses.
func TestCapabilitySchemaFilesValidateAsTheNodeDoes(t *testing.T) {
	c := jsonschema.NewCompiler()
	for name, b := range schemaFiles(t) {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		require.NoError(t, err, name)
		require.NoError(t, c.AddResource("https://example.test/"+name, doc), name)
	}
	testCases := []struct {
		file, def, doc string
		ok             bool
	}{
		{"compute.statistics.{op}.json", "input", `{"data":[1,2,3]}`, true},
		{"compute.statistics.{op}.json", "input", `{"data":"1,2,3"}`, false},
		{"compute.statistics.{op}.json", "output", `{"result":2}`, true},
		{"compute.statistics.{op}.json", "output", `{}`, false},
		{"data.lookup.weather.{format}.json", "output-summary-text", `{"summary":"sunny"}`, true},
		{"data.lookup.weather.{format}.json", "output-summary-text", `{"temperature_c":3}`, false},
	}
	for _, tc := range testCases {
		sch, err := c.Compile("https://example.test/" + tc.file + "#/$defs/" + tc.def)
		require.NoError(t, err)
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(tc.doc)))
		require.NoError(t, err)
		err = sch.Validate(v)
		require.Equal(t, tc.ok, err == nil, "%s %s %s: %v", tc.file, tc.def, tc.doc, err)
		id := "compute.statistics.mean"
		if tc.file != "compute.statistics.{op}.json" {
			id = "data.lookup.weather.summary-text"
		}
		var nodeErr error
		if tc.def == "input" {
			nodeErr = verify.ValidateInput(id, []byte(tc.doc))
		} else {
			nodeErr = verify.ValidateOutput(id, []byte(tc.doc))
		}
		require.Equal(t, tc.ok, nodeErr == nil, "the node agrees on %s %s", tc.def, tc.doc)
	}
}
