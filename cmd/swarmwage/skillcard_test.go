package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const exampleCardPath = "../../skillcard/testdata/apeclaw-nft-autobuy.v1.0.0.json"

func writeCard(t *testing.T, dir, name string, mutate func(map[string]any)) string {
	t.Helper()
	data, err := os.ReadFile(exampleCardPath)
	require.NoError(t, err)
	if mutate != nil {
		var doc map[string]any
		require.NoError(t, json.Unmarshal(data, &doc))
		mutate(doc)
		data, err = json.MarshalIndent(doc, "", "  ")
		require.NoError(t, err)
	}
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path
}

func TestSkillcardValidateExitCodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := writeCard(t, dir, "apeclaw-nft-autobuy.v1.0.0.json", nil)
	bad := writeCard(t, dir, "bad.json", func(d map[string]any) {
		delete(d, "name")
		d["version"] = "one"
		d["constraints"] = map[string]any{"riskTier": 7}
		d["bindings"] = []any{map[string]any{"type": "cli"}}
	})
	notJSON := filepath.Join(dir, "notjson.json")
	require.NoError(t, os.WriteFile(notJSON, []byte("name: yaml?"), 0o644))

	r := swarmwage(t, "skillcard", "validate", good)
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "ok: "+good+" (apeclaw-nft-autobuy 1.0.0)")

	r = swarmwage(t, "skillcard", "validate", good, bad)
	require.Equal(t, 1, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "invalid: "+bad+", 4 problem(s):")
	for _, want := range []string{
		"/name: is required",
		`/version: "one" does not match the version pattern`,
		"/bindings/0/command: is required for a cli binding",
		"/constraints/riskTier: must be 1, 2 or 3, not 7",
	} {
		require.Contains(t, r.Stdout, want)
	}

	r = swarmwage(t, "skillcard", "validate", good, bad, notJSON)
	require.Equal(t, 2, r.Code)
	require.Contains(t, r.Stderr, "not JSON")

	r = swarmwage(t, "skillcard", "validate", filepath.Join(dir, "missing.json"))
	require.Equal(t, 2, r.Code)
	require.Contains(t, r.Stderr, "no such file")

	r = swarmwage(t, "skillcard", "validate")
	require.Equal(t, 2, r.Code)
}

