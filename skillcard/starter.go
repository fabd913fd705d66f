package skillcard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// StarterVersion is the version of a card made by Starter.
const StarterVersion = "0.1.0"

// Starter returns a valid SkillCard for a skill called name, indented, for a
// seller to edit: one text input, one result output, a cli binding whose
// program is named after the slug. An empty name gives "My Skill".
func Starter(name string) ([]byte, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		name = "My Skill"
	}
	slug := Slugify(name)
	if !slugPattern.MatchString(slug) {
		return nil, fmt.Errorf("%w: name %q gives no slug (it needs a letter or digit a-z, 0-9)", ErrInvalidSkillCard, name)
	}
	program := strings.Trim(slug, "-")
	// A struct, not a map, so the fields come out in the spec's order.
	card := struct {
		Name                string         `json:"name"`
		Slug                string         `json:"slug"`
		Version             string         `json:"version"`
		Description         string         `json:"description"`
		InputsSchema        map[string]any `json:"inputs_schema"`
		OutputsSchema       map[string]any `json:"outputs_schema"`
		Bindings            []Binding      `json:"bindings"`
		Constraints         map[string]any `json:"constraints"`
		RequiredPermissions []string       `json:"required_permissions"`
		Examples            []Example      `json:"examples"`
		EvalPacks           []any          `json:"eval_packs"`
		Provenance          Provenance     `json:"provenance"`
	}{
		Name:        name,
		Slug:        slug,
		Version:     StarterVersion,
		Description: "What " + name + " does, in one or two sentences. Edit me.",
		InputsSchema: map[string]any{
			"type":     "object",
			"required": []string{"text"},
			"properties": map[string]any{
				"text": map[string]any{"type": "string", "minLength": 1, "maxLength": 10000},
				"lang": map[string]any{"type": "string"},
			},
		},
		OutputsSchema: map[string]any{
			"type":       "object",
			"required":   []string{"result"},
			"properties": map[string]any{"result": map[string]any{"type": "string"}},
		},
		Bindings:            []Binding{{Type: BindingCLI, Command: program + " --text=<text> [--lang=<lang>] --json"}},
		Constraints:         map[string]any{"riskTier": 1, "notes": []string{}},
		RequiredPermissions: []string{},
		Examples:            []Example{{Title: "A first try", Value: json.RawMessage(`{"text":"hello"}`)}},
		EvalPacks:           []any{},
		Provenance:          Provenance{Publisher: DefaultPublisher},
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(card); err != nil {
		return nil, fmt.Errorf("encode starter card: %w", err)
	}
	return buf.Bytes(), nil
}

// cardFileName matches names that claim the {slug}.v{version}.json
// convention.
var cardFileName = regexp.MustCompile(`^.+\.v[0-9][^/\\]*\.json$`)

// ClaimsCardFileName reports whether the base name of path looks like
// {slug}.v{version}.json, so a mismatch with the content is an error rather
// than a file simply named otherwise (card.json).
func ClaimsCardFileName(path string) bool {
	i := strings.LastIndexAny(path, `/\`)
	return cardFileName.MatchString(path[i+1:])
}
