package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	return path
}

func TestCapsList(t *testing.T) {
	t.Parallel()
	r := swarmwage(t, "caps", "list")
	require.Equal(t, 0, r.Code, r.Stderr)
	for _, want := range []string{"text.translate.{src}.{tgt}.{level}", "image.generate.photorealistic.png", "custom.{provider}.{capability}"} {
		require.Contains(t, r.Stdout, want)
	}

	r = swarmwage(t, "caps", "list", "--domain", "compute", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var doc struct {
		Capabilities []struct {
			ID     string   `json:"id"`
			Domain string   `json:"domain"`
			Checks []string `json:"checks"`
		} `json:"capabilities"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &doc))
	require.Len(t, doc.Capabilities, 3)
	for _, c := range doc.Capabilities {
		require.Equal(t, "compute", c.Domain)
		require.Contains(t, c.Checks, "output_schema")
	}

	r = swarmwage(t, "caps", "list", "--domain", "video")
	require.Equal(t, 2, r.Code)
	require.Contains(t, r.Stderr, `unknown domain "video"`)
}

func TestCapsShow(t *testing.T) {
	t.Parallel()
	r := swarmwage(t, "caps", "show", "--json", "text.translate.en.it.fluent")
	require.Equal(t, 0, r.Code, r.Stderr)
	var doc struct {
		ID       string            `json:"id"`
		Template string            `json:"template"`
		Params   map[string]string `json:"params"`
		Checks   []struct {
			Name        string `json:"name"`
			Description string `json:"description"`
		} `json:"checks"`
		InputSchema  map[string]any `json:"input_schema"`
		OutputSchema map[string]any `json:"output_schema"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &doc))
	require.Equal(t, "text.translate.{src}.{tgt}.{level}", doc.Template)
	require.Equal(t, map[string]string{"src": "en", "tgt": "it", "level": "fluent"}, doc.Params)
	require.Equal(t, "language_detected", doc.Checks[len(doc.Checks)-1].Name)
	require.NotEmpty(t, doc.Checks[len(doc.Checks)-1].Description)
	require.Equal(t, "object", doc.InputSchema["type"])
	require.Equal(t, "object", doc.OutputSchema["type"])

	// Flag after the argument, family in placeholder form, text output.
	r = swarmwage(t, "caps", "show", "compute.statistics.{op}")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "{op}: mean, median, stddev, variance, percentile-95")
	require.Contains(t, r.Stdout, "value_matches")
	require.Contains(t, r.Stdout, "input schema:")

	r = swarmwage(t, "caps", "show", "custom.acme.ocr")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "none standard")

	r = swarmwage(t, "caps", "show", "text.translate.en.xx.fluent")
	require.Equal(t, 2, r.Code)
	require.Contains(t, r.Stderr, `{tgt} = "xx"`)
	r = swarmwage(t, "caps", "show", "Text.x")
	require.Equal(t, 2, r.Code)
	require.Contains(t, r.Stderr, `rule "lowercase"`)
	r = swarmwage(t, "caps", "show")
	require.Equal(t, 2, r.Code)
}

func TestVerifyCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := writeFile(t, dir, "in.json", `{"data":[2,4,4,4,5,5,7,9]}`)
	good := writeFile(t, dir, "good.json", `{"result":5}`)
	wrong := writeFile(t, dir, "wrong.json", `{"result":5.5}`)
	badType := writeFile(t, dir, "badtype.json", `{"result":"5"}`)
	notJSON := writeFile(t, dir, "notjson.json", `{"result":`)

	r := swarmwage(t, "verify", "--input", in, "--output", good, "compute.statistics.mean")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "PASSED compute.statistics.mean")

	r = swarmwage(t, "verify", "compute.statistics.mean", "--input", in, "--output", wrong, "--json")
	require.Equal(t, 1, r.Code, r.Stderr)
	var rep struct {
		Capability string `json:"capability"`
		Passed     bool   `json:"passed"`
		Checks     []struct {
			Name   string `json:"name"`
			Passed bool   `json:"passed"`
			Detail string `json:"detail"`
		} `json:"checks"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &rep))
	require.Equal(t, "compute.statistics.mean", rep.Capability)
	require.False(t, rep.Passed)
	last := rep.Checks[len(rep.Checks)-1]
	require.Equal(t, "value_matches", last.Name)
	require.False(t, last.Passed)
	require.Contains(t, last.Detail, "mean of the 8 input values is 5")
	require.Contains(t, r.Stderr, "value_matches")

	r = swarmwage(t, "verify", "--input", in, "--output", badType, "compute.statistics.mean")
	require.Equal(t, 1, r.Code)
	require.Contains(t, r.Stdout, "FAIL output_schema: at /result")

	testCases := []struct {
		name string
		args []string
		says string
	}{
		{"unknown capability", []string{"--input", in, "--output", good, "compute.statistics.mode"}, "{op}"},
		{"malformed capability", []string{"--input", in, "--output", good, "Compute.x"}, "lowercase"},
		{"unreadable file", []string{"--input", filepath.Join(dir, "missing.json"), "--output", good, "compute.statistics.mean"}, "missing.json"},
		{"invalid JSON", []string{"--input", in, "--output", notJSON, "compute.statistics.mean"}, "not a JSON document"},
		{"no output flag", []string{"--input", in, "compute.statistics.mean"}, "output"},
		{"no input", []string{"--output", good, "compute.statistics.mean"}, "--input is required"},
		{"custom without schema", []string{"--output", good, "custom.acme.ocr"}, "--schema"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			r := swarmwage(t, append([]string{"verify"}, tc.args...)...)
			require.Equal(t, 2, r.Code, r.Stdout+r.Stderr)
			require.Contains(t, r.Stderr, tc.says)
			require.True(t, strings.HasPrefix(r.Stderr, "Error: ") || strings.Contains(r.Stderr, "Required flag"), r.Stderr)
		})
	}
}

func TestVerifyCustomWithSellerSchema(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	schema := writeFile(t, dir, "schema.json", `{"type":"object","required":["text"],"properties":{"text":{"type":"string"}}}`)
	good := writeFile(t, dir, "good.json", `{"text":"hello"}`)
	bad := writeFile(t, dir, "bad.json", `{"text":7}`)

	r := swarmwage(t, "verify", "--output", good, "--schema", schema, "custom.acme.ocr")
	require.Equal(t, 0, r.Code, r.Stderr)
	r = swarmwage(t, "verify", "--output", bad, "--schema", schema, "--json", "custom.acme.ocr")
	require.Equal(t, 1, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, `"name": "output_schema"`)
}