func TestSkillcardValidateJSON(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := writeCard(t, dir, "bad.json", func(d map[string]any) { d["slug"] = "Bad Slug" })
	r := swarmwage(t, "skillcard", "validate", "--json", bad)
	require.Equal(t, 1, r.Code, r.Stderr)
	var res struct {
		Valid bool `json:"valid"`
		Files []struct {
			File     string `json:"file"`
			Valid    bool   `json:"valid"`
			Problems []struct {
				Path    string `json:"path"`
				Message string `json:"message"`
			} `json:"problems"`
		} `json:"files"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &res), r.Stdout)
	require.False(t, res.Valid)
	require.Len(t, res.Files, 1)
	require.Equal(t, bad, res.Files[0].File)
	require.Len(t, res.Files[0].Problems, 1)
	require.Equal(t, "/slug", res.Files[0].Problems[0].Path)
	require.Contains(t, res.Files[0].Problems[0].Message, "must be lowercase letters, digits and hyphens")
}

func TestSkillcardValidateFileNameAgainstContent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Claims the convention with the wrong version: a problem.
	wrong := writeCard(t, dir, "apeclaw-nft-autobuy.v2.0.0.json", nil)
	r := swarmwage(t, "skillcard", "validate", wrong)
	require.Equal(t, 1, r.Code, r.Stdout)
	require.Contains(t, r.Stdout, `should be named "apeclaw-nft-autobuy.v1.0.0.json"`)

	// Any other name: valid, with a warning.
	plain := writeCard(t, dir, "card.json", nil)
	r = swarmwage(t, "skillcard", "validate", plain, "--json")
	require.Equal(t, 0, r.Code, r.Stdout)
	require.Contains(t, r.Stdout, "not named apeclaw-nft-autobuy.v1.0.0.json")
}

func TestSkillcardHash(t *testing.T) {
	t.Parallel()
	r := swarmwage(t, "skillcard", "hash", exampleCardPath)
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Equal(t, "contentHash 0x2c11b818bd95c5b0d4d5f8fa687578b13eb2eb80fba6b3e079adbb8444179efa\n"+
		"versionHash 0x06c015bd22b4c69690933c1058878ebdfef31f9aaae40bbe86d8a09fe1b2972c\n", r.Stdout)

	r = swarmwage(t, "skillcard", "hash", "--json", exampleCardPath)
	require.Equal(t, 0, r.Code, r.Stderr)
	var res map[string]string
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &res))
	require.Equal(t, "0x2c11b818bd95c5b0d4d5f8fa687578b13eb2eb80fba6b3e079adbb8444179efa", res["contentHash"])
	require.Equal(t, "0x06c015bd22b4c69690933c1058878ebdfef31f9aaae40bbe86d8a09fe1b2972c", res["versionHash"])

	dir := t.TempDir()
	notJSON := filepath.Join(dir, "x.json")
	require.NoError(t, os.WriteFile(notJSON, []byte("{"), 0o644))
	r = swarmwage(t, "skillcard", "hash", notJSON)
	require.Equal(t, 2, r.Code)
	require.Contains(t, r.Stderr, "Error: ")

	invalid := writeCard(t, dir, "inv.json", func(d map[string]any) { delete(d, "bindings") })
	r = swarmwage(t, "skillcard", "hash", invalid)
	require.Equal(t, 0, r.Code)
	require.Contains(t, r.Stderr, "warning: ")
	require.Contains(t, r.Stdout, "contentHash 0x")
}

func TestSkillcardNewPrintsAValidCard(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, args := range [][]string{{"skillcard", "new"}, {"skillcard", "new", "--name", "Weather Now", "--json"}} {
		r := swarmwage(t, args...)
		require.Equal(t, 0, r.Code, r.Stderr)
		require.True(t, json.Valid([]byte(r.Stdout)))
		path := filepath.Join(dir, "new.json")
		require.NoError(t, os.WriteFile(path, []byte(r.Stdout), 0o644))
		v := swarmwage(t, "skillcard", "validate", path)
		require.Equal(t, 0, v.Code, v.Stdout)
	}
	r := swarmwage(t, "skillcard", "new", "--name", "Weather Now")
	require.Contains(t, r.Stdout, `"slug": "weather-now"`)

	r = swarmwage(t, "skillcard", "new", "--name", "???")
	require.Equal(t, 2, r.Code)
}

func TestSkillcardSave(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	out := filepath.Join(t.TempDir(), "cards")
	card := writeCard(t, src, "my card.json", nil)

	r := swarmwage(t, "skillcard", "save", "--dir", out, card)
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "note: "+card+" is named differently from its content")
	saved := filepath.Join(out, "apeclaw-nft-autobuy.v1.0.0.json")
	require.Contains(t, r.Stdout, "saved "+saved)
	want, err := os.ReadFile(card)
	require.NoError(t, err)
	got, err := os.ReadFile(saved)
	require.NoError(t, err)
	require.Equal(t, want, got, "saved byte for byte")

	r = swarmwage(t, "skillcard", "save", card, "--dir", out, "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var res map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &res))
	require.Equal(t, true, res["unchanged"])
	require.Equal(t, true, res["renamed"])
	require.Equal(t, saved, res["path"])
	require.Equal(t, "0x2c11b818bd95c5b0d4d5f8fa687578b13eb2eb80fba6b3e079adbb8444179efa", res["contentHash"])

	// Same slug and version, other content: refused.
	changed := writeCard(t, src, "changed.json", func(d map[string]any) { d["description"] = "something else" })
	r = swarmwage(t, "skillcard", "save", "--dir", out, changed)
	require.Equal(t, 1, r.Code)
	require.Contains(t, r.Stderr, "already exists with other content")

	invalid := writeCard(t, src, "invalid.json", func(d map[string]any) { d["version"] = "x" })
	r = swarmwage(t, "skillcard", "save", "--dir", out, invalid)
	require.Equal(t, 1, r.Code)
	require.Contains(t, r.Stderr, "/version")
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	require.Len(t, entries, 1, "nothing else written")

	r = swarmwage(t, "skillcard", "save", filepath.Join(src, "missing.json"))
	require.Equal(t, 2, r.Code)
	require.True(t, strings.HasPrefix(r.Stderr, "Error: "))
}
